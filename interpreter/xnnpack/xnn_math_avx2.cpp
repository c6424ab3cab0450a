// pte-run XNNPACK delegate: the AVX2+FMA3 forms of XNNPACK's transcendental kernels
// (xnn_math_kernels.h with 8-lane vectors; the fma3 kernels for exp, tanh, gelu, log,
// hardswish, avx2_rr1_p5 for sigmoid) and of its softmax row (raddstoreexpminusmax
// avx2_rr2_p5_u32_acc2). What XNNPACK runs on AVX2 machines without AVX-512; tested
// bit-equal to the lane-by-lane emulation in xnn_math_test.cpp.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "interpreter/xnnpack/xnn_math_isa.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#pragma GCC optimize("fp-contract=off")
#endif

namespace pte::xnn {
namespace {

struct Avx2Ops {
  using V = __m256;
  static constexpr bool kFma = true;
  static V c(float v) { return _mm256_set1_ps(v); }
  static V bits(uint32_t u) { return _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int32_t>(u))); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V bor(V a, V b) { return _mm256_or_ps(a, b); }
  static V band(V a, V b) { return _mm256_and_ps(a, b); }
  static V sll23(V a) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(a), 23)); }
  static V zero_if_lt(V f, V a, V b) { return _mm256_andnot_ps(_mm256_cmp_ps(a, b, _CMP_LT_OS), f); }
  static V blend_sign(V if_neg, V if_pos, V x) { return _mm256_blendv_ps(if_pos, if_neg, x); }
  static V getexp(V a) {
    // the FMA3 kernels' bit trick (see LaneOps::getexp in xnn_math.cpp)
    a = _mm256_or_ps(_mm256_and_ps(_mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_EQ_OQ), _mm256_set1_ps(-0.0f)), a);
    const __m256i e = _mm256_srai_epi32(_mm256_castps_si256(_mm256_and_ps(a, bits(0xFF800000u))), 8);
    return _mm256_sub_ps(_mm256_or_ps(_mm256_set1_ps(256.0f), _mm256_castsi256_ps(e)), _mm256_set1_ps(383.0f));
  }
};

template <__m256 (*K)(__m256)>
void run(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, K(_mm256_loadu_ps(x + i)));
  if (i < n) {
    float bx[8] = {}, by[8];
    std::memcpy(bx, x + i, static_cast<size_t>(n - i) * sizeof(float));
    _mm256_storeu_ps(by, K(_mm256_loadu_ps(bx)));
    std::memcpy(y + i, by, static_cast<size_t>(n - i) * sizeof(float));
  }
}

}  // namespace
}  // namespace pte::xnn

#include "interpreter/xnnpack/xnn_math_kernels.h"

namespace pte::xnn::isa {

void unary_avx2(Fn f, const float* x, float* y, int64_t n) {
  switch (f) {
    case Fn::kExp: return run<exp_kernel<Avx2Ops>>(x, y, n);
    case Fn::kTanh: return run<tanh_kernel<Avx2Ops>>(x, y, n);
    case Fn::kGelu: return run<gelu_kernel<Avx2Ops>>(x, y, n);
    case Fn::kLog: return run<log_kernel<Avx2Ops>>(x, y, n);
    case Fn::kHardswish: return run<hardswish_kernel<Avx2Ops>>(x, y, n);
    case Fn::kSigmoid: return run<sigmoid_p5_kernel<Avx2Ops>>(x, y, n);
  }
}

void softmax_avx2(const float* x, float* y, int64_t n) {
  using S = Avx2Ops;
  float mx = x[0];
  for (int64_t i = 1; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  const __m256 vmax = _mm256_set1_ps(mx);
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 f0 = expminus_kernel<S>(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmax));
    const __m256 f1 = expminus_kernel<S>(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), vmax));
    const __m256 f2 = expminus_kernel<S>(_mm256_sub_ps(_mm256_loadu_ps(x + i + 16), vmax));
    const __m256 f3 = expminus_kernel<S>(_mm256_sub_ps(_mm256_loadu_ps(x + i + 24), vmax));
    _mm256_storeu_ps(y + i, f0);
    _mm256_storeu_ps(y + i + 8, f1);
    _mm256_storeu_ps(y + i + 16, f2);
    _mm256_storeu_ps(y + i + 24, f3);
    acc0 = _mm256_add_ps(acc0, f0);
    acc1 = _mm256_add_ps(acc1, f1);
    acc0 = _mm256_add_ps(acc0, f2);
    acc1 = _mm256_add_ps(acc1, f3);
  }
  __m256 acc = _mm256_add_ps(acc0, acc1);
  for (; i + 8 <= n; i += 8) {
    const __m256 f = expminus_kernel<S>(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmax));
    _mm256_storeu_ps(y + i, f);
    acc = _mm256_add_ps(acc, f);
  }
  if (i < n) {
    float bx[8] = {}, by[8];
    const int r = static_cast<int>(n - i);
    std::memcpy(bx, x + i, static_cast<size_t>(r) * sizeof(float));
    __m256 f = expminus_kernel<S>(_mm256_sub_ps(_mm256_loadu_ps(bx), vmax));
    _mm256_storeu_ps(by, f);
    std::memcpy(y + i, by, static_cast<size_t>(r) * sizeof(float));
    alignas(32) int32_t mask[8];
    for (int l = 0; l < 8; ++l) mask[l] = l < r ? -1 : 0;
    acc = _mm256_add_ps(acc, _mm256_and_ps(f, _mm256_castsi256_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(mask)))));
  }
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  const float sum = _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
  const __m256 scale = _mm256_set1_ps(1.0f / sum);
  i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), scale));
  const float s1 = 1.0f / sum;
  for (; i < n; ++i) y[i] *= s1;
}

}  // namespace pte::xnn::isa

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
