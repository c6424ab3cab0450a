// f32 add / multiply rows (see vbinary_f32.h): scalar reference, AVX-512F variant, aarch64
// NEON variant.
#include "ops/elementwise/vbinary_f32.h"

#if defined(__x86_64__)
// GCC 12: false -Wmaybe-uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "ops/isa.h"

namespace pte::ew {

namespace {

template <bool Mul>
void row_scalar(float* py, const float* pa, int64_t ia, const float* pb, int64_t ib, int64_t n) {
  for (int64_t j = 0; j < n; ++j) py[j] = Mul ? pa[j * ia] * pb[j * ib] : pa[j * ia] + pb[j * ib];
}

#if defined(__x86_64__)
// 16 lanes at a time; strides other than 0 and 1 take the scalar loop.
template <bool Mul>
__attribute__((target("avx512f"))) void row_avx512(float* py, const float* pa, int64_t ia, const float* pb, int64_t ib,
                                                  int64_t n) {
  if (ia > 1 || ib > 1 || ia < 0 || ib < 0) return row_scalar<Mul>(py, pa, ia, pb, ib, n);
  const __m512 a0 = _mm512_set1_ps(pa[0]), b0 = _mm512_set1_ps(pb[0]);
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 m = n - j >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (n - j)) - 1);
    const __m512 va = ia ? _mm512_maskz_loadu_ps(m, pa + j) : a0, vb = ib ? _mm512_maskz_loadu_ps(m, pb + j) : b0;
    _mm512_mask_storeu_ps(py + j, m, Mul ? _mm512_mul_ps(va, vb) : _mm512_add_ps(va, vb));
  }
}
#endif

#if defined(__aarch64__)
// 8 lanes a step (two q registers), then 4, then the scalar tail; strides other than 0 and
// 1 take the scalar loop.
template <bool Mul>
inline float32x4_t op4(float32x4_t a, float32x4_t b) {
  return Mul ? vmulq_f32(a, b) : vaddq_f32(a, b);
}
template <bool Mul>
void row_neon(float* py, const float* pa, int64_t ia, const float* pb, int64_t ib, int64_t n) {
  if (ia > 1 || ib > 1 || ia < 0 || ib < 0) return row_scalar<Mul>(py, pa, ia, pb, ib, n);
  const float32x4_t a0 = vdupq_n_f32(pa[0]), b0 = vdupq_n_f32(pb[0]);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const float32x4_t va0 = ia ? vld1q_f32(pa + j) : a0, va1 = ia ? vld1q_f32(pa + j + 4) : a0;
    const float32x4_t vb0 = ib ? vld1q_f32(pb + j) : b0, vb1 = ib ? vld1q_f32(pb + j + 4) : b0;
    vst1q_f32(py + j, op4<Mul>(va0, vb0));
    vst1q_f32(py + j + 4, op4<Mul>(va1, vb1));
  }
  if (j + 4 <= n) {
    vst1q_f32(py + j, op4<Mul>(ia ? vld1q_f32(pa + j) : a0, ib ? vld1q_f32(pb + j) : b0));
    j += 4;
  }
  for (; j < n; ++j) py[j] = Mul ? pa[j * ia] * pb[j * ib] : pa[j * ia] + pb[j * ib];
}
#endif

}  // namespace

void vadd_row_f32_scalar(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n) {
  row_scalar<false>(y, a, ia, b, ib, n);
}
void vmul_row_f32_scalar(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n) {
  row_scalar<true>(y, a, ia, b, ib, n);
}
#if defined(__x86_64__)
void vadd_row_f32_avx512(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n) {
  row_avx512<false>(y, a, ia, b, ib, n);
}
void vmul_row_f32_avx512(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n) {
  row_avx512<true>(y, a, ia, b, ib, n);
}
#endif
#if defined(__aarch64__)
void vadd_row_f32_neon(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n) {
  row_neon<false>(y, a, ia, b, ib, n);
}
void vmul_row_f32_neon(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n) {
  row_neon<true>(y, a, ia, b, ib, n);
}
#endif

VRowF32 vaddmul_row_f32_simd(bool mul) {
#if defined(__x86_64__)
  if (isa::cpu().avx512f) return mul ? vmul_row_f32_avx512 : vadd_row_f32_avx512;
#endif
#if defined(__aarch64__)
  if (isa::cpu().neon) return mul ? vmul_row_f32_neon : vadd_row_f32_neon;
#endif
  (void)mul;
  return nullptr;
}

}  // namespace pte::ew
