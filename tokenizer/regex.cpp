// pte-run tokenizers: backtracking regex engine (see regex.h).
//
// Patterns compile to a tree of nodes; matching walks the tree with explicit
// continuations (a node matches, then calls "the rest of the pattern" with the new
// position), which gives Perl/Oniguruma leftmost-first semantics with full
// backtracking. Repetitions of a single character class (every loop in real
// tokenizer patterns) run iteratively: count the longest run, then hand positions
// to the continuation from longest to shortest, so they cost no stack depth.
#include "tokenizer/regex.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "tokenizer/unicode.h"

namespace pte::tok {

namespace {

// Simple case folding for the characters case-insensitive tokenizer patterns meet.
char32_t fold(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  switch (c) {
    case 0x17F: return 's';      // LATIN SMALL LETTER LONG S
    case 0x212A: return 'k';     // KELVIN SIGN
    case 0x212B: return 0xE5;    // ANGSTROM SIGN
    case 0x2126: return 0x3C9;   // OHM SIGN
    case 0x3C2: return 0x3C3;    // final sigma
    case 0x1E9E: return 0xDF;    // capital sharp s
    default: break;
  }
  std::u32string l;
  if (append_lowercase(c, &l) == 1) return l[0];
  return c;
}

constexpr uint8_t kFlagNone = 0;

// Oniguruma's \w inside a character class leaves out six Latin-1 numbers that a
// standalone \w (and \b) counts as word characters.
bool class_word(char32_t c) {
  if (c == 0xB2 || c == 0xB3 || c == 0xB9 || (c >= 0xBC && c <= 0xBE)) return false;
  return has_flag(c, kFlagOnigWord);
}

struct ClassItem {
  enum Kind : uint8_t { kRange, kGcMask, kFlag, kNotFlag, kSub, kClassWord, kNotClassWord } kind;
  char32_t lo = 0, hi = 0;
  uint32_t gc_mask = 0;
  uint8_t flag = kFlagNone;
  int sub = -1;  // index into CharClass::subs
};

struct CharClass {
  std::vector<ClassItem> items;
  std::vector<CharClass> subs;          // nested classes
  std::vector<CharClass> intersections; // a && b: every one must match too
  bool negate = false;
  bool icase = false;
  uint64_t ascii[2] = {0, 0};           // precomputed membership for c < 128

  bool raw_contains(char32_t c) const {
    bool in = false;
    for (const auto& it : items) {
      switch (it.kind) {
        case ClassItem::kRange: in = c >= it.lo && c <= it.hi; break;
        case ClassItem::kGcMask: in = (it.gc_mask >> general_category(c)) & 1u; break;
        case ClassItem::kFlag: in = has_flag(c, it.flag); break;
        case ClassItem::kNotFlag: in = !has_flag(c, it.flag); break;
        case ClassItem::kSub: in = subs[static_cast<size_t>(it.sub)].contains(c); break;
        case ClassItem::kClassWord: in = class_word(c); break;
        case ClassItem::kNotClassWord: in = !class_word(c); break;
      }
      if (in) break;
    }
    if (in)
      for (const auto& x : intersections)
        if (!x.contains(c)) {
          in = false;
          break;
        }
    return in;
  }
  bool contains_slow(char32_t c) const {
    bool in = raw_contains(c);
    if (!in && icase) {
      char32_t f = fold(c);
      if (f != c) in = raw_contains(f);
      if (!in && f < 0x80 && f >= 'a' && f <= 'z') in = raw_contains(f - 32);
      if (!in && f == 's') in = raw_contains(0x17F);
      if (!in && f == 'k') in = raw_contains(0x212A);
    }
    return in != negate;
  }
  bool contains(char32_t c) const {
    if (c < 128) return (ascii[c >> 6] >> (c & 63)) & 1u;
    return contains_slow(c);
  }
  void finalize() {
    for (auto& s : subs) s.finalize();
    for (auto& s : intersections) s.finalize();
    ascii[0] = ascii[1] = 0;
    for (char32_t c = 0; c < 128; ++c)
      if (contains_slow(c)) ascii[c >> 6] |= uint64_t{1} << (c & 63);
  }
};

enum class AssertKind : uint8_t { kBol, kEol, kBos, kEos, kEosNl, kWordB, kNotWordB };

}  // namespace

struct Regex::Node {
  enum Kind : uint8_t { kEmpty, kChar, kSet, kAny, kSeq, kAlt, kRepeat, kAtomic, kLook, kAssert } kind = kEmpty;
  char32_t ch = 0;
  bool icase = false;
  bool dotall = false;
  CharClass set;
  std::vector<const Node*> kids;
  // repeat
  int min = 0, max = -1;  // max -1: unbounded
  enum Mode : uint8_t { kGreedy, kLazy, kPossessive } mode = kGreedy;
  // lookaround
  bool negate = false, behind = false;
  std::vector<std::pair<int, const Node*>> behind_alts;  // (fixed length, alternative)
  AssertKind assert_kind = AssertKind::kBol;

  bool single() const { return kind == kChar || kind == kSet || kind == kAny; }
  bool match1(char32_t c) const {
    switch (kind) {
      case kChar: return c == ch || (icase && fold(c) == fold(ch));
      case kSet: return set.contains(c);
      case kAny: return dotall || c != '\n';
      default: return false;
    }
  }
};

// ------------------------------------------------------------------ parser

namespace {

struct Flags {
  bool icase = false;
  bool dotall = false;
};

class Parser {
 public:
  Parser(std::u32string_view p, std::vector<std::unique_ptr<Regex::Node>>* nodes) : p_(p), nodes_(nodes) {}

  const Regex::Node* parse(std::string* error) {
    Flags f;
    const Regex::Node* n = parse_alt(&f);
    if (!err_.empty()) {
      *error = err_;
      return nullptr;
    }
    if (i_ < p_.size()) {
      *error = "unmatched ')'";
      return nullptr;
    }
    return n;
  }

 private:
  Regex::Node* make(Regex::Node::Kind k) {
    nodes_->push_back(std::make_unique<Regex::Node>());
    nodes_->back()->kind = k;
    return nodes_->back().get();
  }
  bool fail(std::string msg) {
    if (err_.empty()) err_ = std::move(msg);
    return false;
  }
  bool eof() const { return i_ >= p_.size(); }
  char32_t peek(size_t k = 0) const { return i_ + k < p_.size() ? p_[i_ + k] : 0; }

  const Regex::Node* parse_alt(Flags* f) {
    std::vector<const Regex::Node*> alts;
    alts.push_back(parse_seq(f));
    while (err_.empty() && !eof() && peek() == '|') {
      ++i_;
      alts.push_back(parse_seq(f));
    }
    if (alts.size() == 1) return alts[0];
    auto* n = make(Regex::Node::kAlt);
    n->kids = std::move(alts);
    return n;
  }

  const Regex::Node* parse_seq(Flags* f) {
    std::vector<const Regex::Node*> items;
    while (err_.empty() && !eof() && peek() != '|' && peek() != ')') {
      // Inline flags "(?i)" change the rest of the enclosing group.
      if (peek() == '(' && peek(1) == '?' && is_flag_group()) {
        if (!parse_inline_flags(f)) break;
        continue;
      }
      const Regex::Node* atom = parse_atom(f);
      if (!atom) break;
      atom = parse_quantifiers(atom);
      if (!atom) break;
      items.push_back(atom);
    }
    if (items.size() == 1) return items[0];
    auto* n = make(items.empty() ? Regex::Node::kEmpty : Regex::Node::kSeq);
    n->kids = std::move(items);
    return n;
  }

  // "(?imx-imx)" with no ':' (a flag group that applies to what follows).
  bool is_flag_group() const {
    size_t k = i_ + 2;
    while (k < p_.size() && (p_[k] == 'i' || p_[k] == 'm' || p_[k] == 'x' || p_[k] == '-')) ++k;
    return k > i_ + 2 && k < p_.size() && p_[k] == ')';
  }
  bool parse_inline_flags(Flags* f) {
    i_ += 2;
    bool on = true;
    while (!eof() && peek() != ')') {
      char32_t c = p_[i_++];
      if (c == '-') on = false;
      else if (c == 'i') f->icase = on;
      else if (c == 'm') f->dotall = on;
      else return fail("flag (?x) is not supported");
    }
    ++i_;  // ')'
    return true;
  }

  bool parse_number(int* v) {
    if (eof() || peek() < '0' || peek() > '9') return false;
    long x = 0;
    while (!eof() && peek() >= '0' && peek() <= '9') {
      x = x * 10 + (p_[i_++] - '0');
      if (x > 100000) return fail("repeat count is too large");
    }
    *v = static_cast<int>(x);
    return true;
  }

  const Regex::Node* parse_quantifiers(const Regex::Node* atom) {
    for (;;) {
      if (eof()) return atom;
      char32_t c = peek();
      int mn, mx;
      bool brace = false;
      if (c == '*') mn = 0, mx = -1, ++i_;
      else if (c == '+') mn = 1, mx = -1, ++i_;
      else if (c == '?') mn = 0, mx = 1, ++i_;
      else if (c == '{') {
        // Ruby syntax: {n} {n,} {,m} {n,m}; anything else is a literal '{'.
        size_t save = i_;
        ++i_;
        int a = -1, b = -1;
        bool has_a = parse_number(&a);
        if (!err_.empty()) return nullptr;
        bool comma = false;
        if (!eof() && peek() == ',') {
          comma = true;
          ++i_;
          parse_number(&b);
          if (!err_.empty()) return nullptr;
        }
        if (eof() || peek() != '}' || (!has_a && b < 0)) {
          i_ = save;
          return atom;
        }
        ++i_;
        mn = has_a ? a : 0;
        mx = comma ? b : a;
        if (mx >= 0 && mx < mn) return fail("bad repeat range {n,m} with m < n"), nullptr;
        brace = true;
      } else {
        return atom;
      }
      auto* r = make(Regex::Node::kRepeat);
      r->kids.push_back(atom);
      r->min = mn;
      r->max = mx;
      if (!eof() && peek() == '?') {
        r->mode = Regex::Node::kLazy;
        ++i_;
      } else if (!brace && !eof() && peek() == '+') {
        r->mode = Regex::Node::kPossessive;
        ++i_;
      }
      atom = r;
    }
  }

  const Regex::Node* parse_group(Flags* f) {
    ++i_;  // '('
    Flags inner = *f;
    Regex::Node* wrap = nullptr;
    if (peek() == '?') {
      char32_t c = peek(1);
      if (c == ':') {
        i_ += 2;
      } else if (c == '=' || c == '!') {
        i_ += 2;
        wrap = make(Regex::Node::kLook);
        wrap->negate = c == '!';
      } else if (c == '<' && (peek(2) == '=' || peek(2) == '!')) {
        wrap = make(Regex::Node::kLook);
        wrap->negate = peek(2) == '!';
        wrap->behind = true;
        i_ += 3;
      } else if (c == '>') {
        i_ += 2;
        wrap = make(Regex::Node::kAtomic);
      } else if (c == '<' || c == '\'') {
        char32_t close = c == '<' ? '>' : '\'';
        i_ += 2;
        while (!eof() && peek() != close) ++i_;
        if (eof()) return fail("unterminated group name"), nullptr;
        ++i_;
      } else if (c == '#') {
        while (!eof() && peek() != ')') ++i_;
        if (eof()) return fail("unterminated comment group"), nullptr;
        ++i_;
        return make(Regex::Node::kEmpty);
      } else if (c == 'i' || c == 'm' || c == 'x' || c == '-') {
        i_ += 1;
        bool on = true;
        while (!eof() && peek() != ':' && peek() != ')') {
          char32_t g = p_[i_++];
          if (g == '-') on = false;
          else if (g == 'i') inner.icase = on;
          else if (g == 'm') inner.dotall = on;
          else if (g == 'x') return fail("flag (?x) is not supported"), nullptr;
          else return fail("unknown group flag"), nullptr;
        }
        if (eof()) return fail("unterminated group"), nullptr;
        ++i_;  // ':'
      } else {
        return fail("unsupported group syntax (?" + std::string(1, static_cast<char>(c < 128 ? c : '?')) + "...)"),
               nullptr;
      }
    }
    const Regex::Node* body = parse_alt(&inner);
    if (!err_.empty()) return nullptr;
    if (eof() || peek() != ')') return fail("missing ')'"), nullptr;
    ++i_;
    if (!wrap) return body;
    wrap->kids.push_back(body);
    if (wrap->kind == Regex::Node::kLook && wrap->behind) {
      std::vector<const Regex::Node*> alts;
      if (body->kind == Regex::Node::kAlt) alts = body->kids;
      else alts.push_back(body);
      for (const auto* a : alts) {
        std::optional<int> len = fixed_length(a);
        if (!len) return fail("lookbehind must have a fixed length"), nullptr;
        wrap->behind_alts.emplace_back(*len, a);
      }
    }
    return wrap;
  }

  static std::optional<int> fixed_length(const Regex::Node* n) {
    switch (n->kind) {
      case Regex::Node::kEmpty: case Regex::Node::kAssert: case Regex::Node::kLook: return 0;
      case Regex::Node::kChar: case Regex::Node::kSet: case Regex::Node::kAny: return 1;
      case Regex::Node::kSeq: case Regex::Node::kAtomic: {
        int t = 0;
        for (const auto* k : n->kids) {
          auto l = fixed_length(k);
          if (!l) return std::nullopt;
          t += *l;
        }
        return t;
      }
      case Regex::Node::kAlt: {
        std::optional<int> first;
        for (const auto* k : n->kids) {
          auto l = fixed_length(k);
          if (!l || (first && *first != *l)) return std::nullopt;
          first = l;
        }
        return first;
      }
      case Regex::Node::kRepeat: {
        if (n->max != n->min) return std::nullopt;
        auto l = fixed_length(n->kids[0]);
        if (!l) return std::nullopt;
        return *l * n->min;
      }
    }
    return std::nullopt;
  }

  const Regex::Node* parse_atom(Flags* f) {
    char32_t c = peek();
    switch (c) {
      case '(': return parse_group(f);
      case '[': {
        auto* n = make(Regex::Node::kSet);
        ++i_;
        if (!parse_class(&n->set, f)) return nullptr;
        n->set.icase = f->icase;
        n->set.finalize();
        return n;
      }
      case '.': {
        ++i_;
        auto* n = make(Regex::Node::kAny);
        n->dotall = f->dotall;
        return n;
      }
      case '^': ++i_; return make_assert(AssertKind::kBol);
      case '$': ++i_; return make_assert(AssertKind::kEol);
      case '*': case '+': case '?': return fail("quantifier with nothing to repeat"), nullptr;
      case '\\': return parse_escape(f);
      default: {
        ++i_;
        auto* n = make(Regex::Node::kChar);
        n->ch = c;
        n->icase = f->icase;
        return n;
      }
    }
  }

  const Regex::Node* make_assert(AssertKind k) {
    auto* n = make(Regex::Node::kAssert);
    n->assert_kind = k;
    return n;
  }

  // Class-like escape (\d \s \w \h and negations, \p{..}); returns false when `c`
  // is not one. On success appends one item to `cls`.
  bool class_escape(char32_t c, CharClass* cls, bool* ok, bool in_class) {
    *ok = true;
    ClassItem it;
    switch (c) {
      case 'd': it.kind = ClassItem::kFlag, it.flag = kFlagOnigDigit; break;
      case 'D': it.kind = ClassItem::kNotFlag, it.flag = kFlagOnigDigit; break;
      case 'w':
        if (in_class) it.kind = ClassItem::kClassWord;
        else it.kind = ClassItem::kFlag, it.flag = kFlagOnigWord;
        break;
      case 'W':
        if (in_class) it.kind = ClassItem::kNotClassWord;
        else it.kind = ClassItem::kNotFlag, it.flag = kFlagOnigWord;
        break;
      case 's': it.kind = ClassItem::kFlag, it.flag = kFlagOnigSpace; break;
      case 'S': it.kind = ClassItem::kNotFlag, it.flag = kFlagOnigSpace; break;
      case 'h': case 'H': {
        CharClass hex;
        hex.items.push_back({ClassItem::kRange, '0', '9'});
        hex.items.push_back({ClassItem::kRange, 'a', 'f'});
        hex.items.push_back({ClassItem::kRange, 'A', 'F'});
        hex.negate = c == 'H';
        hex.finalize();
        it.kind = ClassItem::kSub;
        it.sub = static_cast<int>(cls->subs.size());
        cls->subs.push_back(std::move(hex));
        break;
      }
      case 'p': case 'P': {
        bool neg = c == 'P';
        if (eof() || peek() != '{') return *ok = fail("\\p must be followed by {name}");
        ++i_;
        if (!eof() && peek() == '^') neg = !neg, ++i_;
        std::string name;
        while (!eof() && peek() != '}') {
          char32_t ch = p_[i_++];
          if (ch == ' ' || ch == '_' || ch == '-') continue;
          name.push_back(static_cast<char>(ch < 128 ? ch : '?'));
        }
        if (eof()) return *ok = fail("unterminated \\p{...}");
        ++i_;
        CharClass prop;
        if (!property(name, &prop)) return *ok = fail("regex property \\p{" + name + "} is not supported");
        prop.negate = neg;
        prop.finalize();
        it.kind = ClassItem::kSub;
        it.sub = static_cast<int>(cls->subs.size());
        cls->subs.push_back(std::move(prop));
        break;
      }
      default: return false;
    }
    cls->items.push_back(it);
    return true;
  }

  static bool property(const std::string& raw, CharClass* out) {
    std::string n;
    for (char ch : raw) n.push_back(static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch));
    struct G { const char* a; const char* b; uint32_t mask; };
    auto bit = [](Gc g) { return uint32_t{1} << g; };
    const uint32_t L = bit(kLu) | bit(kLl) | bit(kLt) | bit(kLm) | bit(kLo);
    const uint32_t M = bit(kMn) | bit(kMc) | bit(kMe);
    const uint32_t N = bit(kNd) | bit(kNl) | bit(kNo);
    const uint32_t P = bit(kPc) | bit(kPd) | bit(kPs) | bit(kPe) | bit(kPi) | bit(kPf) | bit(kPo);
    const uint32_t S = bit(kSm) | bit(kSc) | bit(kSk) | bit(kSo);
    const uint32_t Z = bit(kZs) | bit(kZl) | bit(kZp);
    const uint32_t C = bit(kCc) | bit(kCf) | bit(kCs) | bit(kCo) | bit(kCn);
    const G table[] = {
        {"l", "letter", L}, {"lu", "uppercaseletter", bit(kLu)}, {"ll", "lowercaseletter", bit(kLl)},
        {"lt", "titlecaseletter", bit(kLt)}, {"lm", "modifierletter", bit(kLm)}, {"lo", "otherletter", bit(kLo)},
        {"lc", "casedletter", bit(kLu) | bit(kLl) | bit(kLt)}, {"l&", "l&", bit(kLu) | bit(kLl) | bit(kLt)},
        {"m", "mark", M}, {"combiningmark", "combiningmark", M}, {"mn", "nonspacingmark", bit(kMn)},
        {"mc", "spacingmark", bit(kMc)}, {"me", "enclosingmark", bit(kMe)},
        {"n", "number", N}, {"nd", "decimalnumber", bit(kNd)}, {"nl", "letternumber", bit(kNl)},
        {"no", "othernumber", bit(kNo)},
        {"p", "punctuation", P}, {"pc", "connectorpunctuation", bit(kPc)}, {"pd", "dashpunctuation", bit(kPd)},
        {"ps", "openpunctuation", bit(kPs)}, {"pe", "closepunctuation", bit(kPe)},
        {"pi", "initialpunctuation", bit(kPi)}, {"pf", "finalpunctuation", bit(kPf)},
        {"po", "otherpunctuation", bit(kPo)},
        {"s", "symbol", S}, {"sm", "mathsymbol", bit(kSm)}, {"sc", "currencysymbol", bit(kSc)},
        {"sk", "modifiersymbol", bit(kSk)}, {"so", "othersymbol", bit(kSo)},
        {"z", "separator", Z}, {"zs", "spaceseparator", bit(kZs)}, {"zl", "lineseparator", bit(kZl)},
        {"zp", "paragraphseparator", bit(kZp)},
        {"c", "other", C}, {"cc", "control", bit(kCc)}, {"cf", "format", bit(kCf)}, {"cs", "surrogate", bit(kCs)},
        {"co", "privateuse", bit(kCo)}, {"cn", "unassigned", bit(kCn)},
        {"assigned", "assigned", ~bit(kCn) & ((uint32_t{1} << kGcCount) - 1)},
    };
    for (const auto& g : table) {
      if (n == g.a || n == g.b) {
        out->items.push_back({ClassItem::kGcMask, 0, 0, g.mask});
        return true;
      }
    }
    if (n == "any") {
      out->items.push_back({ClassItem::kRange, 0, 0x10FFFF});
      return true;
    }
    if (n == "ascii") {
      out->items.push_back({ClassItem::kRange, 0, 0x7F});
      return true;
    }
    if (n == "word" || n == "space" || n == "digit") {
      ClassItem it;
      it.kind = ClassItem::kFlag;
      it.flag = n == "word" ? kFlagOnigWord : n == "space" ? kFlagOnigSpace : kFlagOnigDigit;
      out->items.push_back(it);
      return true;
    }
    return false;
  }

  bool parse_hex(int max_digits, char32_t* v) {
    uint32_t x = 0;
    int k = 0;
    while (k < max_digits && !eof()) {
      char32_t c = peek();
      int d = c >= '0' && c <= '9' ? int(c - '0') : c >= 'a' && c <= 'f' ? int(c - 'a' + 10)
              : c >= 'A' && c <= 'F' ? int(c - 'A' + 10) : -1;
      if (d < 0) break;
      x = x * 16 + static_cast<uint32_t>(d);
      ++i_, ++k;
    }
    if (k == 0 || x > 0x10FFFF) return false;
    *v = x;
    return true;
  }

  // A literal escape (\n \x41 \u00e9 \. ...). i_ is after the backslash.
  bool literal_escape(char32_t c, bool in_class, char32_t* out) {
    switch (c) {
      case 'n': *out = '\n'; return true;
      case 't': *out = '\t'; return true;
      case 'r': *out = '\r'; return true;
      case 'f': *out = 0x0C; return true;
      case 'v': *out = 0x0B; return true;
      case 'a': *out = 0x07; return true;
      case 'e': *out = 0x1B; return true;
      case 'b': if (in_class) { *out = 0x08; return true; } break;
      case '0': {
        uint32_t x = 0;
        for (int k = 0; k < 2 && !eof() && peek() >= '0' && peek() <= '7'; ++k) x = x * 8 + (p_[i_++] - '0');
        *out = x;
        return true;
      }
      case 'x': {
        if (!eof() && peek() == '{') {
          ++i_;
          if (!parse_hex(8, out) || eof() || peek() != '}') return fail("bad \\x{...} escape");
          ++i_;
          return true;
        }
        if (!parse_hex(2, out)) return fail("bad \\x escape");
        return true;
      }
      case 'u': {
        if (!parse_hex(4, out)) return fail("bad \\u escape");
        return true;
      }
      default: break;
    }
    if ((c >= '1' && c <= '9') || c == 'k' || c == 'g') return fail("backreferences are not supported");
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
      return fail(std::string("escape \\") + static_cast<char>(c) + " is not supported");
    *out = c;
    return true;
  }

  const Regex::Node* parse_escape(Flags* f) {
    ++i_;
    if (eof()) return fail("pattern ends with a backslash"), nullptr;
    char32_t c = p_[i_++];
    switch (c) {
      case 'A': return make_assert(AssertKind::kBos);
      case 'z': return make_assert(AssertKind::kEos);
      case 'Z': return make_assert(AssertKind::kEosNl);
      case 'b': return make_assert(AssertKind::kWordB);
      case 'B': return make_assert(AssertKind::kNotWordB);
      default: break;
    }
    auto* n = make(Regex::Node::kSet);
    bool ok;
    if (class_escape(c, &n->set, &ok, false)) {
      if (!ok) return nullptr;
      n->set.icase = f->icase;
      n->set.finalize();
      return n;
    }
    if (!err_.empty()) return nullptr;
    char32_t lit;
    if (!literal_escape(c, false, &lit)) return nullptr;
    n->kind = Regex::Node::kChar;
    n->ch = lit;
    n->icase = f->icase;
    return n;
  }

  // After '['. Parses up to and including the closing ']'.
  bool parse_class(CharClass* cls, Flags* f) {
    if (!eof() && peek() == '^') cls->negate = true, ++i_;
    bool first = true;
    for (;;) {
      if (eof()) return fail("missing ']'");
      char32_t c = peek();
      if (c == ']' && !first) {
        ++i_;
        return true;
      }
      first = false;
      if (c == '[') {
        if (peek(1) == ':') return fail("POSIX bracket classes [:name:] are not supported");
        ++i_;
        CharClass sub;
        if (!parse_class(&sub, f)) return false;
        sub.icase = f->icase;
        sub.finalize();
        ClassItem it;
        it.kind = ClassItem::kSub;
        it.sub = static_cast<int>(cls->subs.size());
        cls->subs.push_back(std::move(sub));
        cls->items.push_back(it);
        continue;
      }
      if (c == '&' && peek(1) == '&') {
        i_ += 2;
        // The rest of this class intersects with what came before.
        CharClass rest;
        // Parse the remainder as a fresh class body ending at our ']'.
        if (!parse_class_rest(&rest, f)) return false;
        CharClass left;
        left.items = std::move(cls->items);
        left.subs = std::move(cls->subs);
        left.intersections = std::move(cls->intersections);
        left.icase = f->icase;
        left.finalize();
        cls->items.clear();
        cls->subs.clear();
        cls->intersections.clear();
        ClassItem it;
        it.kind = ClassItem::kSub;
        it.sub = 0;
        cls->subs.push_back(std::move(left));
        cls->items.push_back(it);
        rest.icase = f->icase;
        rest.finalize();
        cls->intersections.push_back(std::move(rest));
        return true;  // parse_class_rest consumed the ']'
      }
      char32_t lo;
      if (c == '\\') {
        ++i_;
        if (eof()) return fail("missing ']'");
        char32_t e = p_[i_++];
        bool ok;
        if (class_escape(e, cls, &ok, true)) {
          if (!ok) return false;
          continue;
        }
        if (!err_.empty()) return false;
        if (!literal_escape(e, true, &lo)) return false;
      } else {
        lo = c;
        ++i_;
      }
      char32_t hi = lo;
      if (!eof() && peek() == '-' && peek(1) != ']' && peek(1) != 0) {
        size_t save = i_;
        ++i_;
        char32_t d = peek();
        if (d == '[') {
          i_ = save;  // "a-[" : '-' is literal
        } else {
          if (d == '\\') {
            ++i_;
            if (eof()) return fail("missing ']'");
            char32_t e = p_[i_++];
            if (e == 'd' || e == 'D' || e == 'w' || e == 'W' || e == 's' || e == 'S' || e == 'p' || e == 'P' ||
                e == 'h' || e == 'H')
              return fail("bad character range in class");
            if (!literal_escape(e, true, &hi)) return false;
          } else {
            hi = d;
            ++i_;
          }
          if (hi < lo) return fail("bad character range in class (end before start)");
        }
      }
      cls->items.push_back({ClassItem::kRange, lo, hi});
    }
  }

  bool parse_class_rest(CharClass* cls, Flags* f) {
    // Same as parse_class without the leading '^' handling being special: a '^'
    // here negates this operand, as in Oniguruma.
    return parse_class(cls, f);
  }

  std::u32string_view p_;
  size_t i_ = 0;
  std::vector<std::unique_ptr<Regex::Node>>* nodes_;
  std::string err_;
};

// ------------------------------------------------------------------ matcher

struct Cont {
  virtual bool operator()(size_t pos) const = 0;

 protected:
  ~Cont() = default;
};

class Matcher {
 public:
  explicit Matcher(std::u32string_view t) : t_(t) {}

  bool m(const Regex::Node* n, size_t pos, const Cont& k) {
    if (++depth_ > kMaxDepth) {
      --depth_;
      overflow_ = true;
      return false;
    }
    bool r = m_inner(n, pos, k);
    --depth_;
    return r;
  }
  bool overflow() const { return overflow_; }

 private:
  static constexpr int kMaxDepth = 4000;
  using Node = Regex::Node;

  struct SeqCont final : Cont {
    Matcher* M;
    const Node* n;
    size_t i;
    const Cont& k;
    SeqCont(Matcher* m, const Node* node, size_t idx, const Cont& kk) : M(m), n(node), i(idx), k(kk) {}
    bool operator()(size_t pos) const override { return M->seq(n, i, pos, k); }
  };
  struct LoopCont final : Cont {
    Matcher* M;
    const Node* n;
    int count;
    size_t start;
    const Cont& k;
    LoopCont(Matcher* m, const Node* node, int c, size_t s, const Cont& kk) : M(m), n(node), count(c), start(s), k(kk) {}
    bool operator()(size_t pos) const override {
      if (pos == start && count > n->min) return false;  // an empty iteration ends the loop
      return M->rep(n, count, pos, k);
    }
  };
  struct EndCont final : Cont {
    size_t* end;
    explicit EndCont(size_t* e) : end(e) {}
    bool operator()(size_t pos) const override {
      *end = pos;
      return true;
    }
  };
  struct AtCont final : Cont {
    size_t want;
    explicit AtCont(size_t w) : want(w) {}
    bool operator()(size_t pos) const override { return pos == want; }
  };

  bool is_word(size_t i) const { return i < t_.size() && has_flag(t_[i], kFlagOnigWord); }

  bool seq(const Node* n, size_t i, size_t pos, const Cont& k) {
    // Consume a run of single-character nodes without recursion.
    while (i < n->kids.size() && n->kids[i]->single()) {
      if (pos >= t_.size() || !n->kids[i]->match1(t_[pos])) return false;
      ++pos, ++i;
    }
    if (i == n->kids.size()) return k(pos);
    SeqCont c(this, n, i + 1, k);
    return m(n->kids[i], pos, c);
  }

  bool rep(const Node* n, int count, size_t pos, const Cont& k) {
    bool can_more = n->max < 0 || count < n->max;
    if (n->mode == Node::kLazy) {
      if (count >= n->min && k(pos)) return true;
      if (!can_more) return false;
      LoopCont lc(this, n, count + 1, pos, k);
      return m(n->kids[0], pos, lc);
    }
    if (can_more) {
      LoopCont lc(this, n, count + 1, pos, k);
      if (m(n->kids[0], pos, lc)) return true;
    }
    return count >= n->min && k(pos);
  }

  bool m_inner(const Node* n, size_t pos, const Cont& k) {
    switch (n->kind) {
      case Node::kEmpty: return k(pos);
      case Node::kChar: case Node::kSet: case Node::kAny:
        return pos < t_.size() && n->match1(t_[pos]) && k(pos + 1);
      case Node::kSeq: return seq(n, 0, pos, k);
      case Node::kAlt:
        for (const Node* a : n->kids)
          if (m(a, pos, k)) return true;
        return false;
      case Node::kRepeat: {
        const Node* c = n->kids[0];
        if (c->single()) {
          size_t limit = n->max < 0 ? t_.size() - pos : std::min<size_t>(static_cast<size_t>(n->max), t_.size() - pos);
          size_t cnt = 0;
          while (cnt < limit && c->match1(t_[pos + cnt])) ++cnt;
          size_t mn = static_cast<size_t>(n->min);
          if (cnt < mn) return false;
          switch (n->mode) {
            case Node::kGreedy:
              for (size_t j = cnt + 1; j-- > mn;)
                if (k(pos + j)) return true;
              return false;
            case Node::kLazy:
              for (size_t j = mn; j <= cnt; ++j)
                if (k(pos + j)) return true;
              return false;
            case Node::kPossessive: return k(pos + cnt);
          }
          return false;
        }
        if (n->mode == Node::kPossessive) {
          // Greedy loop, first success only, then no backtracking into it.
          Node greedy = *n;
          greedy.mode = Node::kGreedy;
          size_t end = pos;
          EndCont e(&end);
          if (!rep(&greedy, 0, pos, e)) return false;
          return k(end);
        }
        return rep(n, 0, pos, k);
      }
      case Node::kAtomic: {
        size_t end = pos;
        EndCont e(&end);
        if (!m(n->kids[0], pos, e)) return false;
        return k(end);
      }
      case Node::kLook: {
        bool found = false;
        if (!n->behind) {
          size_t end;
          EndCont e(&end);
          found = m(n->kids[0], pos, e);
        } else {
          for (const auto& [len, alt] : n->behind_alts) {
            if (pos < static_cast<size_t>(len)) continue;
            AtCont at(pos);
            if (m(alt, pos - static_cast<size_t>(len), at)) {
              found = true;
              break;
            }
          }
        }
        if (found == n->negate) return false;
        return k(pos);
      }
      case Node::kAssert: {
        bool ok = false;
        size_t n_ = t_.size();
        switch (n->assert_kind) {
          case AssertKind::kBol: ok = pos == 0 || t_[pos - 1] == '\n'; break;
          case AssertKind::kEol: ok = pos == n_ || t_[pos] == '\n'; break;
          case AssertKind::kBos: ok = pos == 0; break;
          case AssertKind::kEos: ok = pos == n_; break;
          case AssertKind::kEosNl: ok = pos == n_ || (pos + 1 == n_ && t_[pos] == '\n'); break;
          case AssertKind::kWordB: ok = (pos > 0 && is_word(pos - 1)) != is_word(pos); break;
          case AssertKind::kNotWordB: ok = (pos > 0 && is_word(pos - 1)) == is_word(pos); break;
        }
        return ok && k(pos);
      }
    }
    return false;
  }

  std::u32string_view t_;
  int depth_ = 0;
  bool overflow_ = false;
};

}  // namespace

Regex::Regex() = default;
Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

bool Regex::compile(std::string_view pattern, Regex* out, std::string* error) {
  std::u32string p;
  if (!utf8_decode(pattern, &p, nullptr)) {
    *error = "pattern is not valid UTF-8";
    return false;
  }
  Regex r;
  Parser parser(p, &r.nodes_);
  r.root_ = parser.parse(error);
  if (!r.root_) return false;
  *out = std::move(r);
  return true;
}

Regex Regex::literal(std::u32string_view lit) {
  Regex r;
  std::vector<const Node*> kids;
  for (char32_t c : lit) {
    r.nodes_.push_back(std::make_unique<Node>());
    r.nodes_.back()->kind = Node::kChar;
    r.nodes_.back()->ch = c;
    kids.push_back(r.nodes_.back().get());
  }
  r.nodes_.push_back(std::make_unique<Node>());
  Node* root = r.nodes_.back().get();
  root->kind = kids.empty() ? Node::kEmpty : Node::kSeq;
  root->kids = std::move(kids);
  r.root_ = root;
  return r;
}

bool Regex::search(std::u32string_view text, size_t start, size_t* match_start, size_t* match_end) const {
  if (!root_) return false;
  // A pattern that starts with one literal character (after compilation) can skip ahead.
  const Node* first = root_;
  while (first->kind == Node::kSeq && !first->kids.empty()) first = first->kids[0];
  bool skip = first->kind == Node::kChar && !first->icase;
  for (size_t s = start; s <= text.size(); ++s) {
    if (skip) {
      while (s < text.size() && text[s] != first->ch) ++s;
      if (s >= text.size()) return false;
    }
    Matcher mt(text);
    size_t end = s;
    struct End final : Cont {
      size_t* e;
      explicit End(size_t* p) : e(p) {}
      bool operator()(size_t pos) const override {
        *e = pos;
        return true;
      }
    } k(&end);
    if (mt.m(root_, s, k)) {
      *match_start = s;
      *match_end = end;
      return true;
    }
  }
  return false;
}

void Regex::find_all(std::u32string_view text, std::vector<std::pair<size_t, size_t>>* matches) const {
  matches->clear();
  size_t last_end = 0;
  bool have_last = false;
  size_t last_match_end = 0;
  while (last_end <= text.size()) {
    size_t s, e;
    if (!search(text, last_end, &s, &e)) break;
    if (s == e && have_last && last_match_end == e) {
      ++last_end;
      continue;
    }
    last_end = e;
    have_last = true;
    last_match_end = e;
    matches->emplace_back(s, e);
  }
}

}  // namespace pte::tok
