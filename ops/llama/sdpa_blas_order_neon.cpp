// The official runtime's BLAS orders for one- and two-row query blocks (sdpa_blas_order.h)
// in aarch64 NEON: the same operations lane by lane, bit-equal to the scalar forms. The
// 16 lanes of the orders are four q registers (lanes 0-3, 4-7, 8-11, 12-15); the value sum
// takes 4 outputs a register. Fused multiply-adds (vfmaq_f32) where the orders fuse.
#if defined(__aarch64__)
#include <arm_neon.h>

#include <cmath>

#include "ops/llama/sdpa_blas_order.h"

namespace pte {

namespace {

// (v_i + v_i+8), then + 4, + 2, + 1, as reduce16 in sdpa_blas_order.cpp.
inline float reduce16_neon(float32x4_t v0, float32x4_t v1, float32x4_t v2, float32x4_t v3) {
  const float32x4_t r4 = vaddq_f32(vaddq_f32(v0, v2), vaddq_f32(v1, v3));  // (i + i+8) + (i+4 + i+12)
  const float32x2_t r2 = vadd_f32(vget_low_f32(r4), vget_high_f32(r4));     // + 2
  return vget_lane_f32(r2, 0) + vget_lane_f32(r2, 1);                      // + 1
}

}  // namespace

float blas_gemv1_dot_neon(const float* kr, const float* q, int64_t k, int64_t col, int64_t ncols) {
  const int64_t m4 = ncols / 4 * 4;
  if (k <= 0 || col >= m4) return blas_gemv1_dot(kr, q, k, col, ncols);  // the 1 to 3 keys left over
  float32x4_t v0 = vsetq_lane_f32(kr[0] * q[0], vdupq_n_f32(0.f), 0), v1 = vdupq_n_f32(0.f);
  float32x4_t v2 = vdupq_n_f32(0.f), v3 = vdupq_n_f32(0.f);
  const int64_t full = (k - 1) / 16;
  for (int64_t t = 0; t < full; ++t) {
    const float* a = kr + 1 + 16 * t;
    const float* b = q + 1 + 16 * t;
    v0 = vfmaq_f32(v0, vld1q_f32(a), vld1q_f32(b));
    v1 = vfmaq_f32(v1, vld1q_f32(a + 4), vld1q_f32(b + 4));
    v2 = vfmaq_f32(v2, vld1q_f32(a + 8), vld1q_f32(b + 8));
    v3 = vfmaq_f32(v3, vld1q_f32(a + 12), vld1q_f32(b + 12));
  }
  const float s = reduce16_neon(v0, v1, v2, v3);
  float w[16] = {};
  const int64_t e0 = 1 + 16 * full;
  for (int64_t e = e0 + 1; e < k; ++e) w[e - e0] = kr[e] * q[e];
  w[0] = e0 < k ? std::fma(kr[e0], q[e0], s) : s;
  return reduce16_neon(vld1q_f32(w), vld1q_f32(w + 4), vld1q_f32(w + 8), vld1q_f32(w + 12));
}

float blas_gemm2_dot_neon(const float* kr, const float* q, int64_t k) {
  float32x4_t v[4] = {vdupq_n_f32(0.f), vdupq_n_f32(0.f), vdupq_n_f32(0.f), vdupq_n_f32(0.f)};
  for (int64_t e = 0; e < k; e += 16)  // (k % 16 == 0: blas_gemm2_applies)
    for (int r = 0; r < 4; ++r) v[r] = vfmaq_f32(v[r], vld1q_f32(kr + e + 4 * r), vld1q_f32(q + e + 4 * r));
  const float32x4_t s = vaddq_f32(vaddq_f32(vaddq_f32(v[0], v[1]), v[2]), v[3]);  // ((v_r + v_r+4) + v_r+8) + v_r+12
  const float32x4_t h = vpaddq_f32(s, s);                                         // (s0 + s1, s2 + s3, ...)
  return vgetq_lane_f32(h, 0) + vgetq_lane_f32(h, 1);
}

void blas_gemv1_value_neon(const float* v, int64_t vs, const float* p, int64_t L, int64_t D, float* out) {
  const int64_t D16 = D / 16 * 16;
  // rows past the last 16 (fewer than 16: the scalar form's FMA chain in key order)
  if (D16 < D) blas_gemv1_value(v + D16, vs, p, L, D - D16, out + D16);
  for (int64_t d0 = 0; d0 < D16; d0 += 4) {
    auto y = [&](int64_t j) { return vld1q_f32(v + j * vs + d0); };
    auto pr = [&](int64_t j, int64_t o) {  // fma of key j onto key o's rounded product
      return vfmaq_n_f32(vmulq_n_f32(y(o), p[o]), y(j), p[j]);
    };
    float32x4_t acc = vdupq_n_f32(0.f);
    int64_t j = 0;
    if (L >= 8) {
      acc = vaddq_f32(vaddq_f32(pr(0, 2), pr(1, 3)), vaddq_f32(pr(4, 6), pr(5, 7)));
      for (j = 8; j + 8 <= L; j += 8) {
        float32x4_t x = vfmaq_n_f32(acc, y(j + 6), p[j + 6]);
        x = vfmaq_n_f32(x, y(j + 4), p[j + 4]);
        x = vaddq_f32(x, pr(j + 5, j + 7));
        acc = vaddq_f32(x, vaddq_f32(pr(j, j + 2), pr(j + 1, j + 3)));
      }
    }
    for (; j < L; ++j) acc = vfmaq_n_f32(acc, y(j), p[j]);
    vst1q_f32(out + d0, acc);
  }
}

}  // namespace pte
#endif  // defined(__aarch64__)
