// pte-run XNNPACK delegate: the AVX-512F forms of XNNPACK's transcendental kernels
// (xnn_math_kernels.h with 16-lane vectors) and of its softmax row
// (raddstoreexpminusmax avx512f_rr2_p5_u64_acc2). Tested bit-equal to the lane-by-lane
// emulation in xnn_math_test.cpp.
#if defined(__x86_64__)  // x86 only: other ISAs take the scalar reference
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

#include "ops/xnn_math/xnn_math_isa.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#pragma GCC optimize("fp-contract=off")
#endif

namespace pte::xnn {
namespace {

inline __mmask16 first(int k) { return static_cast<__mmask16>((1u << k) - 1); }

struct Avx512Ops {
  using V = __m512;
  static constexpr bool kFma = true;
  static constexpr int kLanes = 16;
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V load_tail(const float* p, int k) { return _mm512_maskz_loadu_ps(first(k), p); }
  static void store_tail(float* p, V v, int k) { _mm512_mask_storeu_ps(p, first(k), v); }
  static V add_tail(V acc, V f, int k) { return _mm512_mask_add_ps(acc, first(k), acc, f); }
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

}  // namespace
}  // namespace pte::xnn

#include "ops/xnn_math/xnn_math_kernels.h"

namespace pte::xnn::isa {

void unary_avx512(Fn f, const float* x, float* y, int64_t n) {
  // sigmoid: the AVX2 kernel, not XNNPACK's AVX-512 choice (xnn_math.cpp)
  unary_kernel<Avx512Ops>(f, x, y, n);
}

void softmax_avx512(const float* x, float* y, int64_t n) { softmax_kernel<Avx512Ops>(x, y, n); }

}  // namespace pte::xnn::isa

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif  // defined(__x86_64__)
