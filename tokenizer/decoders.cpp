// pte-run tokenizers: decoders (ByteLevel, Metaspace, ByteFallback, Fuse, Strip,
// Replace, WordPiece, BPEDecoder, CTC, Sequence) and post-processors
// (TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence).
#include <map>

#include "tokenizer/components.h"
#include "tokenizer/unicode.h"

namespace pte::tok {

namespace {

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  std::string out;
  size_t i = 0;
  for (;;) {
    size_t j = s.find(from, i);
    if (j == std::string::npos) break;
    out.append(s, i, j - i);
    out.append(to);
    i = j + from.size();
  }
  out.append(s, i, std::string::npos);
  return out;
}

class ByteLevelDec final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>* tokens) const override {
    std::string bytes;
    std::u32string cps;
    for (const auto& t : *tokens) {
      cps.clear();
      bool all = utf8_decode(t, &cps, nullptr);
      size_t mark = bytes.size();
      for (char32_t c : cps) {
        int b = char_to_byte(c);
        if (b < 0) {
          all = false;
          break;
        }
        bytes.push_back(static_cast<char>(b));
      }
      if (!all) {
        bytes.resize(mark);
        bytes.append(t);
      }
    }
    tokens->assign(1, utf8_lossy(bytes));
  }
};

class MetaspaceDec final : public Decoder {
 public:
  MetaspaceDec(char32_t rep, bool strip_first) : rep_(rep), strip_first_(strip_first) {}
  void decode_chain(std::vector<std::string>* tokens) const override {
    std::u32string cps;
    for (size_t i = 0; i < tokens->size(); ++i) {
      cps.clear();
      utf8_decode((*tokens)[i], &cps, nullptr);
      std::string out;
      for (char32_t c : cps) {
        if (c == rep_) {
          if (i == 0 && strip_first_) continue;
          out.push_back(' ');
        } else {
          append_utf8(c, &out);
        }
      }
      (*tokens)[i] = std::move(out);
    }
  }

 private:
  char32_t rep_;
  bool strip_first_;
};

class ByteFallbackDec final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>* tokens) const override {
    std::vector<std::string> out;
    std::string pending;
    auto flush = [&]() {
      if (pending.empty()) return;
      if (utf8_valid(pending)) out.push_back(pending);
      else
        for (size_t k = 0; k < pending.size(); ++k) out.push_back("\xEF\xBF\xBD");
      pending.clear();
    };
    for (auto& t : *tokens) {
      int byte = -1;
      if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>') byte = hex2(t[3], t[4]);
      if (byte >= 0) {
        pending.push_back(static_cast<char>(byte));
      } else {
        flush();
        out.push_back(std::move(t));
      }
    }
    flush();
    *tokens = std::move(out);
  }

 private:
  static int hex2(char a, char b) {
    auto h = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    };
    int x = h(a), y = h(b);
    return x < 0 || y < 0 ? -1 : x * 16 + y;
  }
};

class FuseDec final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>* tokens) const override {
    std::string all;
    for (const auto& t : *tokens) all += t;
    tokens->assign(1, std::move(all));
  }
};

class StripDec final : public Decoder {
 public:
  StripDec(char32_t c, size_t start, size_t stop) : c_(c), start_(start), stop_(stop) {}
  void decode_chain(std::vector<std::string>* tokens) const override {
    std::u32string cps;
    for (auto& t : *tokens) {
      cps.clear();
      utf8_decode(t, &cps, nullptr);
      size_t a = 0;
      for (size_t i = 0; i < start_ && i < cps.size(); ++i) {
        if (cps[i] != c_) break;
        a = i + 1;
      }
      size_t b = cps.size();
      for (size_t i = 0; i < stop_ && i < cps.size(); ++i) {
        size_t idx = cps.size() - i - 1;
        if (cps[idx] != c_) break;
        b = idx;
      }
      t = a < b ? to_utf8(std::u32string_view(cps).substr(a, b - a)) : std::string();
    }
  }

 private:
  char32_t c_;
  size_t start_, stop_;
};

class ReplaceDec final : public Decoder {
 public:
  ReplaceDec(Regex re, std::string content) : re_(std::move(re)), content_(std::move(content)) {}
  void decode_chain(std::vector<std::string>* tokens) const override {
    std::u32string cps;
    std::vector<Match> m;
    for (auto& t : *tokens) {
      cps.clear();
      utf8_decode(t, &cps, nullptr);
      find_matches(re_, cps, &m);
      std::string out;
      for (const auto& x : m) {
        if (x.is_match) out += content_;
        else out += to_utf8(std::u32string_view(cps).substr(x.start, x.end - x.start));
      }
      t = std::move(out);
    }
  }

 private:
  Regex re_;
  std::string content_;
};

std::string wordpiece_cleanup(std::string s) {
  static const std::pair<const char*, const char*> kRules[] = {
      {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [a, b] : kRules) s = replace_all(std::move(s), a, b);
  return s;
}

class WordPieceDec final : public Decoder {
 public:
  WordPieceDec(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  void decode_chain(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      std::string& t = (*tokens)[i];
      if (i != 0) {
        if (t.compare(0, prefix_.size(), prefix_) == 0) t = t.substr(prefix_.size());
        else t = " " + t;
      }
      if (cleanup_) t = wordpiece_cleanup(std::move(t));
    }
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

class BpeDec final : public Decoder {
 public:
  explicit BpeDec(std::string suffix) : suffix_(std::move(suffix)) {}
  void decode_chain(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i)
      (*tokens)[i] = replace_all(std::move((*tokens)[i]), suffix_, i + 1 == tokens->size() ? "" : " ");
  }

 private:
  std::string suffix_;
};

class CtcDec final : public Decoder {
 public:
  CtcDec(std::string pad, std::string delim, bool cleanup) : pad_(std::move(pad)), delim_(std::move(delim)), cleanup_(cleanup) {}
  void decode_chain(std::vector<std::string>* tokens) const override {
    std::vector<std::string> out;
    for (size_t i = 0; i < tokens->size(); ++i) {
      if (i > 0 && (*tokens)[i] == (*tokens)[i - 1]) continue;  // dedup consecutive
      std::string r = replace_all((*tokens)[i], pad_, "");
      if (cleanup_) r = replace_all(wordpiece_cleanup(std::move(r)), delim_, " ");
      if (!r.empty()) out.push_back(std::move(r));
    }
    *tokens = std::move(out);
  }

 private:
  std::string pad_, delim_;
  bool cleanup_;
};

class SequenceDec final : public Decoder {
 public:
  explicit SequenceDec(std::vector<std::unique_ptr<Decoder>> d) : d_(std::move(d)) {}
  void decode_chain(std::vector<std::string>* tokens) const override {
    for (const auto& d : d_) d->decode_chain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> d_;
};

Status one_char(const json::Value& v, const char* key, const char* what, char32_t* out) {
  const std::string* s = json_string(v, key);
  std::u32string u;
  if (!s || !utf8_decode(*s, &u, nullptr) || u.size() != 1)
    return Status::error(std::string(what) + ": \"" + key + "\" must be a single character");
  *out = u[0];
  return Status::ok();
}

size_t json_size(const json::Value& v, const char* key, size_t dflt) {
  const json::Value* x = v.find(key);
  return x && x->is_int() && x->as_int() >= 0 ? static_cast<size_t>(x->as_int()) : dflt;
}

// ------------------------------------------------------------------ post-processors

class TemplatePost final : public PostProcessor {
 public:
  // Each item: the ids of a special token, or an empty vector for the sequence.
  explicit TemplatePost(std::vector<std::vector<int32_t>> items) : items_(std::move(items)) {
    for (const auto& it : items_) added_ += it.size();
  }
  void process(std::vector<int32_t>* ids, bool add) const override {
    if (!add) return;
    std::vector<int32_t> out;
    for (const auto& it : items_) {
      if (it.empty()) out.insert(out.end(), ids->begin(), ids->end());
      else out.insert(out.end(), it.begin(), it.end());
    }
    *ids = std::move(out);
  }
  size_t added_tokens() const override { return added_; }

 private:
  std::vector<std::vector<int32_t>> items_;
  size_t added_ = 0;
};

class ClsSepPost final : public PostProcessor {
 public:
  ClsSepPost(int32_t cls, int32_t sep) : cls_(cls), sep_(sep) {}
  void process(std::vector<int32_t>* ids, bool add) const override {
    if (!add) return;
    ids->insert(ids->begin(), cls_);
    ids->push_back(sep_);
  }
  size_t added_tokens() const override { return 2; }

 private:
  int32_t cls_, sep_;
};

class NoopPost final : public PostProcessor {
 public:
  void process(std::vector<int32_t>*, bool) const override {}
  size_t added_tokens() const override { return 0; }
};

class SequencePost final : public PostProcessor {
 public:
  explicit SequencePost(std::vector<std::unique_ptr<PostProcessor>> p) : p_(std::move(p)) {}
  void process(std::vector<int32_t>* ids, bool add) const override {
    for (const auto& p : p_) p->process(ids, add);
  }
  size_t added_tokens() const override {
    size_t n = 0;
    for (const auto& p : p_) n += p->added_tokens();
    return n;
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> p_;
};

Status token_pair(const json::Value& v, const char* key, const char* what, int32_t* id) {
  const json::Value* p = v.find(key, json::Type::Array);
  if (!p || p->size() != 2 || !(*p)[1].is_int())
    return Status::error(std::string(what) + ": \"" + key + "\" must be [token, id]");
  *id = static_cast<int32_t>((*p)[1].as_int());
  return Status::ok();
}

// The single-sequence template: [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}]
// or the string form "<s> $A".
Status template_items(const json::Value& v, std::vector<std::vector<int32_t>>* items) {
  const json::Value* single = v.find("single");
  const json::Value* specials = v.find("special_tokens");
  auto special_ids = [&](const std::string& name, std::vector<int32_t>* ids) -> Status {
    const json::Value* st = nullptr;
    if (specials && specials->is_object()) st = specials->find(name);
    if (specials && specials->is_array())
      for (const auto& s : specials->items())
        if (const std::string* id = json_string(s, "id"); id && *id == name) st = &s;
    if (!st) return Status::error("post_processor TemplateProcessing: special token " + json::quote(name) + " is not defined");
    const json::Value* list = st->find("ids", json::Type::Array);
    if (!list || list->size() == 0)
      return Status::error("post_processor TemplateProcessing: special token " + json::quote(name) + " has no ids");
    for (const auto& x : list->items()) ids->push_back(static_cast<int32_t>(x.as_int()));
    return Status::ok();
  };
  if (!single) return Status::error("post_processor TemplateProcessing needs \"single\"");
  if (single->is_string()) {
    const std::string& s = single->as_string();
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && s[i] == ' ') ++i;
      size_t j = s.find(' ', i);
      if (j == std::string::npos) j = s.size();
      std::string piece = s.substr(i, j - i);
      i = j;
      if (piece.empty()) continue;
      size_t colon = piece.rfind(':');
      if (colon != std::string::npos && colon + 1 < piece.size() &&
          piece.find_first_not_of("0123456789", colon + 1) == std::string::npos)
        piece = piece.substr(0, colon);
      if (piece == "$" || piece == "$A" || piece == "$0") {
        items->emplace_back();
      } else if (piece[0] == '$') {
        return Status::error("post_processor TemplateProcessing: " + piece + " in a single-sequence template");
      } else {
        std::vector<int32_t> ids;
        PTE_TRY(special_ids(piece, &ids));
        items->push_back(std::move(ids));
      }
    }
    return Status::ok();
  }
  if (!single->is_array()) return Status::error("post_processor TemplateProcessing: \"single\" must be a list");
  for (const auto& p : single->items()) {
    if (const json::Value* st = p.find("SpecialToken", json::Type::Object)) {
      const std::string* id = json_string(*st, "id");
      if (!id) return Status::error("post_processor TemplateProcessing: SpecialToken without id");
      std::vector<int32_t> ids;
      PTE_TRY(special_ids(*id, &ids));
      items->push_back(std::move(ids));
    } else if (p.find("Sequence", json::Type::Object)) {
      items->emplace_back();
    } else {
      return Status::error("post_processor TemplateProcessing: unknown template piece " + json::write(p));
    }
  }
  return Status::ok();
}

}  // namespace

Status make_decoder(const json::Value& v, std::unique_ptr<Decoder>* out) {
  out->reset();
  if (v.is_null()) return Status::ok();
  if (!v.is_object()) return Status::error("decoder must be an object or null");
  const std::string* type = json_string(v, "type");
  if (!type) return Status::error("decoder has no \"type\"");
  const std::string& t = *type;
  if (t == "ByteLevel") {
    *out = std::make_unique<ByteLevelDec>();
  } else if (t == "Metaspace") {
    char32_t rep;
    PTE_TRY(one_char(v, "replacement", "decoder Metaspace", &rep));
    bool strip_first = true;
    if (const std::string* s = json_string(v, "prepend_scheme")) strip_first = *s != "never";
    if (const json::Value* aps = v.find("add_prefix_space", json::Type::Bool); aps && !aps->as_bool())
      strip_first = false;
    *out = std::make_unique<MetaspaceDec>(rep, strip_first);
  } else if (t == "ByteFallback") {
    *out = std::make_unique<ByteFallbackDec>();
  } else if (t == "Fuse") {
    *out = std::make_unique<FuseDec>();
  } else if (t == "Strip") {
    char32_t c;
    PTE_TRY(one_char(v, "content", "decoder Strip", &c));
    *out = std::make_unique<StripDec>(c, json_size(v, "start", 0), json_size(v, "stop", 0));
  } else if (t == "Replace") {
    const json::Value* pat = v.find("pattern", json::Type::Object);
    const std::string* content = json_string(v, "content");
    if (!pat || !content) return Status::error("decoder Replace needs \"pattern\" and \"content\"");
    Regex re;
    PTE_TRY(compile_pattern(*pat, "decoder Replace", &re));
    *out = std::make_unique<ReplaceDec>(std::move(re), *content);
  } else if (t == "WordPiece") {
    const std::string* p = json_string(v, "prefix");
    bool cleanup;
    PTE_TRY(json_bool(v, "cleanup", true, &cleanup).context("decoder WordPiece"));
    *out = std::make_unique<WordPieceDec>(p ? *p : "##", cleanup);
  } else if (t == "BPEDecoder") {
    const std::string* s = json_string(v, "suffix");
    *out = std::make_unique<BpeDec>(s ? *s : "</w>");
  } else if (t == "CTC") {
    const std::string* pad = json_string(v, "pad_token");
    const std::string* delim = json_string(v, "word_delimiter_token");
    bool cleanup;
    PTE_TRY(json_bool(v, "cleanup", true, &cleanup).context("decoder CTC"));
    *out = std::make_unique<CtcDec>(pad ? *pad : "<pad>", delim ? *delim : "|", cleanup);
  } else if (t == "Sequence") {
    const json::Value* list = v.find("decoders", json::Type::Array);
    if (!list) return Status::error("decoder Sequence needs \"decoders\"");
    std::vector<std::unique_ptr<Decoder>> items;
    for (const auto& item : list->items()) {
      std::unique_ptr<Decoder> d;
      PTE_TRY(make_decoder(item, &d));
      if (d) items.push_back(std::move(d));
    }
    *out = std::make_unique<SequenceDec>(std::move(items));
  } else {
    return Status::error("decoder type " + json::quote(t) + " is not supported");
  }
  return Status::ok();
}

Status make_post_processor(const json::Value& v, std::unique_ptr<PostProcessor>* out) {
  out->reset();
  if (v.is_null()) return Status::ok();
  if (!v.is_object()) return Status::error("post_processor must be an object or null");
  const std::string* type = json_string(v, "type");
  if (!type) return Status::error("post_processor has no \"type\"");
  const std::string& t = *type;
  if (t == "TemplateProcessing") {
    std::vector<std::vector<int32_t>> items;
    PTE_TRY(template_items(v, &items));
    *out = std::make_unique<TemplatePost>(std::move(items));
  } else if (t == "BertProcessing" || t == "RobertaProcessing") {
    int32_t cls, sep;
    PTE_TRY(token_pair(v, "cls", ("post_processor " + t).c_str(), &cls));
    PTE_TRY(token_pair(v, "sep", ("post_processor " + t).c_str(), &sep));
    *out = std::make_unique<ClsSepPost>(cls, sep);
  } else if (t == "ByteLevel") {
    *out = std::make_unique<NoopPost>();
  } else if (t == "Sequence") {
    const json::Value* list = v.find("processors", json::Type::Array);
    if (!list) return Status::error("post_processor Sequence needs \"processors\"");
    std::vector<std::unique_ptr<PostProcessor>> items;
    for (const auto& item : list->items()) {
      std::unique_ptr<PostProcessor> p;
      PTE_TRY(make_post_processor(item, &p));
      if (p) items.push_back(std::move(p));
    }
    *out = std::make_unique<SequencePost>(std::move(items));
  } else {
    return Status::error("post_processor type " + json::quote(t) + " is not supported");
  }
  return Status::ok();
}

}  // namespace pte::tok
