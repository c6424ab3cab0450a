// pte-run XNNPACK delegate: the AVX2+FMA3 forms of XNNPACK's transcendental kernels
// (xnn_math_kernels.h with 8-lane vectors; the fma3 kernels for exp, tanh, gelu, log,
// hardswish, avx2_rr1_p5 for sigmoid) and of its softmax row (raddstoreexpminusmax
// avx2_rr2_p5_u32_acc2). What XNNPACK runs on AVX2 machines without AVX-512; tested
// bit-equal to the lane-by-lane emulation in xnn_math_test.cpp.
#if defined(__x86_64__)  // x86 only: other ISAs take the scalar reference
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "ops/xnn_math/xnn_math_isa.h"

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
  static constexpr int kLanes = 8;
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V load_tail(const float* p, int k) {
    float b[8] = {};
    std::memcpy(b, p, static_cast<size_t>(k) * sizeof(float));
    return _mm256_loadu_ps(b);
  }
  static void store_tail(float* p, V v, int k) {
    float b[8];
    _mm256_storeu_ps(b, v);
    std::memcpy(p, b, static_cast<size_t>(k) * sizeof(float));
  }
  static V add_tail(V acc, V f, int k) {  // the kernel adds f AND the load mask
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_add_ps(acc, _mm256_and_ps(f, _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(k), lane))));
  }
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

}  // namespace
}  // namespace pte::xnn

#include "ops/xnn_math/xnn_math_kernels.h"

namespace pte::xnn::isa {

void unary_avx2(Fn f, const float* x, float* y, int64_t n) {
  unary_kernel<Avx2Ops>(f, x, y, n);
}

void softmax_avx2(const float* x, float* y, int64_t n) { softmax_kernel<Avx2Ops>(x, y, n); }

}  // namespace pte::xnn::isa

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif  // defined(__x86_64__)
