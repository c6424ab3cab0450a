// pte-run libFuzzer target: the verified loader, program description and method
// loading on arbitrary bytes (input format: fuzz/exercise.h).
//
//   scripts/fuzz.sh 120          # build with clang + ASan/UBSan and fuzz for 120 s
//
// Any crash, sanitizer report, or a failure whose message is empty or spans several
// lines aborts; the input is then saved by libFuzzer and belongs in fuzz/regressions/.
#include <cstdio>
#include <cstdlib>

#include "fuzz/exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pte::fuzz::Result r = pte::fuzz::exercise(data, size);
  if (!r.bad_message.empty()) {
    std::fprintf(stderr, "pte-run fuzz: bad error message: %s\n", r.bad_message.c_str());
    std::abort();
  }
  return 0;
}
