// pte-run XNNPACK delegate: XNNStaticResizeBilinear2D (NHWC, fp32).
//
// Source coordinates as XNNPACK's bilinear resize defines them: with align_corners the
// scale is (in - 1) / (out - 1) and src = dst * scale; in TensorFlow legacy mode the scale
// is in / out and src = dst * scale; otherwise (half-pixel centres, torch's
// align_corners=False) src = (dst + 0.5) * in / out - 0.5, clamped to [0, in - 1]. The
// upper neighbour is min(floor(src) + 1, in - 1), and a pixel is
// top + (bottom - top) * alpha_y with top / bottom interpolated along x the same way.
#include <algorithm>
#include <cmath>

#include "interpreter/xnnpack/exec.h"

namespace pte::xnn {

namespace {

struct Tap {
  int64_t i0 = 0, i1 = 0;
  float alpha = 0;
};

Tap tap(int64_t o, int64_t in, int64_t out, uint32_t flags) {
  const bool align = (flags & kFlagAlignCorners) != 0, legacy = (flags & kFlagTensorflowLegacy) != 0;
  const int64_t adj = align && out != 1 ? 1 : 0;
  const float scale = static_cast<float>(in - adj) / static_cast<float>(out - adj);
  const int64_t imax = in - 1;
  float src;
  if (align || legacy) {
    src = static_cast<float>(o) * scale;
    src = std::min(src, static_cast<float>(imax));
  } else {
    src = static_cast<float>(o) * scale + (0.5f * scale - 0.5f);
    src = std::min(std::max(src, 0.0f), static_cast<float>(imax));
  }
  Tap t;
  t.i0 = static_cast<int64_t>(src);
  t.i1 = std::min(t.i0 + 1, imax);
  t.alpha = src - static_cast<float>(t.i0);
  return t;
}

}  // namespace

bool run_resize_bilinear(State& s, const Node& n) {
  if (s.meta(n.in[0]).dtype != DT::F32 || s.meta(n.out).dtype != DT::F32)
    return s.ctx->fail("XNNStaticResizeBilinear2D: only fp32 is supported");
  const Shape xs = s.v(n.in[0]).shape;
  if (xs.n != 4) return s.ctx->fail("XNNStaticResizeBilinear2D: input has %d dims, expected NHWC", xs.n);
  const int64_t N = xs.d[0], H = xs.d[1], W = xs.d[2], C = xs.d[3];
  if (H <= 0 || W <= 0) return s.ctx->fail("XNNStaticResizeBilinear2D: empty %lldx%lld input", (long long)H, (long long)W);
  const int64_t OH = n.new_h, OW = n.new_w;
  Shape ys;
  ys.n = 4, ys.d[0] = N, ys.d[1] = OH, ys.d[2] = OW, ys.d[3] = C;
  if (!s.set_shape(n.out, ys)) return false;
  const float* x = s.ptr<float>(n.in[0]);
  float* y = s.ptr<float>(n.out);
  for (int64_t b = 0; b < N; ++b) {
    const float* xb = x + b * H * W * C;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const Tap ty = tap(oh, H, OH, n.flags);
      for (int64_t ow = 0; ow < OW; ++ow) {
        const Tap tx = tap(ow, W, OW, n.flags);
        const float* tl = xb + (ty.i0 * W + tx.i0) * C;
        const float* tr = xb + (ty.i0 * W + tx.i1) * C;
        const float* bl = xb + (ty.i1 * W + tx.i0) * C;
        const float* br = xb + (ty.i1 * W + tx.i1) * C;
        float* py = y + ((b * OH + oh) * OW + ow) * C;
        for (int64_t ch = 0; ch < C; ++ch) {
          const float top = tl[ch] + (tr[ch] - tl[ch]) * tx.alpha;
          const float bottom = bl[ch] + (br[ch] - bl[ch]) * tx.alpha;
          py[ch] = top + (bottom - top) * ty.alpha;
        }
      }
    }
  }
  clamp_output(n, y, ys.numel());
  return true;
}

}  // namespace pte::xnn
