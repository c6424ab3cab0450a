// pte-run tokenizers: the interface every tokenizer format implements.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pte/status.h"
#include "pte/tokenizer.h"

namespace pte::tok {

class Impl {
 public:
  virtual ~Impl() = default;
  virtual Status encode(std::string_view text, bool add_special_tokens, std::vector<int32_t>* ids) const = 0;
  virtual std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const = 0;
  virtual std::string id_to_token(int32_t id) const = 0;
  virtual int32_t token_to_id(std::string_view token) const = 0;
  virtual bool is_special(int32_t id) const = 0;
  virtual int32_t vocab_size() const = 0;
  virtual std::string kind() const = 0;

  int32_t bos_id = -1;
  std::vector<int32_t> eos_ids;
  std::string chat_template;
  // named special tokens of tokenizer_config.json (bos_token, eos_token, ...), in that order
  std::vector<std::pair<std::string, std::string>> special_tokens_map;
};

// Loaders. `path` is named in messages as given.
Status load_hf_json(const std::string& path, const TokenizerOptions& options, std::unique_ptr<Impl>* out);
Status load_hf_json_text(std::string_view text, const std::string& name, const TokenizerOptions& options,
                         std::unique_ptr<Impl>* out);
Status load_llama2c(const std::string& path, std::string_view data, std::unique_ptr<Impl>* out);
Status load_tiktoken(const std::string& path, std::string_view data, const TokenizerOptions& options,
                     std::unique_ptr<Impl>* out);

}  // namespace pte::tok
