// pte-run XNNPACK delegate: the AVX-512F forms of XNNPACK's transcendental kernels
// (xnn_math_kernels.h with 16-lane vectors) and of its softmax row
// (raddstoreexpminusmax avx512f_rr2_p5_u64_acc2). Tested bit-equal to the lane-by-lane
// emulation in xnn_math_test.cpp.
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

#include "interpreter/xnnpack/xnn_math_isa.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#pragma GCC optimize("fp-contract=off")
#endif

namespace pte::xnn {
namespace {

struct Avx512Ops {
  using V = __m512;
  static constexpr bool kFma = true;
  static V c(float v) { return _mm512_set1_ps(v); }
  static V bits(uint32_t u) { return _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int32_t>(u))); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V div(V a, V b) { return _mm512_div_ps(a, b); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V min(V a, V b) { return _mm512_min_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static V bor(V a, V b) { return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_castps_si512(b))); }
  static V band(V a, V b) { return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_castps_si512(b))); }
  static V sll23(V a) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(a), 23)); }
  static V zero_if_lt(V f, V a, V b) { return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OS), f, _mm512_setzero_ps()); }
  static V blend_sign(V if_neg, V if_pos, V x) {
    const __mmask16 neg = _mm512_test_epi32_mask(_mm512_castps_si512(x), _mm512_set1_epi32(static_cast<int32_t>(0x80000000u)));
    return _mm512_mask_blend_ps(neg, if_pos, if_neg);
  }
  static V getexp(V a) {
    const __mmask16 zero = _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_EQ_OQ);
    const __mmask16 neg = _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_LT_OQ);
    __m512i r = _mm512_castps_si512(_mm512_getexp_ps(a));
    r = _mm512_mask_set1_epi32(r, zero, static_cast<int32_t>(0xFF800000u));
    r = _mm512_mask_set1_epi32(r, neg, 0x7FC00001);
    return _mm512_castsi512_ps(r);
  }
};

template <__m512 (*K)(__m512)>
void run(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, K(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, K(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

}  // namespace
}  // namespace pte::xnn

#include "interpreter/xnnpack/xnn_math_kernels.h"

namespace pte::xnn::isa {

void unary_avx512(Fn f, const float* x, float* y, int64_t n) {
  switch (f) {
    case Fn::kExp: return run<exp_kernel<Avx512Ops>>(x, y, n);
    case Fn::kTanh: return run<tanh_kernel<Avx512Ops>>(x, y, n);
    case Fn::kGelu: return run<gelu_kernel<Avx512Ops>>(x, y, n);
    case Fn::kLog: return run<log_kernel<Avx512Ops>>(x, y, n);
    case Fn::kHardswish: return run<hardswish_kernel<Avx512Ops>>(x, y, n);
    case Fn::kSigmoid: return run<sigmoid_p5_kernel<Avx512Ops>>(x, y, n);  // not XNNPACK's AVX-512 choice
  }
}

void softmax_avx512(const float* x, float* y, int64_t n) {
  using S = Avx512Ops;
  float mx = x[0];
  for (int64_t i = 1; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  const __m512 vmax = _mm512_set1_ps(mx);
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 f0 = expminus_kernel<S>(_mm512_sub_ps(_mm512_loadu_ps(x + i), vmax));
    const __m512 f1 = expminus_kernel<S>(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), vmax));
    const __m512 f2 = expminus_kernel<S>(_mm512_sub_ps(_mm512_loadu_ps(x + i + 32), vmax));
    const __m512 f3 = expminus_kernel<S>(_mm512_sub_ps(_mm512_loadu_ps(x + i + 48), vmax));
    _mm512_storeu_ps(y + i, f0);
    _mm512_storeu_ps(y + i + 16, f1);
    _mm512_storeu_ps(y + i + 32, f2);
    _mm512_storeu_ps(y + i + 48, f3);
    acc0 = _mm512_add_ps(acc0, f0);
    acc1 = _mm512_add_ps(acc1, f1);
    acc0 = _mm512_add_ps(acc0, f2);
    acc1 = _mm512_add_ps(acc1, f3);
  }
  __m512 acc = _mm512_add_ps(acc0, acc1);
  for (; i + 16 <= n; i += 16) {
    const __m512 f = expminus_kernel<S>(_mm512_sub_ps(_mm512_loadu_ps(x + i), vmax));
    _mm512_storeu_ps(y + i, f);
    acc = _mm512_add_ps(acc, f);
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 f = expminus_kernel<S>(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), vmax));
    _mm512_mask_storeu_ps(y + i, m, f);
    acc = _mm512_mask_add_ps(acc, m, acc, f);
  }
  // halving tree: 16 -> 8 -> 4 -> 2 -> 1 (as _mm512_reduce_add_ps)
  alignas(64) float h[16];
  _mm512_store_ps(h, acc);
  for (int w = 8; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) h[l] = h[l] + h[l + w];
  const float sum = h[0];
  const __m512 scale = _mm512_set1_ps(1.0f / sum);
  i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), scale));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + i), scale));
  }
}

}  // namespace pte::xnn::isa

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
