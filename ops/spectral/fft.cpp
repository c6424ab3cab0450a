// Complex FFT of any length (see fft.h).
#include "ops/spectral/fft.h"

#include <cmath>

namespace pte::spectral {

namespace {
int64_t pow2_at_least(int64_t v) {
  int64_t m = 1;
  while (m < v) m <<= 1;
  return m;
}
bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }
}  // namespace

size_t FftPlan::workspace_elems(int64_t n) {
  if (is_pow2(n)) return static_cast<size_t>(n / 2 + 1);
  int64_t m = pow2_at_least(2 * n - 1);
  return static_cast<size_t>(m / 2 + 1 + n + 2 * m);
}

void FftPlan::init(int64_t n, cd* work) {
  n_ = n;
  bluestein_ = !is_pow2(n);
  m_ = bluestein_ ? pow2_at_least(2 * n - 1) : n;
  tw_ = work;
  for (int64_t k = 0; k < m_ / 2; ++k) {
    double a = -2.0 * M_PI * static_cast<double>(k) / static_cast<double>(m_);
    tw_[k] = cd(std::cos(a), std::sin(a));
  }
  if (!bluestein_) return;
  chirp_ = work + m_ / 2 + 1;
  bfft_ = chirp_ + n_;
  buf_ = bfft_ + m_;
  for (int64_t k = 0; k < n_; ++k) {
    // k^2 mod 2n keeps the angle small and exact for large k
    int64_t k2 = (k * k) % (2 * n_);
    double a = -M_PI * static_cast<double>(k2) / static_cast<double>(n_);
    chirp_[k] = cd(std::cos(a), std::sin(a));
  }
  for (int64_t k = 0; k < m_; ++k) bfft_[k] = 0;
  bfft_[0] = std::conj(chirp_[0]);
  for (int64_t k = 1; k < n_; ++k) bfft_[k] = bfft_[m_ - k] = std::conj(chirp_[k]);
  pow2(bfft_, m_, tw_);
}

void FftPlan::pow2(cd* x, int64_t m, const cd* tw) const {
  for (int64_t i = 1, j = 0; i < m; ++i) {  // bit reversal
    int64_t bit = m >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (int64_t len = 2; len <= m; len <<= 1) {
    int64_t half = len / 2, step = m / len;
    for (int64_t s = 0; s < m; s += len)
      for (int64_t k = 0; k < half; ++k) {
        cd t = x[s + k + half] * tw[k * step];
        x[s + k + half] = x[s + k] - t;
        x[s + k] += t;
      }
  }
}

void FftPlan::forward(cd* x) {
  if (!bluestein_) {
    pow2(x, n_, tw_);
    return;
  }
  // X[k] = chirp[k] * sum_j (x[j] chirp[j]) conj(chirp[k - j]): a circular convolution of length m
  for (int64_t j = 0; j < n_; ++j) buf_[j] = x[j] * chirp_[j];
  for (int64_t j = n_; j < m_; ++j) buf_[j] = 0;
  pow2(buf_, m_, tw_);
  for (int64_t j = 0; j < m_; ++j) buf_[j] = std::conj(buf_[j] * bfft_[j]);  // inverse via conj
  pow2(buf_, m_, tw_);
  double inv = 1.0 / static_cast<double>(m_);
  for (int64_t k = 0; k < n_; ++k) x[k] = std::conj(buf_[k]) * inv * chirp_[k];
}

}  // namespace pte::spectral
