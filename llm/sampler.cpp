#include "llm/sampler.h"

#include <algorithm>
#include <cmath>

namespace pte {

void Sampler::build(int32_t vocab_size, const SamplerConfig& config) {
  vocab_ = vocab_size;
  cfg_ = config;
  state_ = config.seed ^ 0x9E3779B97F4A7C15ull;
  if (state_ == 0) state_ = 1;
  probs_.assign(static_cast<size_t>(vocab_size), 0.f);
  order_.assign(static_cast<size_t>(vocab_size), 0);
  bool penalty = config.repeat_penalty != 1.f && config.repeat_last_n != 0;
  work_.assign(penalty ? static_cast<size_t>(vocab_size) : 0, 0.f);
  seen_.assign(penalty ? static_cast<size_t>(vocab_size) : 0, 0);
}

int32_t Sampler::sample(const float* logits, const std::vector<int32_t>& history) {
  if (work_.empty()) return sample(logits);
  std::copy(logits, logits + vocab_, work_.begin());
  size_t n = history.size();
  size_t from = cfg_.repeat_last_n < 0 || static_cast<size_t>(cfg_.repeat_last_n) >= n ? 0 : n - static_cast<size_t>(cfg_.repeat_last_n);
  for (size_t i = from; i < n; ++i) {
    int32_t id = history[i];
    if (id < 0 || id >= vocab_ || seen_[id]) continue;
    seen_[id] = 1;
    float& l = work_[id];
    l = l > 0 ? l / cfg_.repeat_penalty : l * cfg_.repeat_penalty;
  }
  for (size_t i = from; i < n; ++i)
    if (history[i] >= 0 && history[i] < vocab_) seen_[history[i]] = 0;
  return sample(work_.data());
}

float Sampler::uniform() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  return static_cast<float>((state_ * 0x2545F4914F6CDD1Dull) >> 40) / 16777216.0f;
}

int32_t Sampler::argmax(const float* logits, int32_t n) {
  int32_t best = 0;
  for (int32_t i = 1; i < n; ++i)
    if (logits[i] > logits[best]) best = i;
  return best;
}

int32_t Sampler::sample(const float* logits) {
  if (cfg_.temperature <= 0.f) return argmax(logits, vocab_);
  const float inv_t = 1.f / cfg_.temperature;
  float mx = logits[argmax(logits, vocab_)];
  double sum = 0;
  for (int32_t i = 0; i < vocab_; ++i) sum += probs_[i] = std::exp((logits[i] - mx) * inv_t);
  for (int32_t i = 0; i < vocab_; ++i) probs_[i] = static_cast<float>(probs_[i] / sum);
  if (cfg_.min_p > 0.f) {  // the top probability is exp(0) / sum
    float floor_p = cfg_.min_p * static_cast<float>(1.0 / sum);
    double kept = 0;
    for (int32_t i = 0; i < vocab_; ++i) {
      if (probs_[i] < floor_p) probs_[i] = 0.f;
      kept += probs_[i];
    }
    for (int32_t i = 0; i < vocab_; ++i) probs_[i] = static_cast<float>(probs_[i] / kept);
  }

  // Candidates in order of probability, cut by top-k and then top-p.
  int32_t n = vocab_;
  for (int32_t i = 0; i < vocab_; ++i) order_[i] = i;
  auto by_prob = [&](int32_t a, int32_t b) { return probs_[a] > probs_[b] || (probs_[a] == probs_[b] && a < b); };
  if (cfg_.top_k > 0 && cfg_.top_k < vocab_) {
    std::partial_sort(order_.begin(), order_.begin() + cfg_.top_k, order_.end(), by_prob);
    n = cfg_.top_k;
  } else if (cfg_.top_p > 0.f && cfg_.top_p < 1.f) {
    std::sort(order_.begin(), order_.end(), by_prob);
  } else {
    n = vocab_;  // plain multinomial over everything, in id order
    float r = uniform(), c = 0.f;
    for (int32_t i = 0; i < n; ++i) {
      c += probs_[i];
      if (r < c) return i;
    }
    return vocab_ - 1;
  }
  if (cfg_.top_p > 0.f && cfg_.top_p < 1.f) {
    if (!(cfg_.top_k > 0 && cfg_.top_k < vocab_)) {
      // already fully sorted
    } else {
      std::sort(order_.begin(), order_.begin() + n, by_prob);
    }
    float c = 0.f;
    int32_t keep = n;
    for (int32_t i = 0; i < n; ++i) {
      c += probs_[order_[i]];
      if (c >= cfg_.top_p) { keep = i + 1; break; }
    }
    n = keep;
  }
  float total = 0.f;
  for (int32_t i = 0; i < n; ++i) total += probs_[order_[i]];
  float r = uniform() * total, c = 0.f;
  for (int32_t i = 0; i < n; ++i) {
    c += probs_[order_[i]];
    if (r < c) return order_[i];
  }
  return order_[n - 1];
}

}  // namespace pte
