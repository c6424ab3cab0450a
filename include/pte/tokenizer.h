// pte-run public API: text tokenizers.
//
//   std::unique_ptr<pte::Tokenizer> tok;
//   pte::Status s = pte::Tokenizer::load("model_dir", &tok);   // or a file, see load()
//   std::vector<int32_t> ids;
//   s = tok->encode("Hello world", /*add_special_tokens=*/true, &ids);
//   std::string text = tok->decode(ids, /*skip_special_tokens=*/false);
//
//   pte::TokenStream stream(*tok);                               // one id at a time
//   std::string chunk;
//   for (int32_t id : generated) { s = stream.step(id, &chunk); std::fputs(chunk.c_str(), stdout); }
//
// Encoding and decoding equal the Hugging Face `tokenizers` library (for
// tokenizer.json), llama2.c's run.c (for tokenizer.bin) and OpenAI's `tiktoken`
// (for tiktoken files). Tokenizers are immutable once loaded; encode/decode are
// safe to call from several threads.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pte/status.h"

namespace pte {

namespace tok {
class Impl;  // the loaded tokenizer (tokenizer.json, tokenizer.bin or tiktoken)
}

struct TokenizerOptions {
  // tiktoken files carry only the byte-pair ranks. The split pattern defaults to the
  // Llama 3 pattern (cl100k without possessive quantifiers) and the special tokens to
  // Llama 3's 256 (<|begin_of_text|>, <|end_of_text|>, ... <|eot_id|> ...), numbered
  // after the ranks. Set these to override.
  std::string tiktoken_pattern;
  std::vector<std::string> tiktoken_special_tokens;  // ids: number of ranks + index
  // Honour "truncation" and "padding" from tokenizer.json (as the reference does).
  // Off makes encode return the whole, unpadded sequence.
  bool apply_truncation_and_padding = true;
};

class Tokenizer {
 public:
  // `path` is one of:
  //   - a tokenizer.json file (Hugging Face `tokenizers` format);
  //   - a directory holding tokenizer.json (and optionally tokenizer_config.json,
  //     which supplies bos/eos tokens and the chat template), or else tokenizer.bin /
  //     tokenizer.model;
  //   - a llama2.c tokenizer.bin (int32 max_token_length, then per token: float score,
  //     int32 byte length, bytes);
  //   - a tiktoken file (one "base64-token rank" per line).
  // On failure the message is one line naming the file and the problem, e.g.
  //   tokenizer.json: pre_tokenizer type "Foo" is not supported
  static Status load(const std::string& path, std::unique_ptr<Tokenizer>* out);
  static Status load(const std::string& path, const TokenizerOptions& options, std::unique_ptr<Tokenizer>* out);
  // Finds the tokenizer for a program: `explicit_path` when non-empty, otherwise a
  // tokenizer.json / tokenizer.bin / tokenizer.model next to `pte_path`.
  static Status load_for_program(const std::string& pte_path, const std::string& explicit_path,
                                 std::unique_ptr<Tokenizer>* out);

  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // `text` must be valid UTF-8. add_special_tokens applies the post-processor
  // (e.g. BOS, [CLS] ... [SEP]); special tokens written in the text are recognised
  // either way.
  Status encode(std::string_view text, bool add_special_tokens, std::vector<int32_t>* ids) const;
  // Unknown ids are skipped (as the reference does). The result is valid UTF-8.
  std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens = false) const;

  int32_t bos_id() const;                      // -1 when the tokenizer has none
  const std::vector<int32_t>& eos_ids() const;  // ids that end generation (may be empty)
  int32_t vocab_size() const;                   // 1 + the largest id
  std::string id_to_token(int32_t id) const;    // "" for an unknown id
  int32_t token_to_id(std::string_view token) const;  // -1 when absent
  bool is_special(int32_t id) const;
  // The chat template from tokenizer_config.json ("" when none). Rendering it is
  // the caller's business.
  const std::string& chat_template() const;
  // The named special tokens of tokenizer_config.json ("bos_token" -> "<s>", ...), as
  // chat templates see them.
  const std::vector<std::pair<std::string, std::string>>& special_tokens_map() const;
  // "tokenizer.json (BPE)", "llama2.c tokenizer.bin", "tiktoken", ...
  std::string kind() const;

  const tok::Impl& impl() const { return *impl_; }

 private:
  explicit Tokenizer(std::unique_ptr<tok::Impl> impl);
  std::unique_ptr<tok::Impl> impl_;
};

// Streaming decoder: feed generated ids one at a time, get printable text. A chunk
// never ends inside a UTF-8 character: incomplete bytes (byte-fallback <0xE2>
// tokens, byte-level pieces of a character) are held until they complete, and
// context-dependent decoding (leading-space stripping, Metaspace) is applied as
// decode() of the whole sequence would. Same algorithm as the reference's
// DecodeStream, so the concatenated chunks equal decode(all ids).
class TokenStream {
 public:
  explicit TokenStream(const Tokenizer& tokenizer, bool skip_special_tokens = false);
  // Appends the id; `out` receives the new text (possibly empty while bytes are
  // pending). Fails only when the decoder is not prefix-stable for this sequence.
  Status step(int32_t id, std::string* out);
  // Returns whatever is still held back (e.g. a final incomplete character, as
  // U+FFFD) and resets the stream.
  std::string flush();
  void reset();

 private:
  const Tokenizer& tok_;
  bool skip_special_;
  std::vector<int32_t> ids_;
  std::string prefix_;
  size_t prefix_index_ = 0;
};

}  // namespace pte
