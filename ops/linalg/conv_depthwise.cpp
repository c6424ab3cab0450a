// pte-run linalg: f32 depthwise convolution (one input channel per group), direct.
// Per output row, every kernel tap adds w * (a shifted input row) over the range of
// output columns whose input column is inside the image, so the inner loop has no
// bounds checks (and is contiguous for NCHW input with stride 1). Threaded over
// (image, output channel).
#include <pthreadpool.h>

#include <algorithm>

#include "ops/linalg/conv.h"

namespace pte::linalg {

namespace {

inline int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
inline int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

}  // namespace

void conv_depthwise_f32(pthreadpool* pool, const ConvGeom& g, const float* x, const float* w, const float* bias, float* y) {
  constexpr int64_t kChunk = 512;
  auto plane = [&](size_t n, size_t oc) {
    const int64_t c = static_cast<int64_t>(oc) / g.ocg;  // input channel
    const float* xc = x + n * g.xs[0] + c * g.xs[1];
    const float* wc = w + oc * g.ws[0];
    float* yc = y + n * g.ys[0] + oc * g.ys[1];
    const float b = bias ? bias[oc * g.bias_stride] : 0.0f;
    const int64_t sw = g.stride[2], dw = g.dil[2], pw = g.pad[2];
    float acc[kChunk];
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow0 = 0; ow0 < g.out[2]; ow0 += kChunk) {
          const int64_t ow1 = std::min(g.out[2], ow0 + kChunk);
          for (int64_t i = 0; i < ow1 - ow0; ++i) acc[i] = b;
          for (int64_t kd = 0; kd < g.k[0]; ++kd) {
            const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
            if (id < 0 || id >= g.in[0]) continue;
            for (int64_t kh = 0; kh < g.k[1]; ++kh) {
              const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
              if (ih < 0 || ih >= g.in[1]) continue;
              const float* xr = xc + id * g.xs[2] + ih * g.xs[3];
              for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                const float wv = wc[kd * g.ws[2] + kh * g.ws[3] + kw * g.ws[4]];
                const int64_t shift = kw * dw - pw;  // iw = ow * sw + shift
                const int64_t lo = std::max(ow0, ceil_div(-shift, sw));
                const int64_t hi = std::min(ow1, floor_div(g.in[2] - 1 - shift, sw) + 1);
                if (sw == 1 && g.xs[4] == 1) {
                  const float* src = xr + shift;
                  for (int64_t ow = lo; ow < hi; ++ow) acc[ow - ow0] += wv * src[ow];
                } else {
                  for (int64_t ow = lo; ow < hi; ++ow) acc[ow - ow0] += wv * xr[(ow * sw + shift) * g.xs[4]];
                }
              }
            }
          }
          float* yr = yc + od * g.ys[2] + oh * g.ys[3];
          for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow * g.ys[4]] = acc[ow - ow0];
        }
  };
  const double work = static_cast<double>(g.N) * g.Cout * g.out[0] * g.out[1] * g.out[2] * g.k[0] * g.k[1] * g.k[2];
  pthreadpool_parallelize_2d(work >= 1.0e6 ? pool : nullptr, plane, static_cast<size_t>(g.N), static_cast<size_t>(g.Cout), 0);
}

}  // namespace pte::linalg
