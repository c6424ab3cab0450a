// pte-run tokenizers: pre-tokenizers (ByteLevel, Split, Metaspace, Digits,
// Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation, CharDelimiterSplit,
// FixedLength, Sequence).
#include "tokenizer/components.h"
#include "tokenizer/unicode.h"

namespace pte::tok {

namespace {

// Applies fn(piece, &out) to every piece that is not a token yet.
template <class Fn>
void split_each(Pieces* pieces, Fn fn) {
  Pieces out;
  out.reserve(pieces->size());
  for (auto& p : *pieces) {
    if (p.token >= 0) {
      out.push_back(std::move(p));
      continue;
    }
    fn(p, &out);
  }
  *pieces = std::move(out);
}

template <class Pred>
void split_pred(Pieces* pieces, Pred pred, SplitBehavior b) {
  std::vector<Match> m;
  split_each(pieces, [&](const Piece& p, Pieces* out) {
    find_matches_pred(pred, p.text, &m);
    split_piece(p, m, b, out);
  });
}

const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

const Regex& gpt2_regex() {
  static const Regex re = [] {
    Regex r;
    std::string err;
    Regex::compile(kGpt2Pattern, &r, &err);
    return r;
  }();
  return re;
}

class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool prefix, bool regex) : prefix_(prefix), regex_(regex) {}
  void pre_tokenize(Pieces* pieces) const override {
    std::vector<Match> m;
    split_each(pieces, [&](Piece& p, Pieces* out) {
      if (prefix_ && !p.text.empty() && p.text[0] != ' ') {
        p.text.insert(p.text.begin(), U' ');
        p.align.insert(p.align.begin(), p.align[0]);
      }
      size_t first = out->size();
      if (regex_) {
        find_matches(gpt2_regex(), p.text, &m);
        split_piece(p, m, SplitBehavior::kIsolated, out);
      } else if (!p.text.empty()) {
        out->push_back(std::move(p));
      }
      for (size_t k = first; k < out->size(); ++k) to_bytes(&(*out)[k]);
    });
  }

 private:
  static void to_bytes(Piece* p) {
    std::u32string t;
    std::vector<uint32_t> a;
    t.reserve(p->text.size() * 2);
    a.reserve(p->text.size() * 2);
    std::string b;
    for (size_t i = 0; i < p->text.size(); ++i) {
      b.clear();
      append_utf8(p->text[i], &b);
      for (unsigned char x : b) {
        t.push_back(byte_to_char(x));
        a.push_back(p->align[i]);
      }
    }
    p->text = std::move(t);
    p->align = std::move(a);
  }
  bool prefix_, regex_;
};

class Split final : public PreTokenizer {
 public:
  Split(Regex re, SplitBehavior b, bool invert) : re_(std::move(re)), b_(b), invert_(invert) {}
  void pre_tokenize(Pieces* pieces) const override {
    std::vector<Match> m;
    split_each(pieces, [&](const Piece& p, Pieces* out) {
      find_matches(re_, p.text, &m);
      if (invert_)
        for (auto& x : m) x.is_match = !x.is_match;
      split_piece(p, m, b_, out);
    });
  }

 private:
  Regex re_;
  SplitBehavior b_;
  bool invert_;
};

enum class Prepend { kFirst, kNever, kAlways };

class Metaspace final : public PreTokenizer {
 public:
  Metaspace(char32_t rep, Prepend scheme, bool split) : rep_(rep), scheme_(scheme), split_(split) {}
  void pre_tokenize(Pieces* pieces) const override {
    std::vector<Match> m;
    split_each(pieces, [&](Piece& p, Pieces* out) {
      for (auto& c : p.text)
        if (c == ' ') c = rep_;
      bool prepend = false;
      if (!p.text.empty() && p.text[0] != rep_) {
        if (scheme_ == Prepend::kAlways) prepend = true;
        else if (scheme_ == Prepend::kFirst) prepend = p.shift == 0;
      }
      if (prepend) {
        p.text.insert(p.text.begin(), rep_);
        p.align.insert(p.align.begin(), p.align[0]);
      }
      if (split_) {
        char32_t r = rep_;
        find_matches_pred([r](char32_t c) { return c == r; }, p.text, &m);
        split_piece(p, m, SplitBehavior::kMergedWithNext, out);
      } else if (!p.text.empty()) {
        out->push_back(std::move(p));
      }
    });
  }

 private:
  char32_t rep_;
  Prepend scheme_;
  bool split_;
};

class Digits final : public PreTokenizer {
 public:
  explicit Digits(bool individual) : individual_(individual) {}
  void pre_tokenize(Pieces* pieces) const override {
    split_pred(pieces, [](char32_t c) { return is_numeric(c); },
               individual_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous);
  }

 private:
  bool individual_;
};

// Rust regex `\w+|[^\w\s]+` with the matches kept and the rest removed.
class Whitespace final : public PreTokenizer {
 public:
  void pre_tokenize(Pieces* pieces) const override {
    std::vector<Match> m;
    split_each(pieces, [&](const Piece& p, Pieces* out) {
      m.clear();
      const auto& t = p.text;
      size_t prev = 0, i = 0;
      while (i < t.size()) {
        bool word = has_flag(t[i], kFlagRustWord);
        if (!word && is_white_space(t[i])) {
          ++i;
          continue;
        }
        size_t j = i + 1;
        while (j < t.size() && (word ? has_flag(t[j], kFlagRustWord)
                                     : !has_flag(t[j], kFlagRustWord) && !is_white_space(t[j])))
          ++j;
        if (prev < i) m.push_back({prev, i, true});  // inverted: gaps are the delimiters
        m.push_back({i, j, false});
        prev = i = j;
      }
      if (prev < t.size()) m.push_back({prev, t.size(), true});
      if (m.empty()) m.push_back({0, 0, true});
      split_piece(p, m, SplitBehavior::kRemoved, out);
    });
  }
};

class WhitespaceSplit final : public PreTokenizer {
 public:
  void pre_tokenize(Pieces* pieces) const override {
    split_pred(pieces, [](char32_t c) { return is_white_space(c); }, SplitBehavior::kRemoved);
  }
};

bool is_bert_punct(char32_t c) { return has_flag(c, kFlagBertPunct); }

class BertPreTokenizer final : public PreTokenizer {
 public:
  void pre_tokenize(Pieces* pieces) const override {
    split_pred(pieces, [](char32_t c) { return is_white_space(c); }, SplitBehavior::kRemoved);
    split_pred(pieces, is_bert_punct, SplitBehavior::kIsolated);
  }
};

class Punctuation final : public PreTokenizer {
 public:
  explicit Punctuation(SplitBehavior b) : b_(b) {}
  void pre_tokenize(Pieces* pieces) const override { split_pred(pieces, is_bert_punct, b_); }

 private:
  SplitBehavior b_;
};

class CharDelimiterSplit final : public PreTokenizer {
 public:
  explicit CharDelimiterSplit(char32_t d) : d_(d) {}
  void pre_tokenize(Pieces* pieces) const override {
    char32_t d = d_;
    split_pred(pieces, [d](char32_t c) { return c == d; }, SplitBehavior::kRemoved);
  }

 private:
  char32_t d_;
};

class FixedLength final : public PreTokenizer {
 public:
  explicit FixedLength(size_t n) : n_(n) {}
  void pre_tokenize(Pieces* pieces) const override {
    split_each(pieces, [&](const Piece& p, Pieces* out) {
      for (size_t a = 0; a < p.text.size(); a += n_) out->push_back(slice_piece(p, a, std::min(p.text.size(), a + n_)));
    });
  }

 private:
  size_t n_;
};

class Sequence final : public PreTokenizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<PreTokenizer>> p) : p_(std::move(p)) {}
  void pre_tokenize(Pieces* pieces) const override {
    for (const auto& p : p_) p->pre_tokenize(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> p_;
};

Status single_char(const json::Value& v, const char* key, const char* what, char32_t* out) {
  const std::string* s = json_string(v, key);
  std::u32string u;
  if (!s || !utf8_decode(*s, &u, nullptr) || u.size() != 1)
    return Status::error(std::string(what) + ": \"" + key + "\" must be a single character");
  *out = u[0];
  return Status::ok();
}

}  // namespace

Status make_pre_tokenizer(const json::Value& v, std::unique_ptr<PreTokenizer>* out) {
  out->reset();
  if (v.is_null()) return Status::ok();
  if (!v.is_object()) return Status::error("pre_tokenizer must be an object or null");
  const std::string* type = json_string(v, "type");
  if (!type) return Status::error("pre_tokenizer has no \"type\"");
  const std::string& t = *type;
  if (t == "ByteLevel") {
    bool prefix, regex;
    PTE_TRY(json_bool(v, "add_prefix_space", true, &prefix).context("pre_tokenizer ByteLevel"));
    PTE_TRY(json_bool(v, "use_regex", true, &regex).context("pre_tokenizer ByteLevel"));
    *out = std::make_unique<ByteLevel>(prefix, regex);
  } else if (t == "Split") {
    const json::Value* pat = v.find("pattern", json::Type::Object);
    const json::Value* beh = v.find("behavior", json::Type::String);
    if (!pat || !beh) return Status::error("pre_tokenizer Split needs \"pattern\" and \"behavior\"");
    Regex re;
    PTE_TRY(compile_pattern(*pat, "pre_tokenizer Split", &re));
    SplitBehavior b;
    PTE_TRY(parse_split_behavior(*beh, &b).context("pre_tokenizer Split"));
    bool invert;
    PTE_TRY(json_bool(v, "invert", false, &invert).context("pre_tokenizer Split"));
    *out = std::make_unique<Split>(std::move(re), b, invert);
  } else if (t == "Metaspace") {
    char32_t rep;
    PTE_TRY(single_char(v, "replacement", "pre_tokenizer Metaspace", &rep));
    Prepend scheme = Prepend::kAlways;
    if (const std::string* s = json_string(v, "prepend_scheme")) {
      if (*s == "first") scheme = Prepend::kFirst;
      else if (*s == "never") scheme = Prepend::kNever;
      else if (*s == "always") scheme = Prepend::kAlways;
      else return Status::error("pre_tokenizer Metaspace: prepend_scheme " + json::quote(*s) + " is not supported");
    }
    const json::Value* aps = v.find("add_prefix_space", json::Type::Bool);
    if (aps && !aps->as_bool()) {
      if (json_string(v, "prepend_scheme") && scheme != Prepend::kNever)
        return Status::error("pre_tokenizer Metaspace: add_prefix_space does not match declared prepend_scheme");
      scheme = Prepend::kNever;
    }
    bool split;
    PTE_TRY(json_bool(v, "split", true, &split).context("pre_tokenizer Metaspace"));
    *out = std::make_unique<Metaspace>(rep, scheme, split);
  } else if (t == "Digits") {
    bool ind;
    PTE_TRY(json_bool(v, "individual_digits", false, &ind).context("pre_tokenizer Digits"));
    *out = std::make_unique<Digits>(ind);
  } else if (t == "Whitespace") {
    *out = std::make_unique<Whitespace>();
  } else if (t == "WhitespaceSplit") {
    *out = std::make_unique<WhitespaceSplit>();
  } else if (t == "BertPreTokenizer") {
    *out = std::make_unique<BertPreTokenizer>();
  } else if (t == "Punctuation") {
    SplitBehavior b = SplitBehavior::kIsolated;
    if (const json::Value* beh = v.find("behavior", json::Type::String))
      PTE_TRY(parse_split_behavior(*beh, &b).context("pre_tokenizer Punctuation"));
    *out = std::make_unique<Punctuation>(b);
  } else if (t == "CharDelimiterSplit") {
    char32_t d;
    PTE_TRY(single_char(v, "delimiter", "pre_tokenizer CharDelimiterSplit", &d));
    *out = std::make_unique<CharDelimiterSplit>(d);
  } else if (t == "FixedLength") {
    const json::Value* n = v.find("length");
    int64_t len = n ? n->as_int() : 5;
    if (len <= 0) return Status::error("pre_tokenizer FixedLength: length must be positive");
    *out = std::make_unique<FixedLength>(static_cast<size_t>(len));
  } else if (t == "Sequence") {
    const json::Value* list = v.find("pretokenizers", json::Type::Array);
    if (!list) return Status::error("pre_tokenizer Sequence needs \"pretokenizers\"");
    std::vector<std::unique_ptr<PreTokenizer>> items;
    for (const auto& item : list->items()) {
      std::unique_ptr<PreTokenizer> p;
      PTE_TRY(make_pre_tokenizer(item, &p));
      if (p) items.push_back(std::move(p));
    }
    *out = std::make_unique<Sequence>(std::move(items));
  } else {
    return Status::error("pre_tokenizer type " + json::quote(t) + " is not supported");
  }
  return Status::ok();
}

}  // namespace pte::tok
