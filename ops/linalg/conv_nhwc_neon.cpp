// pte-run linalg: the NEON micro-kernel of the NHWC convolution (conv_nhwc.h), aarch64: up to 4
// pixels x 32 channels, one 16-channel half of the sliver at a time (16 accumulators, 4 q
// registers of the sliver row, 4 of pixels' next four k values: each sliver row feeds 16
// lane-indexed FMAs), the pixels' rows taken segment by segment from their pointers; the
// bias, the residual and the clamp in the same pass as the store.
#if defined(__aarch64__)
#include <arm_neon.h>

#include <algorithm>

#include "ops/linalg/conv_nhwc.h"

namespace pte::linalg {

namespace {

template <int MR>
inline void tile(int64_t kc, int64_t seg, const float* const* a, int64_t a_ss, const float* b, float* c, int64_t c_rs,
                 int64_t nc, const float* bias, const float* res, bool first, bool last, float lo, float hi,
                 const char* pf, int64_t pf_lines) {
  for (int64_t i = 0; i < pf_lines; ++i) __builtin_prefetch(pf + i * 64, 0, 2);  // (ahead of the product: few lines here)
  const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
  for (int64_t h = 0; h < 2 && 16 * h < nc; ++h) {
    float32x4_t acc[MR][4];
    for (int r = 0; r < MR; ++r)
      for (int q = 0; q < 4; ++q) acc[r][q] = vdupq_n_f32(0.0f);
    for (int64_t s0 = 0; s0 < kc; s0 += seg) {
    const float* ar[MR];
    for (int r = 0; r < MR; ++r) ar[r] = a[s0 / seg * a_ss + r];
    const float* bh = b + 16 * h + s0 * kConvNhwcNr;
    int64_t k = 0;
#define PTE_STEP(L)                                                                     \
  {                                                                                     \
    const float* bk = bh + (k + L) * kConvNhwcNr;                                       \
    const float32x4_t b0 = vld1q_f32(bk), b1 = vld1q_f32(bk + 4), b2 = vld1q_f32(bk + 8), \
                      b3 = vld1q_f32(bk + 12);                                          \
    for (int r = 0; r < MR; ++r) {                                                      \
      acc[r][0] = vfmaq_laneq_f32(acc[r][0], b0, av[r], L);                             \
      acc[r][1] = vfmaq_laneq_f32(acc[r][1], b1, av[r], L);                             \
      acc[r][2] = vfmaq_laneq_f32(acc[r][2], b2, av[r], L);                             \
      acc[r][3] = vfmaq_laneq_f32(acc[r][3], b3, av[r], L);                             \
    }                                                                                   \
  }
    for (; k + 4 <= seg; k += 4) {
      float32x4_t av[MR];
      for (int r = 0; r < MR; ++r) av[r] = vld1q_f32(ar[r] + k);
      PTE_STEP(0) PTE_STEP(1) PTE_STEP(2) PTE_STEP(3)
    }
#undef PTE_STEP
    for (; k < seg; ++k) {
      const float* bk = bh + k * kConvNhwcNr;
      const float32x4_t b0 = vld1q_f32(bk), b1 = vld1q_f32(bk + 4), b2 = vld1q_f32(bk + 8), b3 = vld1q_f32(bk + 12);
      for (int r = 0; r < MR; ++r) {
        const float32x4_t av = vdupq_n_f32(ar[r][k]);
        acc[r][0] = vfmaq_f32(acc[r][0], b0, av);
        acc[r][1] = vfmaq_f32(acc[r][1], b1, av);
        acc[r][2] = vfmaq_f32(acc[r][2], b2, av);
        acc[r][3] = vfmaq_f32(acc[r][3], b3, av);
      }
    }
    }  // segments
    for (int r = 0; r < MR; ++r)
      for (int q = 0; q < 4; ++q) {
        const int64_t col = 16 * h + 4 * q;
        if (col >= nc) break;
        float* cp = c + r * c_rs + col;
        const float* rp = res ? res + r * c_rs + col : nullptr;
        if (col + 4 <= nc) {
          float32x4_t v = vaddq_f32(first ? vld1q_f32(bias + col) : vld1q_f32(cp), acc[r][q]);
          if (last && rp) v = vaddq_f32(v, vld1q_f32(rp));
          if (last) v = vminq_f32(vhi, vmaxq_f32(vlo, v));  // FMAX / FMIN: a NaN stays NaN
          vst1q_f32(cp, v);
        } else {
          float t[4];
          vst1q_f32(t, acc[r][q]);
          for (int64_t j = 0; j < nc - col; ++j) {
            float v = (first ? bias[col + j] : cp[j]) + t[j];
            if (last && rp) v += rp[j];
            if (last) v = std::min(std::max(v, lo), hi);
            cp[j] = v;
          }
        }
      }
  }
}

}  // namespace

void conv_nhwc_ukernel_neon(int mr, int64_t kc, int64_t seg, const float* const* a, int64_t a_ss, const float* b,
                            float* c, int64_t c_rs, int64_t nc, const float* bias, const float* res, bool first,
                            bool last, float lo, float hi, const char* pf, int64_t pf_lines) {
  static_assert(kConvNhwcMrNeon == 4, "one tile per row count below");
  switch (mr) {
    case 4: tile<4>(kc, seg, a, a_ss, b, c, c_rs, nc, bias, res, first, last, lo, hi, pf, pf_lines); break;
    case 3: tile<3>(kc, seg, a, a_ss, b, c, c_rs, nc, bias, res, first, last, lo, hi, pf, pf_lines); break;
    case 2: tile<2>(kc, seg, a, a_ss, b, c, c_rs, nc, bias, res, first, last, lo, hi, pf, pf_lines); break;
    case 1: tile<1>(kc, seg, a, a_ss, b, c, c_rs, nc, bias, res, first, last, lo, hi, pf, pf_lines); break;
    default: break;
  }
}

}  // namespace pte::linalg
#endif  // defined(__aarch64__)
