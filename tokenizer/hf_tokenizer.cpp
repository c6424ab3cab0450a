// pte-run tokenizers: Hugging Face tokenizer.json (added vocabulary, the encode
// pipeline, truncation/padding, decode) and its loader.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "tokenizer/components.h"
#include "tokenizer/impl.h"
#include "tokenizer/unicode.h"

namespace pte::tok {

namespace {

struct AddedToken {
  std::string content;
  bool single_word = false, lstrip = false, rstrip = false, normalized = true, special = false;
  bool same(const AddedToken& o) const {
    return content == o.content && single_word == o.single_word && lstrip == o.lstrip && rstrip == o.rstrip &&
           normalized == o.normalized && special == o.special;
  }
};

// Leftmost-longest multi-pattern matcher over code points (the reference uses
// Aho-Corasick with MatchKind::LeftmostLongest).
class Trie {
 public:
  void add(const std::u32string& s, int32_t value) {
    if (s.empty()) return;
    int32_t node = 0;
    for (char32_t c : s) {
      uint64_t k = (uint64_t(uint32_t(node)) << 21) | c;
      auto it = edges_.find(k);
      if (it == edges_.end()) {
        term_.push_back(-1);
        int32_t child = static_cast<int32_t>(term_.size()) - 1;
        edges_.emplace(k, child);
        node = child;
      } else {
        node = it->second;
      }
    }
    if (term_[static_cast<size_t>(node)] < 0) term_[static_cast<size_t>(node)] = value;  // first pattern wins
  }
  bool empty() const { return edges_.empty(); }
  // Leftmost-longest match at or after `from`.
  bool find(std::u32string_view t, size_t from, size_t* s, size_t* e, int32_t* value) const {
    for (size_t i = from; i < t.size(); ++i) {
      int32_t node = 0;
      long best = -1;
      for (size_t j = i; j < t.size(); ++j) {
        auto it = edges_.find((uint64_t(uint32_t(node)) << 21) | t[j]);
        if (it == edges_.end()) break;
        node = it->second;
        if (term_[static_cast<size_t>(node)] >= 0) best = static_cast<long>(j), *value = term_[static_cast<size_t>(node)];
      }
      if (best >= 0) {
        *s = i;
        *e = static_cast<size_t>(best) + 1;
        return true;
      }
    }
    return false;
  }

 private:
  std::unordered_map<uint64_t, int32_t> edges_;
  std::vector<int32_t> term_{-1};  // node 0 is the root
};

struct Truncation {
  bool on = false;
  size_t max_length = 0;
  bool left = false;
  bool only_second = false;
};
struct Padding {
  bool on = false;
  bool fixed = false;
  size_t length = 0;
  size_t multiple = 0;
  bool left = false;
  int32_t pad_id = 0;
};

class HfTokenizer final : public Impl {
 public:
  Status load(const json::Value& doc, const TokenizerOptions& options) {
    if (!doc.is_object()) return Status::error("not a tokenizer.json (the top level is not an object)");
    if (const json::Value* ver = doc.find("version"); ver && ver->is_string() && ver->as_string() != "1.0")
      return Status::error("unknown tokenizer.json version " + json::quote(ver->as_string()));
    const json::Value* model = doc.find("model");
    if (!model) return Status::error("no \"model\" (not a tokenizer.json file)");
    PTE_TRY(make_model(*model, &model_));
    const json::Value null;
    auto field = [&](const char* k) -> const json::Value& {
      const json::Value* v = doc.find(k);
      return v ? *v : null;
    };
    PTE_TRY(make_normalizer(field("normalizer"), &normalizer_));
    PTE_TRY(make_pre_tokenizer(field("pre_tokenizer"), &pre_tokenizer_));
    PTE_TRY(make_post_processor(field("post_processor"), &post_processor_));
    PTE_TRY(make_decoder(field("decoder"), &decoder_));
    if (options.apply_truncation_and_padding) {
      PTE_TRY(parse_truncation(field("truncation")));
      PTE_TRY(parse_padding(field("padding")));
    }
    const json::Value& added = field("added_tokens");
    if (!added.is_null() && !added.is_array()) return Status::error("\"added_tokens\" must be a list");
    std::vector<AddedToken> list;
    for (const auto& t : added.items()) {
      AddedToken a;
      const std::string* c = json_string(t, "content");
      if (!c) return Status::error("added token without \"content\"");
      a.content = *c;
      PTE_TRY(json_bool(t, "single_word", false, &a.single_word));
      PTE_TRY(json_bool(t, "lstrip", false, &a.lstrip));
      PTE_TRY(json_bool(t, "rstrip", false, &a.rstrip));
      PTE_TRY(json_bool(t, "special", false, &a.special));
      PTE_TRY(json_bool(t, "normalized", !a.special, &a.normalized));
      list.push_back(std::move(a));
    }
    add_tokens(list);
    return Status::ok();
  }

  Status encode(std::string_view text, bool add_special, std::vector<int32_t>* ids) const override {
    ids->clear();
    Piece whole;
    if (!utf8_decode(text, &whole.text, &whole.align)) return Status::error("text is not valid UTF-8");
    Pieces pieces, next;
    split_added(whole, /*normalized=*/false, &pieces);
    for (auto& p : pieces) {
      if (p.token >= 0) {
        next.push_back(std::move(p));
        continue;
      }
      if (normalizer_) normalizer_->normalize(&p);
      split_added(p, /*normalized=*/true, &next);
    }
    if (pre_tokenizer_) pre_tokenizer_->pre_tokenize(&next);
    std::string word;
    for (const auto& p : next) {
      if (p.token >= 0) {
        ids->push_back(p.token);
        continue;
      }
      word = to_utf8(p.text);
      if (word.empty()) continue;
      PTE_TRY(model_->tokenize(word, ids));
    }
    if (trunc_.on) {
      if (trunc_.only_second) return Status::error("Truncation error: Second sequence not provided");
      size_t max_len = trunc_.max_length;
      size_t added = post_processor_ && add_special ? post_processor_->added_tokens() : 0;
      max_len = max_len > added ? max_len - added : 0;
      if (trunc_.max_length == 0) max_len = 0;
      if (ids->size() > max_len) {
        if (trunc_.left) ids->erase(ids->begin(), ids->end() - static_cast<long>(max_len));
        else ids->resize(max_len);
      }
    }
    if (post_processor_) post_processor_->process(ids, add_special);
    if (pad_.on) {
      size_t len = pad_.fixed ? pad_.length : ids->size();
      if (pad_.multiple > 0 && len % pad_.multiple) len += pad_.multiple - len % pad_.multiple;
      if (ids->size() < len) {
        if (pad_.left) ids->insert(ids->begin(), len - ids->size(), pad_.pad_id);
        else ids->resize(len, pad_.pad_id);
      }
    }
    return Status::ok();
  }

  std::string decode(const std::vector<int32_t>& ids, bool skip_special) const override {
    std::vector<std::string> tokens;
    tokens.reserve(ids.size());
    for (int32_t id : ids) {
      const std::string* t = token_ptr(id);
      if (!t) continue;
      if (skip_special && special_.count(*t)) continue;
      tokens.push_back(*t);
    }
    if (!decoder_) {
      std::string out;
      for (size_t i = 0; i < tokens.size(); ++i) {
        if (i) out.push_back(' ');
        out += tokens[i];
      }
      return out;
    }
    decoder_->decode_chain(&tokens);
    std::string out;
    for (const auto& t : tokens) out += t;
    return out;
  }

  std::string id_to_token(int32_t id) const override {
    const std::string* t = token_ptr(id);
    return t ? *t : std::string();
  }
  int32_t token_to_id(std::string_view token) const override {
    auto it = added_ids_.find(std::string(token));
    if (it != added_ids_.end()) return it->second;
    return model_->token_to_id(token);
  }
  bool is_special(int32_t id) const override {
    const std::string* t = token_ptr(id);
    return t && special_.count(*t);
  }
  int32_t vocab_size() const override {
    int32_t m = model_->max_id();
    for (const auto& [id, idx] : added_by_id_) m = std::max(m, id);
    return m + 1;
  }
  std::string kind() const override { return std::string("tokenizer.json (") + model_->type() + ")"; }

  // bos/eos guesses when no tokenizer_config.json says otherwise.
  void guess_special_ids() {
    static const char* kBos[] = {"<|begin_of_text|>", "<s>", "<bos>", "<|startoftext|>", "[CLS]"};
    static const char* kEos[] = {"<|end_of_text|>", "<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|endoftext|>",
                                 "</s>", "<eos>", "<end_of_turn>", "<|end|>", "[SEP]"};
    for (const char* b : kBos) {
      int32_t id = token_to_id(b);
      if (id >= 0 && is_special(id)) {
        bos_id = id;
        break;
      }
    }
    for (const char* e : kEos) {
      int32_t id = token_to_id(e);
      if (id >= 0 && is_special(id)) eos_ids.push_back(id);
    }
  }

 private:
  const std::string* token_ptr(int32_t id) const {
    auto it = added_by_id_.find(id);
    if (it != added_by_id_.end()) return &added_[it->second].content;
    return model_->id_to_token(id);
  }

  Status parse_truncation(const json::Value& v) {
    if (v.is_null()) return Status::ok();
    if (!v.is_object()) return Status::error("\"truncation\" must be an object or null");
    trunc_.on = true;
    const json::Value* ml = v.find("max_length", json::Type::Int);
    if (!ml || ml->as_int() < 0) return Status::error("truncation: \"max_length\" must be a non-negative integer");
    trunc_.max_length = static_cast<size_t>(ml->as_int());
    if (const std::string* d = json_string(v, "direction")) trunc_.left = *d == "Left";
    if (const std::string* s = json_string(v, "strategy")) trunc_.only_second = *s == "OnlySecond";
    return Status::ok();
  }
  Status parse_padding(const json::Value& v) {
    if (v.is_null()) return Status::ok();
    if (!v.is_object()) return Status::error("\"padding\" must be an object or null");
    pad_.on = true;
    if (const json::Value* s = v.find("strategy"); s && s->is_object()) {
      const json::Value* f = s->find("Fixed", json::Type::Int);
      if (!f || f->as_int() < 0) return Status::error("padding: bad \"strategy\"");
      pad_.fixed = true;
      pad_.length = static_cast<size_t>(f->as_int());
    }
    if (const std::string* d = json_string(v, "direction")) pad_.left = *d == "Left";
    if (const json::Value* m = v.find("pad_to_multiple_of", json::Type::Int)) pad_.multiple = static_cast<size_t>(m->as_int());
    if (const json::Value* id = v.find("pad_id", json::Type::Int)) pad_.pad_id = static_cast<int32_t>(id->as_int());
    return Status::ok();
  }

  // The reference's AddedVocabulary::add_tokens on an empty vocabulary.
  void add_tokens(const std::vector<AddedToken>& tokens) {
    std::vector<size_t> special_order, classic_order;  // indices into added_
    std::unordered_set<std::string> special_set;
    for (const auto& t : tokens)
      if (t.special && !t.content.empty() && special_set.insert(t.content).second) {
        special_.insert(t.content);
        added_.push_back(t);
        special_order.push_back(added_.size() - 1);
      }
    int32_t next_id = static_cast<int32_t>(model_->size());
    std::vector<AddedToken> existing;
    for (const auto& t : tokens) {
      if (t.content.empty()) continue;
      bool seen = false;
      for (const auto& e : existing) seen = seen || e.same(t);
      if (seen) continue;
      int32_t id = token_to_id(t.content);
      if (id < 0) id = next_id++;
      added_.push_back(t);
      size_t idx = added_.size() - 1;
      added_ids_[t.content] = id;
      added_by_id_[id] = idx;
      if (!special_set.count(t.content)) classic_order.push_back(idx);
      existing.push_back(t);
    }
    // Patterns: special tokens, then the others, each with the id its content has now.
    std::vector<size_t> order = special_order;
    order.insert(order.end(), classic_order.begin(), classic_order.end());
    for (size_t idx : order) {
      const AddedToken& t = added_[idx];
      int32_t id = token_to_id(t.content);
      std::u32string pat;
      utf8_decode(t.content, &pat, nullptr);
      if (t.normalized) {
        if (normalizer_) {
          Piece p;
          p.text = pat;
          p.align.assign(pat.size(), 0);
          normalizer_->normalize(&p);
          pat = p.text;
        }
        norm_trie_.add(pat, id);
      } else {
        raw_trie_.add(pat, id);
      }
    }
  }

  const AddedToken* added_token(int32_t id) const {
    auto it = added_by_id_.find(id);
    return it == added_by_id_.end() ? nullptr : &added_[it->second];
  }

  void split_added(const Piece& p, bool normalized, Pieces* out) const {
    const Trie& trie = normalized ? norm_trie_ : raw_trie_;
    const auto& t = p.text;
    size_t n = t.size();
    if (trie.empty()) {
      if (n) out->push_back(p);
      return;
    }
    size_t start_offset = 0, pos = 0;
    size_t s = 0, e = 0;
    int32_t id = -1;
    auto word = [](char32_t c) { return has_flag(c, kFlagRustWord); };
    while (pos < n && trie.find(t, pos, &s, &e, &id)) {
      pos = e;
      const AddedToken* tok = added_token(id);
      if (tok && tok->single_word) {
        bool start_space = s == 0 || !word(t[s - 1]);
        bool stop_space = e == n || !word(t[e]);
        if (!start_space || !stop_space) continue;
      }
      if (tok && tok->lstrip) {
        size_t ns = s;
        while (ns > 0 && is_white_space(t[ns - 1])) --ns;
        s = std::max(ns, start_offset);
      }
      if (tok && tok->rstrip)
        while (e < n && is_white_space(t[e])) ++e;
      if (start_offset < s) out->push_back(slice_piece(p, start_offset, s));
      Piece tp = slice_piece(p, s, e);
      tp.token = id;
      if (e > s) out->push_back(std::move(tp));
      start_offset = e;
    }
    if (start_offset < n) out->push_back(slice_piece(p, start_offset, n));
  }

  std::unique_ptr<Model> model_;
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<PostProcessor> post_processor_;
  std::unique_ptr<Decoder> decoder_;
  Truncation trunc_;
  Padding pad_;
  std::vector<AddedToken> added_;
  std::unordered_map<std::string, int32_t> added_ids_;
  std::unordered_map<int32_t, size_t> added_by_id_;
  std::unordered_set<std::string> special_;
  Trie raw_trie_, norm_trie_;
};

}  // namespace

Status load_hf_json_text(std::string_view text, const std::string& name, const TokenizerOptions& options,
                         std::unique_ptr<Impl>* out) {
  json::Value doc;
  json::ParseOptions po;
  po.allow_duplicate_keys = true;
  po.replace_lone_surrogates = true;
  Status s = json::parse(text, &doc, po);
  if (!s) return s.context(name);
  auto t = std::make_unique<HfTokenizer>();
  s = t->load(doc, options);
  if (!s) return s.context(name);
  t->guess_special_ids();
  *out = std::move(t);
  return Status::ok();
}

Status load_hf_json(const std::string& path, const TokenizerOptions& options, std::unique_ptr<Impl>* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::error(path + ": cannot open: " + std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return load_hf_json_text(text, path, options, out);
}

}  // namespace pte::tok
