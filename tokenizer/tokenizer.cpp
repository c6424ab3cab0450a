// pte-run tokenizers: the public Tokenizer (format detection, tokenizer_config.json)
// and the streaming decoder.
#include "pte/tokenizer.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tokenizer/impl.h"
#include "tokenizer/unicode.h"
#include "util/json.h"

namespace pte {

namespace {

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
std::string dirname_of(const std::string& p) {
  size_t s = p.find_last_of('/');
  if (s == std::string::npos) return ".";
  if (s == 0) return "/";
  return p.substr(0, s);
}
std::string join(const std::string& dir, const char* name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

Status read_file(const std::string& path, std::string* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::error(path + ": cannot open: " + std::strerror(errno));
  out->clear();
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) return Status::error(path + ": read error");
  return Status::ok();
}

// "<base64> <rank>" on the first non-empty line.
bool looks_like_tiktoken(std::string_view d) {
  size_t nl = d.find('\n');
  std::string_view line = d.substr(0, nl == std::string_view::npos ? d.size() : nl);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  size_t sp = line.find(' ');
  if (sp == 0 || sp == std::string_view::npos || sp + 1 >= line.size()) return false;
  for (size_t i = 0; i < sp; ++i) {
    char c = line[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '='))
      return false;
  }
  for (size_t i = sp + 1; i < line.size(); ++i)
    if (line[i] < '0' || line[i] > '9') return false;
  return true;
}

// A token given in a config: "<s>" or {"content": "<s>", ...}.
const std::string* config_token(const json::Value& cfg, const char* key) {
  const json::Value* v = cfg.find(key);
  if (!v) return nullptr;
  if (v->is_string()) return &v->as_string();
  if (v->is_object())
    if (const json::Value* c = v->find("content", json::Type::String)) return &c->as_string();
  return nullptr;
}

void apply_configs(const std::string& dir, tok::Impl* impl) {
  json::Value cfg;
  std::string text;
  if (is_file(join(dir, "tokenizer_config.json")) && read_file(join(dir, "tokenizer_config.json"), &text) &&
      json::parse(text, &cfg)) {
    if (const std::string* b = config_token(cfg, "bos_token")) {
      int32_t id = impl->token_to_id(*b);
      if (id >= 0) impl->bos_id = id;
    }
    if (const std::string* e = config_token(cfg, "eos_token")) {
      int32_t id = impl->token_to_id(*e);
      if (id >= 0) {
        std::vector<int32_t> eos = {id};
        for (int32_t x : impl->eos_ids)
          if (x != id) eos.push_back(x);
        impl->eos_ids = eos;
      }
    }
    for (const char* key : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"})
      if (const std::string* t = config_token(cfg, key)) impl->special_tokens_map.emplace_back(key, *t);
    if (const json::Value* ct = cfg.find("chat_template")) {
      if (ct->is_string()) {
        impl->chat_template = ct->as_string();
      } else if (ct->is_array()) {
        for (const auto& t : ct->items()) {
          const json::Value* name = t.find("name", json::Type::String);
          const json::Value* tmpl = t.find("template", json::Type::String);
          if (tmpl && (impl->chat_template.empty() || (name && name->as_string() == "default")))
            impl->chat_template = tmpl->as_string();
        }
      }
    }
  }
  if (impl->chat_template.empty() && is_file(join(dir, "chat_template.jinja")) &&
      read_file(join(dir, "chat_template.jinja"), &text))
    impl->chat_template = text;
  json::Value gen;
  if (is_file(join(dir, "generation_config.json")) && read_file(join(dir, "generation_config.json"), &text) &&
      json::parse(text, &gen)) {
    if (const json::Value* b = gen.find("bos_token_id", json::Type::Int)) impl->bos_id = static_cast<int32_t>(b->as_int());
    if (const json::Value* e = gen.find("eos_token_id")) {
      auto add = [&](const json::Value& x) {
        if (!x.is_int()) return;
        int32_t id = static_cast<int32_t>(x.as_int());
        for (int32_t y : impl->eos_ids)
          if (y == id) return;
        impl->eos_ids.push_back(id);
      };
      if (e->is_array())
        for (const auto& x : e->items()) add(x);
      else
        add(*e);
    }
  }
}

Status load_file(const std::string& path, const TokenizerOptions& options, std::unique_ptr<tok::Impl>* out) {
  std::string data;
  PTE_TRY(read_file(path, &data));
  size_t i = 0;
  while (i < data.size() && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) ++i;
  if (i < data.size() && data[i] == '{') {
    PTE_TRY(tok::load_hf_json_text(data, path, options, out));
  } else if (looks_like_tiktoken(data)) {
    PTE_TRY(tok::load_tiktoken(path, data, options, out));
  } else if (!data.empty() && data[0] == 0x0A) {
    return Status::error(path + ": a SentencePiece model is not supported; use its tokenizer.json "
                                "(or llama2.c's tokenizer.bin export)");
  } else {
    Status s = tok::load_llama2c(path, data, out);
    if (!s) return Status::error(path + ": not a tokenizer.json, tiktoken or llama2.c tokenizer.bin file (" +
                                 s.message().substr(std::min(s.message().size(), path.size() + 2)) + ")");
  }
  apply_configs(dirname_of(path), out->get());
  return Status::ok();
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<tok::Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

Status Tokenizer::load(const std::string& path, std::unique_ptr<Tokenizer>* out) {
  return load(path, TokenizerOptions(), out);
}

Status Tokenizer::load(const std::string& path, const TokenizerOptions& options, std::unique_ptr<Tokenizer>* out) {
  std::unique_ptr<tok::Impl> impl;
  if (is_dir(path)) {
    const char* names[] = {"tokenizer.json", "tokenizer.bin", "tokenizer.model"};
    std::string found;
    for (const char* n : names)
      if (is_file(join(path, n))) {
        found = join(path, n);
        break;
      }
    if (found.empty())
      return Status::error(path + ": no tokenizer.json, tokenizer.bin or tokenizer.model in this directory");
    PTE_TRY(load_file(found, options, &impl));
  } else {
    PTE_TRY(load_file(path, options, &impl));
  }
  out->reset(new Tokenizer(std::move(impl)));
  return Status::ok();
}

Status Tokenizer::load_for_program(const std::string& pte_path, const std::string& explicit_path,
                                   std::unique_ptr<Tokenizer>* out) {
  if (!explicit_path.empty()) return load(explicit_path, out);
  std::string dir = dirname_of(pte_path);
  for (const char* n : {"tokenizer.json", "tokenizer.bin", "tokenizer.model"})
    if (is_file(join(dir, n))) return load(join(dir, n), out);
  return Status::error(pte_path + ": no tokenizer next to it (looked for tokenizer.json, tokenizer.bin, "
                                  "tokenizer.model in " + dir + "); give one with --tokenizer");
}

Status Tokenizer::encode(std::string_view text, bool add_special_tokens, std::vector<int32_t>* ids) const {
  return impl_->encode(text, add_special_tokens, ids);
}
std::string Tokenizer::decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  return impl_->decode(ids, skip_special_tokens);
}
int32_t Tokenizer::bos_id() const { return impl_->bos_id; }
const std::vector<int32_t>& Tokenizer::eos_ids() const { return impl_->eos_ids; }
int32_t Tokenizer::vocab_size() const { return impl_->vocab_size(); }
std::string Tokenizer::id_to_token(int32_t id) const { return impl_->id_to_token(id); }
int32_t Tokenizer::token_to_id(std::string_view token) const { return impl_->token_to_id(token); }
bool Tokenizer::is_special(int32_t id) const { return impl_->is_special(id); }
const std::string& Tokenizer::chat_template() const { return impl_->chat_template; }
const std::vector<std::pair<std::string, std::string>>& Tokenizer::special_tokens_map() const {
  return impl_->special_tokens_map;
}
std::string Tokenizer::kind() const { return impl_->kind(); }

// ------------------------------------------------------------------ TokenStream

TokenStream::TokenStream(const Tokenizer& tokenizer, bool skip_special_tokens)
    : tok_(tokenizer), skip_special_(skip_special_tokens) {}

void TokenStream::reset() {
  ids_.clear();
  prefix_.clear();
  prefix_index_ = 0;
}

Status TokenStream::step(int32_t id, std::string* out) {
  out->clear();
  if (prefix_.empty() && !ids_.empty()) {
    std::string p = tok_.decode(ids_, skip_special_);
    if (!tok::ends_with_replacement_char(p)) {
      prefix_ = std::move(p);
      prefix_index_ = ids_.size();
    }
  }
  ids_.push_back(id);
  std::string s = tok_.decode(ids_, skip_special_);
  if (s.size() > prefix_.size() && !tok::ends_with_replacement_char(s)) {
    if (s.compare(0, prefix_.size(), prefix_) != 0)
      return Status::error("streaming decode: token " + std::to_string(id) + " changes text already emitted");
    *out = s.substr(prefix_.size());
    size_t new_prefix_index = ids_.size() - prefix_index_;
    ids_.erase(ids_.begin(), ids_.begin() + static_cast<long>(prefix_index_));
    prefix_ = tok_.decode(ids_, skip_special_);
    prefix_index_ = new_prefix_index;
  }
  return Status::ok();
}

std::string TokenStream::flush() {
  std::string rest;
  std::string s = tok_.decode(ids_, skip_special_);
  if (s.size() > prefix_.size() && s.compare(0, prefix_.size(), prefix_) == 0) rest = s.substr(prefix_.size());
  reset();
  return rest;
}

}  // namespace pte
