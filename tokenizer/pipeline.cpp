// pte-run tokenizers: pieces, pattern matches and splitting (the reference's
// NormalizedString::split and Pattern), plus small JSON helpers.
#include <algorithm>
#include <array>

#include "tokenizer/components.h"
#include "tokenizer/unicode.h"

namespace pte::tok {

Piece slice_piece(const Piece& p, size_t a, size_t b) {
  Piece s;
  s.text.assign(p.text, a, b - a);
  s.align.assign(p.align.begin() + static_cast<long>(a), p.align.begin() + static_cast<long>(b));
  s.shift = a < b ? p.align[a] : p.shift + static_cast<uint32_t>(a);
  return s;
}

void find_matches(const Regex& re, std::u32string_view text, std::vector<Match>* out) {
  out->clear();
  if (text.empty()) {
    out->push_back({0, 0, false});
    return;
  }
  std::vector<std::pair<size_t, size_t>> m;
  re.find_all(text, &m);
  size_t prev = 0;
  for (auto [s, e] : m) {
    if (prev != s) out->push_back({prev, s, false});
    out->push_back({s, e, true});
    prev = e;
  }
  if (prev != text.size()) out->push_back({prev, text.size(), false});
}

Status parse_split_behavior(const json::Value& v, SplitBehavior* out) {
  const std::string& s = v.as_string();
  if (s == "Removed") *out = SplitBehavior::kRemoved;
  else if (s == "Isolated") *out = SplitBehavior::kIsolated;
  else if (s == "MergedWithPrevious") *out = SplitBehavior::kMergedWithPrevious;
  else if (s == "MergedWithNext") *out = SplitBehavior::kMergedWithNext;
  else if (s == "Contiguous") *out = SplitBehavior::kContiguous;
  else return Status::error("split behavior " + json::write(v) + " is not supported");
  return Status::ok();
}

void split_piece(const Piece& p, const std::vector<Match>& matches, SplitBehavior behavior, Pieces* out) {
  // (start, end, remove) as the reference computes them per behavior.
  struct Span {
    size_t start, end;
    bool remove;
  };
  std::vector<Span> spans;
  spans.reserve(matches.size());
  switch (behavior) {
    case SplitBehavior::kIsolated:
      for (const auto& m : matches) spans.push_back({m.start, m.end, false});
      break;
    case SplitBehavior::kRemoved:
      for (const auto& m : matches) spans.push_back({m.start, m.end, m.is_match});
      break;
    case SplitBehavior::kContiguous: {
      bool prev = false;
      for (const auto& m : matches) {
        if (m.is_match == prev && !spans.empty()) spans.back().end = m.end;
        else spans.push_back({m.start, m.end, false});
        prev = m.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithPrevious: {
      bool prev = false;
      for (const auto& m : matches) {
        if (m.is_match && !prev && !spans.empty()) spans.back().end = m.end;
        else spans.push_back({m.start, m.end, false});
        prev = m.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithNext: {
      bool prev = false;
      for (size_t k = matches.size(); k-- > 0;) {
        const auto& m = matches[k];
        if (m.is_match && !prev && !spans.empty()) spans.back().start = m.start;
        else spans.push_back({m.start, m.end, false});
        prev = m.is_match;
      }
      std::reverse(spans.begin(), spans.end());
      break;
    }
  }
  for (const auto& s : spans)
    if (!s.remove && s.end > s.start) out->push_back(slice_piece(p, s.start, s.end));
}

const std::string* json_string(const json::Value& obj, std::string_view key) {
  const json::Value* v = obj.find(key, json::Type::String);
  return v ? &v->as_string() : nullptr;
}

Status json_bool(const json::Value& obj, std::string_view key, bool dflt, bool* out) {
  const json::Value* v = obj.find(key);
  if (!v || v->is_null()) {
    *out = dflt;
    return Status::ok();
  }
  if (!v->is_bool()) return Status::error(std::string("field \"") + std::string(key) + "\" must be a boolean");
  *out = v->as_bool();
  return Status::ok();
}

Status compile_pattern(const json::Value& pattern, const char* what, Regex* out) {
  if (const std::string* s = json_string(pattern, "String")) {
    std::u32string lit;
    if (!utf8_decode(*s, &lit, nullptr)) return Status::error(std::string(what) + ": pattern is not valid UTF-8");
    *out = Regex::literal(lit);
    return Status::ok();
  }
  if (const std::string* r = json_string(pattern, "Regex")) {
    std::string err;
    if (!Regex::compile(*r, out, &err))
      return Status::error(std::string(what) + ": regex " + json::quote(*r) + ": " + err);
    return Status::ok();
  }
  return Status::error(std::string(what) + ": pattern must be {\"String\": ...} or {\"Regex\": ...}");
}

namespace {
struct ByteMap {
  std::array<char32_t, 256> to_char{};
  std::array<int16_t, 324> to_byte{};  // byte-level chars are < 0x144
  ByteMap() {
    to_byte.fill(-1);
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      char32_t c = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + n++);
      to_char[static_cast<size_t>(b)] = c;
      to_byte[c] = static_cast<int16_t>(b);
    }
  }
};
const ByteMap& byte_map() {
  static const ByteMap m;
  return m;
}
}  // namespace

char32_t byte_to_char(uint8_t b) { return byte_map().to_char[b]; }
int char_to_byte(char32_t c) { return c < 324 ? byte_map().to_byte[c] : -1; }

}  // namespace pte::tok
