// pte-run linalg: NEON f32 NHWC depthwise convolution (see dwconv_nhwc.h; aarch64, and
// armv7 with NEON and VFPv4): four q-register accumulators per channel tile of 16 across
// every in-image tap, then single vectors, then a scalar tail. Fused multiply-adds, as the
// x86 variants: within the reference's tolerance, not bit-equal to it.
#if defined(__aarch64__) || defined(__arm__)
#if defined(__arm__)
#pragma GCC target("fpu=neon-vfpv4")
#endif
#include <arm_neon.h>

#include <algorithm>
#include <cmath>

#include "ops/linalg/dwconv_nhwc.h"

namespace pte::linalg {

using detail::dw_tap_range;

void dwconv_nhwc_f32_neon(const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                          int64_t r0, int64_t r1) {
  const int64_t C = p.C;
  const float32x4_t lo = vdupq_n_f32(p.out_min), hi = vdupq_n_f32(p.out_max);
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / p.OH, oh = r % p.OH;
    const int64_t ih0 = oh * p.sh - p.pad_top;
    int64_t kh0, kh1, kw0, kw1;
    dw_tap_range(ih0, p.dh, p.KH, p.H, &kh0, &kh1);
    const int64_t xn = (n * p.H + ih0) * p.W * C;  // offsets (may be < 0): in range per tap
    for (int64_t ow = 0; ow < p.OW; ++ow) {
      const int64_t iw0 = ow * p.sw - p.pad_left;
      dw_tap_range(iw0, p.dw, p.KW, p.W, &kw0, &kw1);
      float* out = y + (r * p.OW + ow) * C;
      const int64_t xp = xn + iw0 * C;
      int64_t c = 0;
      for (; c + 16 <= C; c += 16) {
        float32x4_t a0 = bias ? vld1q_f32(bias + c) : vdupq_n_f32(0.0f);
        float32x4_t a1 = bias ? vld1q_f32(bias + c + 4) : vdupq_n_f32(0.0f);
        float32x4_t a2 = bias ? vld1q_f32(bias + c + 8) : vdupq_n_f32(0.0f);
        float32x4_t a3 = bias ? vld1q_f32(bias + c + 12) : vdupq_n_f32(0.0f);
        for (int64_t kh = kh0; kh < kh1; ++kh) {
          const int64_t xr = xp + kh * p.dh * p.W * C;
          const float* wr = w + kh * p.KW * C;
          for (int64_t kw = kw0; kw < kw1; ++kw) {
            const float* xt = x + (xr + kw * p.dw * C + c);
            const float* wt = wr + kw * C + c;
            a0 = vfmaq_f32(a0, vld1q_f32(wt), vld1q_f32(xt));
            a1 = vfmaq_f32(a1, vld1q_f32(wt + 4), vld1q_f32(xt + 4));
            a2 = vfmaq_f32(a2, vld1q_f32(wt + 8), vld1q_f32(xt + 8));
            a3 = vfmaq_f32(a3, vld1q_f32(wt + 12), vld1q_f32(xt + 12));
          }
        }
        vst1q_f32(out + c, vminq_f32(vmaxq_f32(a0, lo), hi));
        vst1q_f32(out + c + 4, vminq_f32(vmaxq_f32(a1, lo), hi));
        vst1q_f32(out + c + 8, vminq_f32(vmaxq_f32(a2, lo), hi));
        vst1q_f32(out + c + 12, vminq_f32(vmaxq_f32(a3, lo), hi));
      }
      for (; c + 4 <= C; c += 4) {
        float32x4_t a0 = bias ? vld1q_f32(bias + c) : vdupq_n_f32(0.0f);
        for (int64_t kh = kh0; kh < kh1; ++kh)
          for (int64_t kw = kw0; kw < kw1; ++kw)
            a0 = vfmaq_f32(a0, vld1q_f32(w + (kh * p.KW + kw) * C + c),
                           vld1q_f32(x + (xp + (kh * p.dh * p.W + kw * p.dw) * C + c)));
        vst1q_f32(out + c, vminq_f32(vmaxq_f32(a0, lo), hi));
      }
      for (; c < C; ++c) {
        float a = bias ? bias[c] : 0.0f;
        for (int64_t kh = kh0; kh < kh1; ++kh)
          for (int64_t kw = kw0; kw < kw1; ++kw)
            a = std::fma(w[(kh * p.KW + kw) * C + c], x[xp + (kh * p.dh * p.W + kw * p.dw) * C + c], a);
        out[c] = std::min(std::max(a, p.out_min), p.out_max);
      }
    }
  }
}

}  // namespace pte::linalg
#endif  // defined(__aarch64__) || defined(__arm__)
