// pte-run tokenizers: Unicode lookups, normalization forms and UTF-8 helpers.
#include "tokenizer/unicode.h"

#include <algorithm>
#include <cstddef>
#include <iterator>

namespace pte::tok {

namespace {
#include "tokenizer/unicode_tables.inc"

// Runs tables: sorted (start << shift) | value entries; the run containing c is the
// last entry whose start is <= c.
template <size_t N>
uint32_t run_value(const uint32_t (&runs)[N], char32_t c, int shift) {
  uint32_t key = (static_cast<uint32_t>(c) << shift) | ((1u << shift) - 1);
  const uint32_t* it = std::upper_bound(runs, runs + N, key);
  if (it == runs) return 0;
  return it[-1] & ((1u << shift) - 1);
}

struct AsciiTables {
  uint8_t gc[128];
  uint8_t flags[128];
  AsciiTables() {
    for (char32_t c = 0; c < 128; ++c) {
      gc[c] = static_cast<uint8_t>(run_value(kGcRuns, c, 5));
      flags[c] = static_cast<uint8_t>(run_value(kFlagRuns, c, 8));
    }
  }
};
const AsciiTables& ascii() {
  static const AsciiTables t;
  return t;
}

constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

// Recursive decomposition of c (canonical, or compatibility when compat).
void decompose(char32_t c, bool compat, uint32_t align, std::u32string* out, std::vector<uint32_t>* out_align) {
  if (c >= kSBase && c < kSBase + kSCount) {
    uint32_t s = c - kSBase;
    out->push_back(kLBase + s / kNCount);
    out->push_back(kVBase + (s % kNCount) / kTCount);
    int n = 2;
    if (s % kTCount) out->push_back(kTBase + s % kTCount), ++n;
    if (out_align) out_align->insert(out_align->end(), n, align);
    return;
  }
  if (c >= 0xA0) {
    constexpr size_t n = std::size(kDecomp) / 2;
    size_t lo = 0, hi = n;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (kDecomp[2 * mid] < c) lo = mid + 1;
      else hi = mid;
    }
    if (lo < n && kDecomp[2 * lo] == c) {
      uint32_t info = kDecomp[2 * lo + 1];
      bool is_compat = (info & 0x80) != 0;
      if (compat || !is_compat) {
        uint32_t off = info >> 8, len = info & 0x7F;
        for (uint32_t k = 0; k < len; ++k) decompose(kDecompPool[off + k], compat, align, out, out_align);
        return;
      }
    }
  }
  out->push_back(c);
  if (out_align) out_align->push_back(align);
}

char32_t compose_pair(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount)
    return a + (b - kTBase);
  constexpr size_t n = std::size(kCompose) / 3;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const uint32_t* e = kCompose + 3 * mid;
    if (e[0] < a || (e[0] == a && e[1] < b)) lo = mid + 1;
    else hi = mid;
  }
  if (lo < n && kCompose[3 * lo] == a && kCompose[3 * lo + 1] == b) return kCompose[3 * lo + 2];
  return 0;
}

}  // namespace

Gc general_category(char32_t c) {
  if (c < 128) return static_cast<Gc>(ascii().gc[c]);
  if (c > 0x10FFFF) return kCn;
  return static_cast<Gc>(run_value(kGcRuns, c, 5));
}

uint8_t flags(char32_t c) {
  if (c < 128) return ascii().flags[c];
  if (c > 0x10FFFF) return 0;
  return static_cast<uint8_t>(run_value(kFlagRuns, c, 8));
}

bool is_white_space(char32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

int append_lowercase(char32_t c, std::u32string* out) {
  if (c < 0x80) {
    out->push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return 1;
  }
  constexpr size_t n = std::size(kLowerPairs) / 2;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (kLowerPairs[2 * mid] < c) lo = mid + 1;
    else hi = mid;
  }
  if (lo < n && kLowerPairs[2 * lo] == c) {
    out->push_back(kLowerPairs[2 * lo + 1]);
    return 1;
  }
  for (size_t i = 0; i + 1 < std::size(kLowerMulti);) {
    uint32_t cp = kLowerMulti[i], len = kLowerMulti[i + 1];
    if (cp == c && len > 0) {
      for (uint32_t k = 0; k < len; ++k) out->push_back(kLowerMulti[i + 2 + k]);
      return static_cast<int>(len);
    }
    i += 2 + len;
  }
  out->push_back(c);
  return 1;
}

uint8_t combining_class(char32_t c) {
  if (c < 0x300) return 0;
  return static_cast<uint8_t>(run_value(kCccRuns, c, 8));
}

// Alignments follow the reference (NormalizedString::transform over the changes that
// unicode-normalization-alignments reports): every decomposed character carries a
// change (0 for the first of its source character, +1 for the others), canonical
// reordering moves the changes with the characters, composing folds a character's
// change into its starter (-1); then the output is walked in order, a character with
// change <= 0 taking the alignment of the next source character (and skipping the
// ones it absorbed), an inserted one (+1) that of the previous. So alignment is
// positional: "\u0315\u0300" reordered to "\u0300\u0315" aligns U+0300 with offset 0.
void normalize(NormForm form, const std::u32string& in, const std::vector<uint32_t>* in_align,
               std::u32string* out, std::vector<uint32_t>* out_align) {
  bool compat = form == NormForm::NFKC || form == NormForm::NFKD;
  bool compose = form == NormForm::NFC || form == NormForm::NFKC;
  std::u32string d;
  std::vector<int32_t> dc;  // change per decomposed character
  d.reserve(in.size());
  dc.reserve(in.size());
  std::vector<uint32_t> scratch;
  for (size_t i = 0; i < in.size(); ++i) {
    char32_t c = in[i];
    size_t before = d.size();
    if (c < 0xC0 && (!compat || c < 0xA0)) {  // nothing below U+00C0 decomposes (U+00A0.. are compatibility only)
      d.push_back(c);
    } else {
      scratch.clear();
      decompose(c, compat, 0, &d, &scratch);
    }
    for (size_t k = before; k < d.size(); ++k) dc.push_back(k == before ? 0 : 1);
  }
  // Canonical ordering: stable sort of each run of non-starters by class.
  for (size_t i = 0; i < d.size();) {
    if (combining_class(d[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < d.size() && combining_class(d[j]) != 0) ++j;
    if (j - i > 1) {
      // insertion sort keeps equal classes in order; runs are short
      for (size_t k = i + 1; k < j; ++k) {
        char32_t ch = d[k];
        int32_t chg = dc[k];
        uint8_t cc = combining_class(ch);
        size_t m = k;
        while (m > i && combining_class(d[m - 1]) > cc) {
          d[m] = d[m - 1];
          dc[m] = dc[m - 1];
          --m;
        }
        d[m] = ch;
        dc[m] = chg;
      }
    }
    i = j;
  }
  std::u32string r;
  std::vector<int32_t> rc;
  if (!compose) {
    r = std::move(d);
    rc = std::move(dc);
  } else {
    r.reserve(d.size());
    rc.reserve(d.size());
    long starter = -1;
    uint8_t last_cc = 0;
    for (size_t i = 0; i < d.size(); ++i) {
      char32_t c = d[i];
      uint8_t cc = combining_class(c);
      if (starter >= 0) {
        bool adjacent = static_cast<long>(r.size()) - 1 == starter;
        bool blocked = !adjacent && (last_cc == 0 || last_cc >= cc);
        if (!blocked) {
          char32_t p = compose_pair(r[static_cast<size_t>(starter)], c);
          if (p) {
            r[static_cast<size_t>(starter)] = p;
            rc[static_cast<size_t>(starter)] += dc[i] - 1;
            continue;
          }
        }
      }
      if (cc == 0) starter = static_cast<long>(r.size());
      r.push_back(c);
      rc.push_back(dc[i]);
      last_cc = cc;
    }
  }
  if (out_align) {
    std::vector<uint32_t> ra(r.size(), 0);
    size_t offset = 0;
    auto src = [&](size_t k) -> uint32_t {
      if (!in_align || in_align->empty()) return 0;
      return (*in_align)[std::min(k, in_align->size() - 1)];
    };
    for (size_t k = 0; k < r.size(); ++k) {
      if (rc[k] > 0) {
        ra[k] = src(offset > 0 ? offset - 1 : 0);
      } else {
        ra[k] = src(offset);
        offset += 1 + static_cast<size_t>(-rc[k]);
      }
    }
    *out_align = std::move(ra);
  }
  *out = std::move(r);
}

// ------------------------------------------------------------------ UTF-8

namespace {
// Length of the well-formed prefix of the sequence at s[i] (0 when s[i] cannot
// start one); *complete is true when it is a whole character.
size_t utf8_seq(const unsigned char* s, size_t i, size_t n, char32_t* cp, bool* complete) {
  unsigned char b = s[i];
  *complete = false;
  if (b < 0x80) {
    *cp = b;
    *complete = true;
    return 1;
  }
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  char32_t v;
  if (b >= 0xC2 && b <= 0xDF) need = 1, v = b & 0x1F;
  else if (b >= 0xE0 && b <= 0xEF) {
    need = 2, v = b & 0x0F;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3, v = b & 0x07;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  size_t k = 1;
  for (; k <= need; ++k) {
    if (i + k >= n) return k;
    unsigned char c = s[i + k];
    if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return k;
    v = (v << 6) | (c & 0x3F);
  }
  *cp = v;
  *complete = true;
  return k;
}
}  // namespace

bool utf8_decode(std::string_view s, std::u32string* out, std::vector<uint32_t>* byte_offsets) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  out->reserve(out->size() + n);
  for (size_t i = 0; i < n;) {
    if (p[i] < 0x80) {
      out->push_back(p[i]);
      if (byte_offsets) byte_offsets->push_back(static_cast<uint32_t>(i));
      ++i;
      continue;
    }
    char32_t cp;
    bool complete;
    size_t len = utf8_seq(p, i, n, &cp, &complete);
    if (!complete) return false;
    out->push_back(cp);
    if (byte_offsets) byte_offsets->push_back(static_cast<uint32_t>(i));
    i += len;
  }
  return true;
}

bool utf8_valid(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  for (size_t i = 0; i < n;) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    char32_t cp;
    bool complete;
    size_t len = utf8_seq(p, i, n, &cp, &complete);
    if (!complete) return false;
    i += len;
  }
  return true;
}

void append_utf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string to_utf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) append_utf8(c, &out);
  return out;
}

std::string utf8_lossy(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n;) {
    if (p[i] < 0x80) {
      out.push_back(static_cast<char>(p[i++]));
      continue;
    }
    char32_t cp;
    bool complete;
    size_t len = utf8_seq(p, i, n, &cp, &complete);
    if (complete) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out.append("\xEF\xBF\xBD");
      i += len == 0 ? 1 : len;
    }
  }
  return out;
}

bool ends_with_replacement_char(std::string_view s) {
  return s.size() >= 3 && s.substr(s.size() - 3) == "\xEF\xBF\xBD";
}

}  // namespace pte::tok
