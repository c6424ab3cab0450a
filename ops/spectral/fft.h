// pte-run kernels: a plain complex discrete Fourier transform of any length, the scalar
// reference behind aten::_fft_r2c (fft_r2c.cpp). Power-of-two lengths use an iterative
// radix-2 FFT; other lengths (Whisper's n_fft 400) Bluestein's chirp-z algorithm over a
// power-of-two FFT of at least 2n - 1 points. Double precision throughout.
// The plan lives in caller-provided memory (the kernel's scratch): no allocation.
#pragma once
#include <complex>
#include <cstddef>

namespace pte::spectral {

using cd = std::complex<double>;

class FftPlan {
 public:
  // Complex elements of workspace a plan of length n needs.
  static size_t workspace_elems(int64_t n);
  // n >= 1; `work` holds workspace_elems(n) elements and outlives the plan.
  void init(int64_t n, cd* work);
  int64_t size() const { return n_; }
  // In place: x[k] = sum_j x[j] exp(-2 pi i j k / n) (forward, unnormalised).
  void forward(cd* x);

 private:
  void pow2(cd* x, int64_t m, const cd* tw) const;
  int64_t n_ = 0, m_ = 0;  // m_: power-of-two FFT size (n_ itself, or Bluestein's)
  bool bluestein_ = false;
  cd* tw_ = nullptr;     // m_/2 twiddles exp(-2 pi i k / m)
  cd* chirp_ = nullptr;  // n: exp(-i pi k^2 / n)
  cd* bfft_ = nullptr;   // m: FFT of the conjugate chirp, zero padded and wrapped
  cd* buf_ = nullptr;    // m: work buffer
};

}  // namespace pte::spectral
