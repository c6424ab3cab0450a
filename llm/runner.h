// pte-run: text generation over a decoder program with a static KV cache.
//
// Works with both forward signatures in use:
//   forward(input_ids i64[1,S], cache_position i64[S]) -> logits [1,S,V]   (transformers, optimum)
//   forward(tokens i64[1,S], input_pos i64[1]) -> logits [1,(S),V]          (ExecuTorch's LLM export)
//   forward(tokens, input_pos, caches...) -> (logits, caches or their new positions...)
//                                                  (a KV cache passed as inputs and outputs)
//   forward(tokens[1,IN], masks, rope cos, rope sin, caches...) -> (logits, new keys/values...)
//                          (ExecuTorch's static-attention export: cache/static_attention.h)
//   text_decoder(inputs_embeds f32[1,S,H], cache_position i64[S]) -> logits, with
//   token_embedding and a vision or audio encoder (optimum's image-text-to-text export:
//   llm/multimodal.h); images or audio go in through GenerationConfig::media
// The KV cache (cache/kv_cache.h) lives in the method's mutable buffers, or is passed as
// inputs and outputs (the cache component owns those tensors and feeds them); the runner
// keeps the token ids it holds, so a conversation can continue, step back (rewind) or be
// saved. Prefill is one call per chunk when the token input has a dynamic length, one
// call per token otherwise.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cache/kv_cache.h"
#include "cache/static_attention.h"
#include "chat/chat_template.h"
#include "llm/multimodal.h"
#include "llm/sampler.h"
#include "pte/program.h"
#include "pte/tokenizer.h"

namespace pte {

struct RunnerOptions {
  std::string model_path;
  std::string tokenizer_path;  // empty: next to the model
  std::vector<std::string> data_files;
  std::string method = "forward";
  int num_threads = 0;
};

struct GenerationConfig {
  int max_new_tokens = 256;  // < 0: until EOS or the context is full
  SamplerConfig sampling;
  bool chat = false;         // wrap the prompt with the model's chat template
  std::string system_prompt;  // with chat: a system message before the prompt
  bool ignore_eos = false;
  std::vector<std::string> stop;  // generation ends before the first of these in the text
  // When set, asked before each token: true ends generation there (stop_reason
  // "cancelled"; a server whose client went away).
  std::function<bool()> cancelled;
  // When set, called with each sampled token and the text it completes (empty for a
  // final EOS, or while a UTF-8 character is split across tokens; the whole text is
  // not cut at stop strings); returning true ends generation there (stop_reason
  // "cancelled"). The C API's token callback (capi/pte_llm_c.cpp).
  std::function<bool(int32_t id, const std::string& piece)> on_token;
  // Images (or audio clips) through TextRunner::encode_media, in the prompt's order: the
  // prompt gets one placeholder each (the chat template's image part), expanded to the
  // encoder's token count, and those tokens take the encoder's rows.
  std::vector<MediaEmbedding> media;
};

struct GenerationStats {
  double load_ms = 0, prefill_ms = 0, decode_ms = 0, ttft_ms = 0;
  int prompt_tokens = 0, generated_tokens = 0;
  long peak_rss_kb = 0;
  Method::ThreadCalls threads;  // the decoder method's calls so far, shared / alone
  std::string stop_reason;  // "eos", "max_new_tokens", "context_full", "stop_string", "cancelled"
  int64_t start_position = 0, end_position = 0;  // tokens in the cache before / after
  std::string text;                 // what was streamed (cut before a stop string)
  std::vector<int32_t> prompt_ids;  // the prompt as encoded
  std::vector<int32_t> tokens;      // the generated ids, a final EOS included
};

// What the program says about itself (constant methods), with fallbacks.
struct ModelMetadata {
  int64_t max_seq_len = 0;      // longest prefill chunk (get_max_seq_len)
  int64_t max_context_len = 0;  // KV capacity (get_max_context_len, else max_seq_len)
  std::vector<int64_t> eos_ids;  // get_eos_ids / get_eos_id, else the tokenizer's
  int64_t bos_id = -1;
  int64_t vocab_size = 0;
  bool use_kv_cache = true;
  bool dynamic_prefill = false;  // token input has a dynamic length > 1
  int64_t prefill_chunk = 1;     // tokens per prefill call
  bool positions_as_range = true;  // cache_position [S] (HF) vs input_pos [1]
  int64_t sliding_window = 0;     // the sliding_window constant (optimum), 0 when absent
  bool embeddings_input = false;  // text_decoder(inputs_embeds, ...) behind token_embedding
};

class TextRunner {
 public:
  static Status create(const RunnerOptions& options, std::unique_ptr<TextRunner>* out);
  // Another runner over the same mapped program (a server's slot): its own method
  // instance, KV cache and tokenizer; constants are read in place from the same mapping
  // (weights a delegate packs at load are packed again for this method).
  Status another(std::unique_ptr<TextRunner>* out) const;

  // Streams decoded text to `on_text` as tokens are produced (never splitting a
  // UTF-8 character). The prompt is added to what the cache already holds.
  Status generate(const std::string& prompt, const GenerationConfig& config,
                  const std::function<void(const std::string&)>& on_text, GenerationStats* stats);
  // The same from token ids: prefills `ids` after what the cache holds, then samples.
  // The last sampled token is not fed back (the cache holds the prompt and every
  // generated token but the last).
  Status generate_ids(const std::vector<int32_t>& ids, const GenerationConfig& config,
                      const std::function<void(const std::string&)>& on_text, GenerationStats* stats);
  // The prompt's ids (chat template applied when config.chat).
  Status encode_prompt(const std::string& prompt, const GenerationConfig& config, std::vector<int32_t>* ids) const;
  // Appends ids to the cache; `logits` gets the last position's.
  Status prefill(const std::vector<int32_t>& ids, const float** logits);

  // Forgets the conversation (cache zeroed, position 0).
  void reset();
  // Back to the first `pos` tokens (the cache forgets the rest).
  Status rewind(int64_t pos);
  // Puts back a saved conversation: its tokens and the cache contents KvCache::save gave.
  Status restore(const std::vector<int32_t>& tokens, const uint8_t* cache_data, size_t cache_bytes);
  int64_t position() const { return static_cast<int64_t>(history_.size()); }
  const std::vector<int32_t>& tokens() const { return history_; }  // ids in the cache
  const KvCache& cache() const { return *cache_; }
  // Identity of the program file (size, and a hash of its bytes), for saved sessions;
  // computed on first use.
  Status identity(std::string* out);

  // Programs with token_embedding and a vision or audio encoder (null: a text decoder).
  const MultimodalInfo* multimodal() const { return front_ ? &front_->info() : nullptr; }
  // Runs the encoder on one preprocessed input (pixel values [1,3,h,w], features, ...).
  Status encode_media(const float* data, const std::vector<int64_t>& sizes, MediaEmbedding* out);

  const ModelMetadata& metadata() const { return meta_; }
  const Tokenizer& tokenizer() const { return *tok_; }
  // The prompt as the model will see it (chat template applied when asked: the
  // tokenizer's Jinja template, rendered as transformers' apply_chat_template).
  Status render_prompt(const std::string& prompt, bool chat, std::string* out) const;
  Status render_prompt(const std::string& prompt, bool chat, const std::string& system, std::string* out) const;
  // The strings that place media in a prompt: the media token, and Gemma3's begin / end of
  // image tokens (empty when the tokenizer has none).
  Status media_marks(std::string* media_token, std::string* boi, std::string* eoi) const;
  // The same with media: one placeholder per item, expanded to its token count.
  Status render_prompt(const std::string& prompt, bool chat, const std::string& system,
                       const std::vector<MediaEmbedding>& media, std::string* out) const;

 private:
  Status read_metadata();
  Status forward(const int32_t* ids, int64_t n, const float** logits);
  Status step(int32_t id, const float** logits);

  Status load(const RunnerOptions& options);

  RunnerOptions options_;
  std::shared_ptr<Program> program_;
  std::unique_ptr<Method> method_;
  std::unique_ptr<Tokenizer> tok_;
  mutable std::unique_ptr<ChatTemplate> chat_;  // parsed on first use
  ModelMetadata meta_;
  double load_ms_ = 0;
  std::unique_ptr<KvCache> cache_;
  std::unique_ptr<StaticAttention> static_;  // ExecuTorch's static-attention I/O, when the program has it
  std::unique_ptr<EmbeddingFront> front_;    // token_embedding (+ encoder), when the decoder takes embeddings
  size_t in_tokens_ = 0, in_pos_ = 1;        // the decoder's token (or embeddings) and position inputs
  std::vector<float> embeds_buf_;            // a chunk's input rows [prefill_chunk, H]
  const std::vector<float>* media_rows_ = nullptr;  // during a prompt's prefill: its media rows
  int64_t media_used_ = 0;
  std::vector<int32_t> history_;  // the ids the cache holds, in order
  std::string program_hash_, model_path_;
  std::vector<int64_t> tokens_buf_, pos_buf_;
  std::vector<float> logits_buf_;
  Sampler sampler_;
};

}  // namespace pte
