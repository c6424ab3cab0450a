// pte-run tokenizers: Unicode data (generated tables in unicode_tables.inc) and UTF-8.
//
// The tables come from Python's unicodedata plus probes of the reference library
// (see gen_unicode_tables.py): each predicate below is the one the corresponding
// Hugging Face component uses, with that component's Unicode version.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pte::tok {

// General categories, in the order of the generated table.
enum Gc : uint8_t {
  kLu, kLl, kLt, kLm, kLo, kMn, kMc, kMe, kNd, kNl, kNo, kPc, kPd, kPs, kPe,
  kPi, kPf, kPo, kSm, kSc, kSk, kSo, kZs, kZl, kZp, kCc, kCf, kCs, kCo, kCn,
  kGcCount
};
Gc general_category(char32_t c);
inline bool gc_is_letter(Gc g) { return g <= kLo; }
inline bool gc_is_mark(Gc g) { return g >= kMn && g <= kMe; }
inline bool gc_is_number(Gc g) { return g >= kNd && g <= kNo; }
inline bool gc_is_punct(Gc g) { return g >= kPc && g <= kPo; }
inline bool gc_is_symbol(Gc g) { return g >= kSm && g <= kSo; }
inline bool gc_is_separator(Gc g) { return g >= kZs && g <= kZp; }
inline bool gc_is_other(Gc g) { return g >= kCc; }

// Per-code-point flags (bit values match gen_unicode_tables.py).
enum : uint8_t {
  kFlagBertPunct = 1,    // BertPreTokenizer / Punctuation: punctuation
  kFlagBertControl = 2,  // BertNormalizer clean_text: removed
  kFlagBertMn = 4,       // BertNormalizer strip_accents: removed (after NFD)
  kFlagCombining = 8,    // StripAccents: removed
  kFlagRustWord = 16,    // Rust regex \w
  kFlagOnigWord = 32,    // split-pattern regex \w
  kFlagOnigDigit = 64,   // split-pattern regex \d
  kFlagOnigSpace = 128,  // split-pattern regex \s
};
uint8_t flags(char32_t c);
inline bool has_flag(char32_t c, uint8_t f) { return (flags(c) & f) != 0; }

// Unicode White_Space (Rust char::is_whitespace).
bool is_white_space(char32_t c);
// Rust char::is_numeric (general category N).
inline bool is_numeric(char32_t c) { return gc_is_number(general_category(c)); }
// Appends the lowercase mapping of c (Rust char::to_lowercase: may be 2 chars).
// Returns the number of code points appended.
int append_lowercase(char32_t c, std::u32string* out);
uint8_t combining_class(char32_t c);

enum class NormForm { NFC, NFD, NFKC, NFKD };
// Normalizes `in`. `in_align`/`out_align` (may be null) carry one value per code
// point, assigned positionally as the reference does (see unicode.cpp): reordered
// combining marks do not carry their source's value with them.
void normalize(NormForm form, const std::u32string& in, const std::vector<uint32_t>* in_align,
               std::u32string* out, std::vector<uint32_t>* out_align);

// ------------------------------------------------------------------ UTF-8
// Decodes valid UTF-8; returns false (and leaves the output partial) when invalid.
// byte_offsets (may be null) receives the byte offset of each code point.
bool utf8_decode(std::string_view s, std::u32string* out, std::vector<uint32_t>* byte_offsets);
void append_utf8(char32_t c, std::string* out);
std::string to_utf8(std::u32string_view s);
// Length of the UTF-8 sequence for code point c.
inline int utf8_len(char32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }
// Bytes -> valid UTF-8: each maximal ill-formed subpart becomes U+FFFD (as Rust's
// String::from_utf8_lossy and Python's errors="replace" do).
std::string utf8_lossy(std::string_view bytes);
bool utf8_valid(std::string_view bytes);
// True when `s` ends with U+FFFD.
bool ends_with_replacement_char(std::string_view s);

}  // namespace pte::tok
