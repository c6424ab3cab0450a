// pte-run linalg: NEON f32 NHWC depthwise convolution (see dwconv_nhwc.h; aarch64, and
// armv7 with NEON and VFPv4): four q-register accumulators per channel tile of 16 across
// every in-image tap, then single vectors, then a scalar tail; 3x3 windows without dilation
// take the fast path below (dw3x3_neon). Fused multiply-adds, as the x86 variants: within
// the reference's tolerance, not bit-equal to it.
#if defined(__aarch64__) || defined(__arm__)
#if defined(__arm__)
#pragma GCC target("fpu=neon-vfpv4")
#endif
#include <arm_neon.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "ops/linalg/dwconv_nhwc.h"

namespace pte::linalg {

using detail::dw_tap_range;

namespace {

// 3x3 windows without dilation (MobileNet's and EfficientNet's depthwise layers): per output
// row the three input rows (a row outside the image is skipped, as the reference skips its
// taps, and points at row 0), then per block of J interior pixels and channel tile of 4 the
// tile's nine weights and bias sit in q registers and every tap is one FMA with a loaded
// input vector: 9 input loads a pixel instead of 18 loads through the generic tap loops.
// Columns whose window leaves the image go tap by tap; channels past the last tile of 4 are
// scalar with the same tap logic. J is 8, 4, 1 on aarch64 (9 weights and 8 accumulators in
// its 32 vector registers) and 4, 1 on armv7 (16 q registers).
struct Dw3Rows {
  const float* row[3];
  bool valid[3];
};

inline float32x4_t dw3_clamp(float32x4_t a, float32x4_t lo, float32x4_t hi) { return vminq_f32(vmaxq_f32(a, lo), hi); }

// Channels [c0, C) of the pixel whose window starts at input column iw0, tap by tap.
void dw3_pixel_scalar(const DwconvNhwc& p, const Dw3Rows& rs, const float* w, const float* bias, int64_t iw0,
                      int64_t c0, float* out) {
  const int64_t C = p.C;
  for (int64_t c = c0; c < C; ++c) {
    float a = bias ? bias[c] : 0.0f;
    for (int kh = 0; kh < 3; ++kh) {
      if (!rs.valid[kh]) continue;
      for (int kw = 0; kw < 3; ++kw) {
        const int64_t iw = iw0 + kw;
        if (iw >= 0 && iw < p.W) a = std::fma(w[(kh * 3 + kw) * C + c], rs.row[kh][iw * C + c], a);
      }
    }
    out[c] = std::min(std::max(a, p.out_min), p.out_max);
  }
}

// One output pixel whose window leaves the image at the left or right.
void dw3_edge(const DwconvNhwc& p, const Dw3Rows& rs, const float* w, const float* bias, int64_t ow, float* yr) {
  const int64_t C = p.C, iw0 = ow * p.sw - p.pad_left;
  const float32x4_t lo = vdupq_n_f32(p.out_min), hi = vdupq_n_f32(p.out_max);
  float* out = yr + ow * C;
  int64_t c = 0;
  for (; c + 4 <= C; c += 4) {
    float32x4_t acc = bias ? vld1q_f32(bias + c) : vdupq_n_f32(0.0f);
    for (int kh = 0; kh < 3; ++kh) {
      if (!rs.valid[kh]) continue;
      for (int kw = 0; kw < 3; ++kw) {
        const int64_t iw = iw0 + kw;
        if (iw >= 0 && iw < p.W)
          acc = vfmaq_f32(acc, vld1q_f32(w + (kh * 3 + kw) * C + c), vld1q_f32(rs.row[kh] + iw * C + c));
      }
    }
    vst1q_f32(out + c, dw3_clamp(acc, lo, hi));
  }
  dw3_pixel_scalar(p, rs, w, bias, iw0, c, out);
}

// J interior pixels, one channel tile of 4: x0 is the first pixel's window start (row
// offset of column col0, channel c), step the distance between pixels.
template <int J>
__attribute__((always_inline)) inline void dw3_block(const Dw3Rows& rs, const float32x4_t* wk, float32x4_t b,
                                                     float32x4_t lo, float32x4_t hi, ptrdiff_t x0, ptrdiff_t step,
                                                     ptrdiff_t C, float* out) {
  float32x4_t acc[J];
#pragma GCC unroll 8
  for (int j = 0; j < J; ++j) acc[j] = b;
#pragma GCC unroll 3
  for (int kh = 0; kh < 3; ++kh) {
    if (!rs.valid[kh]) continue;
    const float* xr = rs.row[kh] + x0;
#pragma GCC unroll 3
    for (int kw = 0; kw < 3; ++kw) {
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) acc[j] = vfmaq_f32(acc[j], wk[kh * 3 + kw], vld1q_f32(xr + j * step + kw * C));
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < J; ++j) vst1q_f32(out + j * C, dw3_clamp(acc[j], lo, hi));
}

// J interior pixels from output column ow: every channel tile of 4, then the scalar tail.
template <int J>
void dw3_tiles(const DwconvNhwc& p, const Dw3Rows& rows, const float* w, const float* bias, int64_t ow, float* yr) {
  const Dw3Rows rs = rows;
  const ptrdiff_t C = p.C, col0 = ow * p.sw - p.pad_left, step = p.sw * C;
  const float32x4_t lo = vdupq_n_f32(p.out_min), hi = vdupq_n_f32(p.out_max);
  float* out = yr + ow * C;
  ptrdiff_t c = 0;
  for (; c + 4 <= C; c += 4) {
    float32x4_t wk[9];
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t) wk[t] = vld1q_f32(w + t * C + c);
    const float32x4_t b = bias ? vld1q_f32(bias + c) : vdupq_n_f32(0.0f);
    dw3_block<J>(rs, wk, b, lo, hi, col0 * C + c, step, C, out + c);
  }
  if (c < C)
    for (int j = 0; j < J; ++j) dw3_pixel_scalar(p, rs, w, bias, col0 + j * p.sw, c, out + j * C);
}

template <int J>
int64_t dw3_interior(const DwconvNhwc& p, const Dw3Rows& rs, const float* w, const float* bias, int64_t ow,
                     int64_t ow_hi, float* yr) {
  for (; ow + J <= ow_hi; ow += J) dw3_tiles<J>(p, rs, w, bias, ow, yr);
  return ow;
}

void dw3x3_neon(const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y, int64_t r0,
                int64_t r1) {
  const int64_t W = p.W, sw = p.sw, pl = p.pad_left;
  // interior columns [ow_lo, ow_hi): 0 <= ow * sw - pl and ow * sw - pl + 2 < W
  const int64_t ow_lo = std::min(p.OW, (pl + sw - 1) / sw);
  const int64_t ow_hi = W - 3 + pl < 0 ? ow_lo : std::max(ow_lo, std::min(p.OW, (W - 3 + pl) / sw + 1));
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / p.OH, ih0 = (r % p.OH) * p.sh - p.pad_top;
    Dw3Rows rs;
    for (int kh = 0; kh < 3; ++kh) {
      const int64_t ih = ih0 + kh;
      rs.valid[kh] = ih >= 0 && ih < p.H;
      rs.row[kh] = x + (n * p.H + (rs.valid[kh] ? ih : 0)) * W * p.C;
    }
    float* yr = y + r * p.OW * p.C;
    int64_t ow = 0;
    for (; ow < ow_lo; ++ow) dw3_edge(p, rs, w, bias, ow, yr);
#if defined(__aarch64__)
    ow = dw3_interior<8>(p, rs, w, bias, ow, ow_hi, yr);
#endif
    ow = dw3_interior<4>(p, rs, w, bias, ow, ow_hi, yr);
    ow = dw3_interior<1>(p, rs, w, bias, ow, ow_hi, yr);
    for (; ow < p.OW; ++ow) dw3_edge(p, rs, w, bias, ow, yr);
  }
}

}  // namespace

void dwconv_nhwc_f32_neon(const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                          int64_t r0, int64_t r1) {
  if (p.KH == 3 && p.KW == 3 && p.dh == 1 && p.dw == 1) return dw3x3_neon(p, x, w, bias, y, r0, r1);
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
