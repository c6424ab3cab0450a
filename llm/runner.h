// pte-run: text generation over a decoder program with a static KV cache.
//
// Works with both forward signatures in use:
//   forward(input_ids i64[1,S], cache_position i64[S]) -> logits [1,S,V]   (transformers, optimum)
//   forward(tokens i64[1,S], input_pos i64[1]) -> logits [1,(S),V]          (ExecuTorch's LLM export)
// The KV cache lives in the method's mutable buffers; the runner only tracks the
// position. Prefill is one call per chunk when the token input has a dynamic length,
// one call per token otherwise.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

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
  bool ignore_eos = false;
};

struct GenerationStats {
  double load_ms = 0, prefill_ms = 0, decode_ms = 0, ttft_ms = 0;
  int prompt_tokens = 0, generated_tokens = 0;
  long peak_rss_kb = 0;
  std::string stop_reason;  // "eos", "max_new_tokens", "context_full"
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
};

class TextRunner {
 public:
  static Status create(const RunnerOptions& options, std::unique_ptr<TextRunner>* out);

  // Streams decoded text to `on_text` as tokens are produced (never splitting a
  // UTF-8 character). The prompt is added to what the cache already holds.
  Status generate(const std::string& prompt, const GenerationConfig& config,
                  const std::function<void(const std::string&)>& on_text, GenerationStats* stats);
  // Forgets the conversation (position back to 0).
  void reset() { pos_ = 0; }

  const ModelMetadata& metadata() const { return meta_; }
  const Tokenizer& tokenizer() const { return *tok_; }
  // The prompt as the model will see it (chat template applied when asked).
  Status render_prompt(const std::string& prompt, bool chat, std::string* out) const;

 private:
  Status read_metadata();
  Status forward(const int32_t* ids, int64_t n, const float** logits);

  std::unique_ptr<Program> program_;
  std::unique_ptr<Method> method_;
  std::unique_ptr<Tokenizer> tok_;
  ModelMetadata meta_;
  double load_ms_ = 0;
  int64_t pos_ = 0;
  std::vector<int64_t> tokens_buf_, pos_buf_;
  std::vector<float> logits_buf_;
  Sampler sampler_;
};

}  // namespace pte
