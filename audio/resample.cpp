#include "audio/resample.h"

#include <cmath>
#include <numeric>
#include <string>

namespace pte::audio {

namespace {

double bessel_i0(double x) {
  double sum = 1, term = 1, q = x * x / 4;
  for (int k = 1; k < 64; ++k) {
    term *= q / (static_cast<double>(k) * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

}  // namespace

Status Resampler::init(int in_rate, int out_rate) {
  if (in_rate <= 0 || out_rate <= 0)
    return Status::error("resampler: bad rates " + std::to_string(in_rate) + " -> " + std::to_string(out_rate));
  passthrough_ = in_rate == out_rate;
  buf_.clear();
  table_.clear();
  base_ = total_in_ = next_out_ = 0;
  if (passthrough_) return Status::ok();
  int64_t g = std::gcd<int64_t, int64_t>(in_rate, out_rate);
  L_ = out_rate / g;
  M_ = in_rate / g;
  // cutoff in cycles per input sample
  const double fc = 0.5 * std::min(1.0, static_cast<double>(out_rate) / in_rate) * 0.945;
  const int zeros = 24;  // zero crossings of the sinc on each side
  half_ = static_cast<int>(std::ceil(zeros / (2 * fc)));
  const double beta = 8.6;  // Kaiser: ~-86 dB side lobes
  const double i0b = bessel_i0(beta);
  const int T = 2 * half_;
  table_.assign(static_cast<size_t>(L_) * T, 0.f);
  const double pi = 3.14159265358979323846;
  for (int64_t p = 0; p < L_; ++p) {
    double frac = static_cast<double>(p) / L_;
    double sum = 0;
    std::vector<double> h(T);
    for (int j = 0; j < T; ++j) {
      double t = (j - half_ + 1) - frac;  // tap j reads input i0 - half + 1 + j
      double r = t / half_;
      double w = std::fabs(r) >= 1 ? 0 : bessel_i0(beta * std::sqrt(1 - r * r)) / i0b;
      double x = 2 * fc * t;
      double s = x == 0 ? 1 : std::sin(pi * x) / (pi * x);
      h[j] = 2 * fc * s * w;
      sum += h[j];
    }
    for (int j = 0; j < T; ++j) table_[static_cast<size_t>(p) * T + j] = static_cast<float>(h[j] / sum);
  }
  // input before the start is silence
  buf_.assign(static_cast<size_t>(half_), 0.f);
  base_ = -half_;
  return Status::ok();
}

void Resampler::emit(std::vector<float>* out, bool final) {
  const int T = 2 * half_;
  const int64_t total_out = final ? (total_in_ * L_ + M_ - 1) / M_ : INT64_MAX;
  const int64_t end = base_ + static_cast<int64_t>(buf_.size());  // one past the last input held
  while (next_out_ < total_out) {
    int64_t i0 = next_out_ * M_ / L_;
    int64_t p = next_out_ * M_ % L_;
    int64_t first = i0 - half_ + 1;
    if (first + T > end) break;
    const float* x = buf_.data() + (first - base_);
    const float* h = table_.data() + p * T;
    float acc = 0;
    for (int j = 0; j < T; ++j) acc += x[j] * h[j];
    out->push_back(acc);
    ++next_out_;
  }
  // drop input no output needs any more
  int64_t keep_from = next_out_ * M_ / L_ - half_ + 1;
  int64_t drop = keep_from - base_;
  if (drop > 8192) {
    buf_.erase(buf_.begin(), buf_.begin() + drop);
    base_ += drop;
  }
}

void Resampler::push(const float* x, size_t n, std::vector<float>* out) {
  if (passthrough_) {
    out->insert(out->end(), x, x + n);
    return;
  }
  buf_.insert(buf_.end(), x, x + n);
  total_in_ += static_cast<int64_t>(n);
  emit(out, false);
}

void Resampler::flush(std::vector<float>* out) {
  if (passthrough_) return;
  buf_.insert(buf_.end(), static_cast<size_t>(2 * half_ + 1), 0.f);
  emit(out, true);
}

}  // namespace pte::audio
