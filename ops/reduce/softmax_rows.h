// pte-run kernels in ops/reduce: one softmax row, the scalar reference
// (softmax_row) and the float32 fast path (softmax_row_f32_autovec), shared by
// softmax.cpp and its test.
#pragma once
#include <cstring>
#include <limits>

#include "ops/reduce/reduce_util.h"

namespace pte {

// Scalar reference: n elements of x (stride sx) to y (stride sy). C is the compute
// type (float, or double when a side is double); the sum is accumulated in double.
template <class T, class O, class C, bool Log>
void softmax_row(const T* x, int64_t sx, O* y, int64_t sy, int64_t n) {
  C m = -std::numeric_limits<C>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    C v = static_cast<C>(x[i * sx]);
    if (v > m) m = v;  // a NaN is skipped here but poisons the sum below
  }
  double s = 0;
  if constexpr (Log) {
    for (int64_t i = 0; i < n; ++i) s += std::exp(static_cast<C>(x[i * sx]) - m);
    const C logs = static_cast<C>(std::log(s));
    for (int64_t i = 0; i < n; ++i) y[i * sy] = convert<O>(static_cast<C>(x[i * sx]) - m - logs);
  } else if constexpr (std::is_same_v<O, C>) {
    for (int64_t i = 0; i < n; ++i) {
      C e = std::exp(static_cast<C>(x[i * sx]) - m);
      y[i * sy] = e;
      s += e;
    }
    const C r = static_cast<C>(1.0 / s);
    for (int64_t i = 0; i < n; ++i) y[i * sy] *= r;
  } else {  // a 16-bit out: keep the exponentials in C, round once
    for (int64_t i = 0; i < n; ++i) s += std::exp(static_cast<C>(x[i * sx]) - m);
    const C r = static_cast<C>(1.0 / s);
    for (int64_t i = 0; i < n; ++i) y[i * sy] = convert<O>(std::exp(static_cast<C>(x[i * sx]) - m) * r);
  }
}

// ---- float32 fast path ---------------------------------------------------------
// exp for float written without branches so that loops over it auto-vectorise
// (SSE2 at the baseline, wider with -march): Cody-Waite range reduction, Cephes'
// degree-6 polynomial, 2^n through the exponent bits. The special cases are
// selected with integer masks on the bit patterns, because GCC will not if-convert
// float comparisons under -ftrapping-math. Within 1 ulp of exp over the softmax
// domain; exactly 0 below -87.33 (where expf gives subnormals), +inf above 88.37,
// NaN kept. Tested against the scalar reference (softmax_row) in softmax_test.cpp.
inline float exp_f32_poly(float x) {
  const float lo = -87.3365447504019f, hi = 88.3762626647949f;
  int32_t b, lob, hib;
  std::memcpy(&b, &x, 4);
  std::memcpy(&lob, &lo, 4);
  std::memcpy(&hib, &hi, 4);
  const int32_t ax = b & 0x7fffffff;
  const bool neg = b < 0;
  const int32_t tiny = -static_cast<int32_t>(neg & (ax > (lob & 0x7fffffff)));  // x < lo, -inf too
  const int32_t big = -static_cast<int32_t>(!neg & (ax > hib));                // x > hi, +inf too
  const int32_t nan = -static_cast<int32_t>(ax > 0x7f800000);
  const int32_t cb = (b & ~(tiny | big | nan)) | (lob & tiny) | (hib & big);  // clamped, NaN -> 0
  float xc;
  std::memcpy(&xc, &cb, 4);
  const float magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float n = (xc * 1.44269504088896341f + magic) - magic;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float e = p * r * r + r + 1.0f;
  const int32_t sbits = (static_cast<int32_t>(n) + 127) << 23;  // n in [-126, 128]
  float scale;
  std::memcpy(&scale, &sbits, 4);
  e *= scale;
  int32_t eb;
  std::memcpy(&eb, &e, 4);
  eb = (eb & ~(tiny | big | nan)) | (0x7f800000 & big) | (b & nan);
  std::memcpy(&e, &eb, 4);
  return e;
}

// softmax / log_softmax of one contiguous float row (n >= 1): the body of the
// float32 fast path.
template <bool Log>
inline void softmax_row_f32_body(const float* x, float* y, int64_t n) {
  float mm[8];
  for (int k = 0; k < 8; ++k) mm[k] = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) mm[k] = x[i + k] > mm[k] ? x[i + k] : mm[k];
  for (; i < n; ++i) mm[0] = x[i] > mm[0] ? x[i] : mm[0];
  float m = mm[0];
  for (int k = 1; k < 8; ++k) m = mm[k] > m ? mm[k] : m;
  for (int64_t j = 0; j < n; ++j) y[j] = exp_f32_poly(x[j] - m);
  double s = sum_row_f64(y, n, 1);
  if constexpr (Log) {
    const float logs = static_cast<float>(std::log(s));
    for (int64_t j = 0; j < n; ++j) y[j] = x[j] - m - logs;
  } else {
    const float r = static_cast<float>(1.0 / s);
    for (int64_t j = 0; j < n; ++j) y[j] *= r;
  }
}

// The float32 fast path, compiled from softmax_row_f32_body; on x86-64 with GCC an
// AVX2 clone is picked at load time when the CPU has it (target_clones).
void softmax_row_f32_autovec(const float* x, float* y, int64_t n);
void log_softmax_row_f32_autovec(const float* x, float* y, int64_t n);

}  // namespace pte
