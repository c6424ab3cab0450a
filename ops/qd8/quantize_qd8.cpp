// fp32 -> qd8 (dynamic int8, one scale / zero point per row: XNNPACK's asymmetric rule),
// the scalar reference and AVX-512 and aarch64 NEON variants equal to it bit for bit
// (finite inputs).
#include "ops/qd8/quantize_qd8.h"

#if defined(__x86_64__)
// GCC 12: false -W(maybe-)uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include <algorithm>
#include <cmath>

#include "ops/isa.h"
#include "ops/qd8/qgemm_qd8.h"

namespace pte::xnn {

namespace {

// scale and zero point from the row's range (which always includes 0)
// XNNPACK's rule: the multiplier q = 255 / (max - min) (over the row and 0), the zero
// point from whichever end rounds better, nudged to an integer; values are quantized as
// round(x * q) + zp and dequantized with 1 / q (what XNNPACK stores), never with
// (max - min) / 255. Returns q; *scale = 1 / q.
float params_from_range(float mn, float mx, float* scale, int32_t* zp) {
  const float qmn = -128.0f, qmx = 127.0f;
  const float q = mn == mx ? 1.0f : (qmx - qmn) / (mx - mn);
  const float dmin = mn * q, dmax = mx * q;
  float z = (qmn + dmin) + (qmx + dmax) > 0 ? qmn - dmin : qmx - dmax;
  z = std::min(std::max(z, qmn), qmx);
  *scale = 1.0f / q;
  *zp = static_cast<int32_t>(std::lrintf(z));
  return q;
}

}  // namespace

void quantize_qd8_row_scalar(const float* x, int64_t k, int8_t* y, float* scale, int32_t* zp) {
  float mn = 0.0f, mx = 0.0f;
  for (int64_t i = 0; i < k; ++i) mn = std::min(mn, x[i]), mx = std::max(mx, x[i]);
  const float inv = params_from_range(mn, mx, scale, zp), z = static_cast<float>(*zp);
  for (int64_t i = 0; i < k; ++i) {
    const float q = std::nearbyint(x[i] * inv) + z;
    y[i] = static_cast<int8_t>(std::min(std::max(q, -128.0f), 127.0f));
  }
}

#if defined(__x86_64__)
// clang (the fuzz build) has no GCC target pragma: the same target as a function attribute.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#endif
// Lane-wise min / max from 0 (min_ps(x, m) == std::min(m, x); +0 never yields to -0 in
// either), the same scalar parameters, then round-to-nearest-even (nearbyint), + zero
// point, clamp, narrow.
void quantize_qd8_row_avx512(const float* x, int64_t k, int8_t* y, float* scale, int32_t* zp) {
  __m512 vmn = _mm512_setzero_ps(), vmx = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    vmn = _mm512_min_ps(v, vmn), vmx = _mm512_max_ps(v, vmx);
  }
  if (i < k) {
    const __mmask16 m = static_cast<__mmask16>((1u << (k - i)) - 1);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);  // zeros: within the range already
    vmn = _mm512_min_ps(v, vmn), vmx = _mm512_max_ps(v, vmx);
  }
  float mn = _mm512_reduce_min_ps(vmn), mx = _mm512_reduce_max_ps(vmx);
  const __m512 inv = _mm512_set1_ps(params_from_range(mn, mx, scale, zp)), z = _mm512_set1_ps(static_cast<float>(*zp));
  const __m512 lo = _mm512_set1_ps(-128.0f), hi = _mm512_set1_ps(127.0f);
  for (i = 0; i < k; i += 16) {
    const __mmask16 m = k - i >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (k - i)) - 1);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    __m512 q = _mm512_add_ps(_mm512_roundscale_ps(_mm512_mul_ps(v, inv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), z);
    q = _mm512_min_ps(_mm512_max_ps(q, lo), hi);
    _mm_mask_storeu_epi8(y + i, m, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(q)));
  }
}
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif  // defined(__x86_64__)

#if defined(__aarch64__)
// Lane-wise min / max from +0 as compare-and-select (x < m ? x : m is std::min(m, x); a -0
// never replaces the +0 start, as in the reference), the same scalar parameters, then
// round-to-nearest-even (FRINTN: nearbyint in the default mode), + zero point, clamp,
// narrow. 16 values a step.
void quantize_qd8_row_neon(const float* x, int64_t k, int8_t* y, float* scale, int32_t* zp) {
  float32x4_t vmn = vdupq_n_f32(0.0f), vmx = vdupq_n_f32(0.0f);
  int64_t i = 0;
  for (; i + 4 <= k; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    vmn = vbslq_f32(vcltq_f32(v, vmn), v, vmn);
    vmx = vbslq_f32(vcgtq_f32(v, vmx), v, vmx);
  }
  float mn = 0.0f, mx = 0.0f;
  for (; i < k; ++i) mn = std::min(mn, x[i]), mx = std::max(mx, x[i]);
  float ln[4], lx[4];
  vst1q_f32(ln, vmn);
  vst1q_f32(lx, vmx);
  for (int l = 0; l < 4; ++l) mn = std::min(mn, ln[l]), mx = std::max(mx, lx[l]);
  const float32x4_t inv = vdupq_n_f32(params_from_range(mn, mx, scale, zp)), z = vdupq_n_f32(static_cast<float>(*zp));
  const float32x4_t lo = vdupq_n_f32(-128.0f), hi = vdupq_n_f32(127.0f);
  const auto q4 = [&](const float* p) {
    const float32x4_t q = vaddq_f32(vrndnq_f32(vmulq_f32(vld1q_f32(p), inv)), z);
    return vcvtq_s32_f32(vminq_f32(vmaxq_f32(q, lo), hi));  // exact: q is an integer in range
  };
  for (i = 0; i + 16 <= k; i += 16) {
    const int16x8_t a = vcombine_s16(vmovn_s32(q4(x + i)), vmovn_s32(q4(x + i + 4)));
    const int16x8_t b = vcombine_s16(vmovn_s32(q4(x + i + 8)), vmovn_s32(q4(x + i + 12)));
    vst1q_s8(y + i, vcombine_s8(vmovn_s16(a), vmovn_s16(b)));
  }
  const float fz = static_cast<float>(*zp), finv = vgetq_lane_f32(inv, 0);
  for (; i < k; ++i) {
    const float q = std::nearbyint(x[i] * finv) + fz;
    y[i] = static_cast<int8_t>(std::min(std::max(q, -128.0f), 127.0f));
  }
}
#endif

void quantize_qd8_rows(const float* x, int64_t rows, int64_t k, int8_t* y, float* scale, int32_t* zp) {
  [[maybe_unused]] const bool simd = cpu_has_avx512_vnni();
#if defined(__aarch64__)
  if (isa::cpu().neon) {
    for (int64_t r = 0; r < rows; ++r) quantize_qd8_row_neon(x + r * k, k, y + r * k, scale + r, zp + r);
    return;
  }
#endif
  for (int64_t r = 0; r < rows; ++r) {
#if defined(__x86_64__)
    if (simd) {
      quantize_qd8_row_avx512(x + r * k, k, y + r * k, scale + r, zp + r);
      continue;
    }
#endif
    quantize_qd8_row_scalar(x + r * k, k, y + r * k, scale + r, zp + r);
  }
}

}  // namespace pte::xnn
