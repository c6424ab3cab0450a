// pte-run tokenizers: a small backtracking regex engine over Unicode code points.
//
// It implements what tokenizer split patterns use, with Oniguruma's (Ruby syntax)
// semantics, which is the engine the reference library runs them on:
//   alternation, groups (...) (?:...) (?<name>...), inline flags (?i) (?i:...) (?-i:...),
//   atomic groups (?>...), lookahead (?=...) (?!...), fixed-length lookbehind
//   (?<=...) (?<!...), classes [...] with ranges, negation, nesting and escapes,
//   \p{..} \P{..} \p{^..} for general categories (L, Lu, Ll, Lt, Lm, Lo, M, Mn, Mc, Me,
//   N, Nd, Nl, No, P*, S*, Z*, C*, their long names, L& / LC, Any, Assigned, ASCII),
//   \s \S \d \D \w \W \h \H, '.', anchors ^ $ \A \z \Z \b \B, quantifiers ? * + {n}
//   {n,} {n,m} {,m} greedy, lazy (??) and possessive (?+ *+ ++).
// Leftmost-first (Perl) match semantics. Unsupported syntax (backreferences,
// \G, scripts as \p{Han}, POSIX brackets, (?x)) is a compile error naming the
// construct. Case-insensitive matching uses simple (one-to-one) case folding:
// Oniguruma's multi-character folds (ß = ss, ﬁ = fi) are not applied; no real
// tokenizer pattern depends on them.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pte::tok {

class Regex {
 public:
  struct Node;
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  // Compiles `pattern` (UTF-8). On failure returns false and sets *error.
  static bool compile(std::string_view pattern, Regex* out, std::string* error);
  // A regex matching `literal` exactly (what the reference does with escape()).
  static Regex literal(std::u32string_view literal);

  // Leftmost match at or after `start`; the whole `text` is visible to anchors and
  // lookaround.
  bool search(std::u32string_view text, size_t start, size_t* match_start, size_t* match_end) const;
  // All matches as the reference iterates them: non-overlapping, left to right, an
  // empty match right where the previous match ended is skipped.
  void find_all(std::u32string_view text, std::vector<std::pair<size_t, size_t>>* matches) const;

  Regex();

 private:
  std::vector<std::unique_ptr<Node>> nodes_;  // owns every node
  const Node* root_ = nullptr;
};

}  // namespace pte::tok
