// pte-run tokenizers: normalizers (NFC/NFD/NFKC/NFKD, Lowercase, Strip, StripAccents,
// Replace, Prepend, BertNormalizer, Nmt, ByteLevel, Sequence).
#include "tokenizer/components.h"
#include "tokenizer/unicode.h"

namespace pte::tok {

namespace {

// Rebuilds p from a per-character transformation: fn(c, emit) calls emit(c2) for
// every output character; outputs take the alignment of their source character.
template <class Fn>
void map_chars(Piece* p, Fn fn) {
  std::u32string t;
  std::vector<uint32_t> a;
  t.reserve(p->text.size());
  a.reserve(p->text.size());
  for (size_t i = 0; i < p->text.size(); ++i) {
    uint32_t al = p->align[i];
    fn(p->text[i], [&](char32_t c) {
      t.push_back(c);
      a.push_back(al);
    });
  }
  p->text = std::move(t);
  p->align = std::move(a);
}

void lowercase(Piece* p) {
  map_chars(p, [](char32_t c, auto emit) {
    std::u32string l;
    append_lowercase(c, &l);
    for (char32_t x : l) emit(x);
  });
}

void unicode_normalize(Piece* p, NormForm f) {
  std::u32string t;
  std::vector<uint32_t> a;
  normalize(f, p->text, &p->align, &t, &a);
  p->text = std::move(t);
  p->align = std::move(a);
}

class UnicodeNorm final : public Normalizer {
 public:
  explicit UnicodeNorm(NormForm f) : f_(f) {}
  void normalize(Piece* p) const override { unicode_normalize(p, f_); }

 private:
  NormForm f_;
};

class Lowercase final : public Normalizer {
 public:
  void normalize(Piece* p) const override { lowercase(p); }
};

class Strip final : public Normalizer {
 public:
  Strip(bool l, bool r) : left_(l), right_(r) {}
  void normalize(Piece* p) const override {
    size_t a = 0, b = p->text.size();
    if (left_)
      while (a < b && is_white_space(p->text[a])) ++a;
    if (right_)
      while (b > a && is_white_space(p->text[b - 1])) --b;
    p->text = p->text.substr(a, b - a);
    p->align.assign(p->align.begin() + static_cast<long>(a), p->align.begin() + static_cast<long>(b));
  }

 private:
  bool left_, right_;
};

class StripAccents final : public Normalizer {
 public:
  void normalize(Piece* p) const override {
    map_chars(p, [](char32_t c, auto emit) {
      if (!has_flag(c, kFlagCombining)) emit(c);
    });
  }
};

class Nmt final : public Normalizer {
 public:
  void normalize(Piece* p) const override {
    map_chars(p, [](char32_t c, auto emit) {
      if ((c >= 0x1 && c <= 0x8) || c == 0xB || (c >= 0xE && c <= 0x1F) || c == 0x7F || c == 0x8F || c == 0x9F) return;
      switch (c) {
        case 0x9: case 0xA: case 0xC: case 0xD: case 0x1680: case 0x2028: case 0x2029: case 0x2581: case 0xFEFF:
        case 0xFFFD:
          emit(' ');
          return;
        default: break;
      }
      if (c >= 0x200B && c <= 0x200F) emit(' ');
      else emit(c);
    });
  }
};

bool is_chinese_char(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

class BertNormalizer final : public Normalizer {
 public:
  BertNormalizer(bool clean, bool chinese, bool strip, bool lower)
      : clean_(clean), chinese_(chinese), strip_(strip), lower_(lower) {}
  void normalize(Piece* p) const override {
    if (clean_) {
      map_chars(p, [](char32_t c, auto emit) {
        if (c == 0 || c == 0xFFFD || has_flag(c, kFlagBertControl)) return;
        emit(is_white_space(c) ? U' ' : c);
      });
    }
    if (chinese_) {
      map_chars(p, [](char32_t c, auto emit) {
        if (is_chinese_char(c)) {
          emit(' ');
          emit(c);
          emit(' ');
        } else {
          emit(c);
        }
      });
    }
    if (strip_) {
      unicode_normalize(p, NormForm::NFD);
      map_chars(p, [](char32_t c, auto emit) {
        if (!has_flag(c, kFlagBertMn)) emit(c);
      });
    }
    if (lower_) lowercase(p);
  }

 private:
  bool clean_, chinese_, strip_, lower_;
};

class Replace final : public Normalizer {
 public:
  Replace(Regex re, std::u32string content) : re_(std::move(re)), content_(std::move(content)) {}
  void normalize(Piece* p) const override {
    std::vector<Match> m;
    find_matches(re_, p->text, &m);
    std::u32string t;
    std::vector<uint32_t> a;
    for (const auto& x : m) {
      if (!x.is_match) {
        t.append(p->text, x.start, x.end - x.start);
        a.insert(a.end(), p->align.begin() + static_cast<long>(x.start), p->align.begin() + static_cast<long>(x.end));
        continue;
      }
      // Inserted characters share the alignment of the character before the end of
      // the match (the reference's transform with change = +1).
      uint32_t al = x.end > 0 ? p->align[x.end - 1] : p->shift;
      t.append(content_);
      a.insert(a.end(), content_.size(), al);
    }
    p->text = std::move(t);
    p->align = std::move(a);
  }

 private:
  Regex re_;
  std::u32string content_;
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::u32string s) : s_(std::move(s)) {}
  void normalize(Piece* p) const override {
    if (p->text.empty()) return;
    uint32_t al = p->align[0];
    p->text.insert(0, s_);
    p->align.insert(p->align.begin(), s_.size(), al);
  }

 private:
  std::u32string s_;
};

class ByteLevelNorm final : public Normalizer {
 public:
  void normalize(Piece* p) const override {
    map_chars(p, [](char32_t c, auto emit) {
      std::string b;
      append_utf8(c, &b);
      for (unsigned char x : b) emit(byte_to_char(x));
    });
  }
};

class Sequence final : public Normalizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Normalizer>> n) : n_(std::move(n)) {}
  void normalize(Piece* p) const override {
    for (const auto& n : n_) n->normalize(p);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> n_;
};

}  // namespace

Status make_normalizer(const json::Value& v, std::unique_ptr<Normalizer>* out) {
  out->reset();
  if (v.is_null()) return Status::ok();
  if (!v.is_object()) return Status::error("normalizer must be an object or null");
  const std::string* type = json_string(v, "type");
  if (!type) return Status::error("normalizer has no \"type\"");
  const std::string& t = *type;
  if (t == "NFC") *out = std::make_unique<UnicodeNorm>(NormForm::NFC);
  else if (t == "NFD") *out = std::make_unique<UnicodeNorm>(NormForm::NFD);
  else if (t == "NFKC") *out = std::make_unique<UnicodeNorm>(NormForm::NFKC);
  else if (t == "NFKD") *out = std::make_unique<UnicodeNorm>(NormForm::NFKD);
  else if (t == "Lowercase") *out = std::make_unique<Lowercase>();
  else if (t == "StripAccents") *out = std::make_unique<StripAccents>();
  else if (t == "Nmt") *out = std::make_unique<Nmt>();
  else if (t == "ByteLevel") *out = std::make_unique<ByteLevelNorm>();
  else if (t == "Strip") {
    bool l, r;
    PTE_TRY(json_bool(v, "strip_left", true, &l).context("normalizer Strip"));
    PTE_TRY(json_bool(v, "strip_right", true, &r).context("normalizer Strip"));
    *out = std::make_unique<Strip>(l, r);
  } else if (t == "BertNormalizer") {
    bool clean, chinese, lower;
    PTE_TRY(json_bool(v, "clean_text", true, &clean).context("normalizer BertNormalizer"));
    PTE_TRY(json_bool(v, "handle_chinese_chars", true, &chinese).context("normalizer BertNormalizer"));
    PTE_TRY(json_bool(v, "lowercase", true, &lower).context("normalizer BertNormalizer"));
    bool strip;
    PTE_TRY(json_bool(v, "strip_accents", lower, &strip).context("normalizer BertNormalizer"));
    *out = std::make_unique<BertNormalizer>(clean, chinese, strip, lower);
  } else if (t == "Replace") {
    const json::Value* pat = v.find("pattern", json::Type::Object);
    const std::string* content = json_string(v, "content");
    if (!pat || !content) return Status::error("normalizer Replace needs \"pattern\" and \"content\"");
    Regex re;
    PTE_TRY(compile_pattern(*pat, "normalizer Replace", &re));
    std::u32string c;
    if (!utf8_decode(*content, &c, nullptr)) return Status::error("normalizer Replace: content is not valid UTF-8");
    *out = std::make_unique<Replace>(std::move(re), std::move(c));
  } else if (t == "Prepend") {
    const std::string* s = json_string(v, "prepend");
    if (!s) return Status::error("normalizer Prepend needs \"prepend\"");
    std::u32string c;
    if (!utf8_decode(*s, &c, nullptr)) return Status::error("normalizer Prepend: not valid UTF-8");
    *out = std::make_unique<Prepend>(std::move(c));
  } else if (t == "Sequence") {
    const json::Value* list = v.find("normalizers", json::Type::Array);
    if (!list) return Status::error("normalizer Sequence needs \"normalizers\"");
    std::vector<std::unique_ptr<Normalizer>> items;
    for (const auto& item : list->items()) {
      std::unique_ptr<Normalizer> n;
      PTE_TRY(make_normalizer(item, &n));
      if (n) items.push_back(std::move(n));
    }
    *out = std::make_unique<Sequence>(std::move(items));
  } else if (t == "Precompiled") {
    const json::Value* map = v.find("precompiled_charsmap");
    if (map && (map->is_null() || (map->is_string() && map->as_string().empty()))) return Status::ok();  // identity
    return Status::error("normalizer type \"Precompiled\" (a SentencePiece charsmap) is not supported");
  } else {
    return Status::error("normalizer type " + json::quote(t) + " is not supported");
  }
  return Status::ok();
}

}  // namespace pte::tok
