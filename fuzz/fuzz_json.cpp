// pte-run libFuzzer target: util/json. Parses arbitrary text; when it parses, the
// written form must parse back to an equal value and write identically (round trip).
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "util/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  pte::json::Value v;
  pte::Status s = pte::json::parse(text, &v);
  if (!s) {
    if (s.message().empty() || s.message().find('\n') != std::string::npos) std::abort();
    return 0;
  }
  for (int indent : {-1, 2}) {
    pte::json::WriteOptions o;
    o.indent = indent;
    o.ascii_only = indent > 0;
    std::string out = pte::json::write(v, o);
    pte::json::Value back;
    pte::json::ParseOptions po;
    po.max_depth = 1000;  // the written form has the same depth
    pte::Status s2 = pte::json::parse(out, &back, po);
    if (!s2 || !(back == v) || pte::json::write(back, o) != out) {
      std::fprintf(stderr, "round trip failed: %s\n", s2.message().c_str());
      std::abort();
    }
  }
  return 0;
}
