// pte-run: next-token sampling. Greedy (argmax) by default; temperature, top-k, top-p
// and min-p with a seeded generator; a repetition penalty over the last tokens (as
// llama.cpp: a positive logit is divided by it, a negative one multiplied). Buffers are
// sized once (build), never per token.
#pragma once
#include <cstdint>
#include <vector>

namespace pte {

struct SamplerConfig {
  float temperature = 0.f;  // 0: greedy
  int top_k = 0;            // 0: off
  float top_p = 1.f;        // 1: off
  uint64_t seed = 0;
  float min_p = 0.f;           // 0: off; else drop tokens below min_p * the top probability
  float repeat_penalty = 1.f;  // 1: off
  int repeat_last_n = 64;      // tokens the penalty looks back over (-1: all, 0: none)
};

class Sampler {
 public:
  void build(int32_t vocab_size, const SamplerConfig& config);
  // logits has at least vocab_size floats; returns the chosen id.
  int32_t sample(const float* logits);
  // With the repetition penalty over the tail of `history` (the ids seen so far).
  int32_t sample(const float* logits, const std::vector<int32_t>& history);
  // Index of the largest logit (first on ties, like torch.argmax).
  static int32_t argmax(const float* logits, int32_t n);

 private:
  float uniform();  // [0, 1) from xorshift64*
  int32_t vocab_ = 0;
  SamplerConfig cfg_;
  uint64_t state_ = 0;
  std::vector<float> probs_;
  std::vector<int32_t> order_;
  std::vector<float> work_;      // penalized logits
  std::vector<uint8_t> seen_;    // per id: in the penalty window
};

}  // namespace pte
