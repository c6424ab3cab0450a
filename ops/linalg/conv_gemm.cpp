// pte-run linalg: f32 convolution through the blocked GEMM.
//
// Non-transposed, per (image n, group):
//   NCHW-like output (positions contiguous):  Y[oc, p] = W[oc, r] @ col[r, p]
//   channels-last output (channels contiguous): Y[p, oc] = colT[p, r] @ W[oc, r]^T
// where r runs over (ic, kd, kh, kw) in the weight's own physical order, so a weight
// row is read in place whatever its dim order. 1x1/stride 1/pad 0 convolutions read
// the input in place instead of building columns.
// Transposed, per (n, group): col[(oc,k), i] = W[ic, (oc,k)]^T @ X[ic, i], then
// col2im adds each column into the output positions it reaches.
#include <algorithm>
#include <cstring>

#include "ops/linalg/conv.h"
#include "ops/linalg/gemm.h"

namespace pte::linalg {

namespace {

// Stride of a flattened position index over 3 spatial dims, when they collapse.
bool spatial_stride(const int64_t* sizes, const int64_t* strides, int64_t* sp) {
  int64_t expect = -1;
  *sp = 1;
  for (int d = 2; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (expect < 0)
      *sp = strides[d];
    else if (strides[d] != expect)
      return false;
    expect = strides[d] * sizes[d];
  }
  return true;
}

// Column buffer of `rows` x (positions per chunk), shrinking the chunk until the
// scratch arena has room. Null when not even `min_chunk` positions fit.
float* column_buffer(KernelContext& ctx, int64_t rows, int64_t total, int64_t* chunk) {
  int64_t pc = total;
  const int64_t min_chunk = std::min<int64_t>(total, 16);
  while (true) {
    if (void* p = ctx.scratch(static_cast<size_t>(rows * pc) * sizeof(float))) {
      *chunk = pc;
      return static_cast<float*>(p);
    }
    if (pc <= min_chunk) return nullptr;
    pc = std::max(min_chunk, (pc + 1) / 2);
  }
}

// col[r * np + q] = x(position p0 + q shifted by kernel offset), r = weight offset of (ic, kd, kh, kw).
void im2col_rows(const ConvGeom& g, const float* xg, int64_t p0, int64_t np, float* col) {
  const int64_t o12 = g.out[1] * g.out[2];
  for (int64_t ic = 0; ic < g.icg; ++ic)
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
      for (int64_t kh = 0; kh < g.k[1]; ++kh)
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          float* row = col + (ic * g.ws[1] + kd * g.ws[2] + kh * g.ws[3] + kw * g.ws[4]) * np;
          const float* xc = xg + ic * g.xs[1];
          int64_t q = 0, p = p0;
          while (q < np) {
            const int64_t od = p / o12, oh = (p % o12) / g.out[2], ow = p % g.out[2];
            const int64_t seg = std::min(g.out[2] - ow, np - q);
            const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
            const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
              for (int64_t t = 0; t < seg; ++t) row[q + t] = 0.0f;
            } else {
              const float* xr = xc + id * g.xs[2] + ih * g.xs[3];
              int64_t iw = ow * g.stride[2] - g.pad[2] + kw * g.dil[2];
              for (int64_t t = 0; t < seg; ++t, iw += g.stride[2])
                row[q + t] = (iw >= 0 && iw < g.in[2]) ? xr[iw * g.xs[4]] : 0.0f;
            }
            q += seg;
            p += seg;
          }
        }
}

// colT[q * Kc + r]: one row of Kc values per output position (channels-last friendly).
void im2col_cols(const ConvGeom& g, const float* xg, int64_t p0, int64_t np, int64_t Kc, float* col) {
  const int64_t o12 = g.out[1] * g.out[2];
  const bool runs = g.ws[1] == 1 && g.xs[1] == 1;
  int64_t od = p0 / o12, oh = (p0 % o12) / g.out[2], ow = p0 % g.out[2];
  for (int64_t q = 0; q < np; ++q) {
    float* row = col + q * Kc;
    for (int64_t kd = 0; kd < g.k[0]; ++kd) {
      const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
      for (int64_t kh = 0; kh < g.k[1]; ++kh) {
        const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          const int64_t iw = ow * g.stride[2] - g.pad[2] + kw * g.dil[2];
          float* dst = row + kd * g.ws[2] + kh * g.ws[3] + kw * g.ws[4];
          const bool outside = id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2];
          const float* src = outside ? nullptr : xg + id * g.xs[2] + ih * g.xs[3] + iw * g.xs[4];
          if (runs && g.icg >= 16) {  // channels contiguous in both (NHWC input, OHWI weights)
            if (outside)
              std::memset(dst, 0, static_cast<size_t>(g.icg) * sizeof(float));
            else
              std::memcpy(dst, src, static_cast<size_t>(g.icg) * sizeof(float));
          } else if (runs) {
            for (int64_t ic = 0; ic < g.icg; ++ic) dst[ic] = outside ? 0.0f : src[ic];
          } else if (outside) {
            for (int64_t ic = 0; ic < g.icg; ++ic) dst[ic * g.ws[1]] = 0.0f;
          } else {
            for (int64_t ic = 0; ic < g.icg; ++ic) dst[ic * g.ws[1]] = src[ic * g.xs[1]];
          }
        }
      }
    }
    if (++ow == g.out[2]) {
      ow = 0;
      if (++oh == g.out[1]) oh = 0, ++od;
    }
  }
}

// y = bias (or 0) everywhere, so every GEMM/col2im below accumulates.
void fill_bias(const ConvGeom& g, const float* bias, float* y) {
  if (g.ys[1] == 1) {
    // channels contiguous (NHWC, the XNNPACK delegate's): a pixel's channels in one run;
    // a loop over channels outermost would sweep the whole output once per channel
    // (ResNet-50 through this engine: 39% of a forward's samples in here)
    for (int64_t n = 0; n < g.N; ++n)
      for (int64_t d = 0; d < g.out[0]; ++d)
        for (int64_t h = 0; h < g.out[1]; ++h)
          for (int64_t w = 0; w < g.out[2]; ++w) {
            float* yp = y + n * g.ys[0] + d * g.ys[2] + h * g.ys[3] + w * g.ys[4];
            for (int64_t c = 0; c < g.Cout; ++c) yp[c] = bias ? bias[c * g.bias_stride] : 0.0f;
          }
    return;
  }
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t c = 0; c < g.Cout; ++c) {
      const float b = bias ? bias[c * g.bias_stride] : 0.0f;
      float* yc = y + n * g.ys[0] + c * g.ys[1];
      for (int64_t d = 0; d < g.out[0]; ++d)
        for (int64_t h = 0; h < g.out[1]; ++h)
          for (int64_t w = 0; w < g.out[2]; ++w) yc[d * g.ys[2] + h * g.ys[3] + w * g.ys[4]] = b;
    }
}

bool conv_forward(KernelContext& ctx, const ConvGeom& g, const float* x, const float* w, const float* bias, float* y) {
  int64_t xsp = 0, ysp = 0;
  const bool x_coll = spatial_stride(g.in, g.xs + 2, &xsp);
  if (!spatial_stride(g.out, g.ys + 2, &ysp)) return false;
  const int64_t P = g.out[0] * g.out[1] * g.out[2];
  const int64_t kvol = g.k[0] * g.k[1] * g.k[2];
  const int64_t Kc = g.icg * kvol;
  // Positions contiguous in the output (NCHW): weights on the left. Otherwise
  // (channels-last) positions are the rows.
  const bool pos_major = ysp == 1 || P == 1;
  const bool one_by_one = kvol == 1 && g.stride[0] == 1 && g.stride[1] == 1 && g.stride[2] == 1 && g.pad[0] == 0 &&
                          g.pad[1] == 0 && g.pad[2] == 0 && x_coll;
  float* col = nullptr;
  int64_t chunk = P;
  if (!one_by_one) {
    col = column_buffer(ctx, Kc, P, &chunk);
    if (!col) return false;
  }
  fill_bias(g, bias, y);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t grp = 0; grp < g.G; ++grp) {
      const float* xg = x + n * g.xs[0] + grp * g.icg * g.xs[1];
      const float* wg = w + grp * g.ocg * g.ws[0];
      float* yg = y + n * g.ys[0] + grp * g.ocg * g.ys[1];
      GemmF32 m;
      m.accumulate = true;
      if (one_by_one) {
        if (pos_major) {
          m.M = g.ocg, m.N = P, m.K = g.icg;
          m.a = wg, m.a_rs = g.ws[0], m.a_cs = g.ws[1];
          m.b = xg, m.b_rs = g.xs[1], m.b_cs = xsp;
          m.c = yg, m.c_rs = g.ys[1], m.c_cs = ysp;
        } else {
          m.M = P, m.N = g.ocg, m.K = g.icg;
          m.a = xg, m.a_rs = xsp, m.a_cs = g.xs[1];
          m.b = wg, m.b_rs = g.ws[1], m.b_cs = g.ws[0];
          m.c = yg, m.c_rs = ysp, m.c_cs = g.ys[1];
        }
        gemm_f32(ctx.threadpool, m);
        continue;
      }
      for (int64_t p0 = 0; p0 < P; p0 += chunk) {
        const int64_t np = std::min(chunk, P - p0);
        if (pos_major) {
          im2col_rows(g, xg, p0, np, col);
          m.M = g.ocg, m.N = np, m.K = Kc;
          m.a = wg, m.a_rs = g.ws[0], m.a_cs = 1;
          m.b = col, m.b_rs = np, m.b_cs = 1;
          m.c = yg + p0 * ysp, m.c_rs = g.ys[1], m.c_cs = ysp;
        } else {
          im2col_cols(g, xg, p0, np, Kc, col);
          m.M = np, m.N = g.ocg, m.K = Kc;
          m.a = col, m.a_rs = Kc, m.a_cs = 1;
          m.b = wg, m.b_rs = 1, m.b_cs = g.ws[0];
          m.c = yg + p0 * ysp, m.c_rs = ysp, m.c_cs = g.ys[1];
        }
        gemm_f32(ctx.threadpool, m);
      }
    }
  return true;
}

bool conv_transposed(KernelContext& ctx, const ConvGeom& g, const float* x, const float* w, const float* bias, float* y) {
  int64_t xsp = 0;
  if (!spatial_stride(g.in, g.xs + 2, &xsp)) return false;
  const int64_t Pin = g.in[0] * g.in[1] * g.in[2];
  const int64_t R = g.ocg * g.k[0] * g.k[1] * g.k[2];
  int64_t chunk = Pin;
  float* col = column_buffer(ctx, R, Pin, &chunk);
  if (!col) return false;
  fill_bias(g, bias, y);
  const int64_t i12 = g.in[1] * g.in[2];
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t grp = 0; grp < g.G; ++grp) {
      const float* xg = x + n * g.xs[0] + grp * g.icg * g.xs[1];
      const float* wg = w + grp * g.icg * g.ws[0];
      float* yg = y + n * g.ys[0] + grp * g.ocg * g.ys[1];
      for (int64_t i0 = 0; i0 < Pin; i0 += chunk) {
        const int64_t np = std::min(chunk, Pin - i0);
        GemmF32 m;
        m.M = R, m.N = np, m.K = g.icg;
        m.a = wg, m.a_rs = 1, m.a_cs = g.ws[0];
        m.b = xg + i0 * xsp, m.b_rs = g.xs[1], m.b_cs = xsp;
        m.c = col, m.c_rs = np, m.c_cs = 1;
        gemm_f32(ctx.threadpool, m);
        // col2im: scatter-add every (oc, k) row into the output positions it reaches
        for (int64_t ocl = 0; ocl < g.ocg; ++ocl)
          for (int64_t kd = 0; kd < g.k[0]; ++kd)
            for (int64_t kh = 0; kh < g.k[1]; ++kh)
              for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                const float* row = col + (ocl * g.ws[1] + kd * g.ws[2] + kh * g.ws[3] + kw * g.ws[4]) * np;
                float* yc = yg + ocl * g.ys[1];
                for (int64_t q = 0; q < np; ++q) {
                  const int64_t i = i0 + q;
                  const int64_t id = i / i12, ih = (i % i12) / g.in[2], iw = i % g.in[2];
                  const int64_t od = id * g.stride[0] - g.pad[0] + kd * g.dil[0];
                  const int64_t oh = ih * g.stride[1] - g.pad[1] + kh * g.dil[1];
                  const int64_t ow = iw * g.stride[2] - g.pad[2] + kw * g.dil[2];
                  if (od < 0 || od >= g.out[0] || oh < 0 || oh >= g.out[1] || ow < 0 || ow >= g.out[2]) continue;
                  yc[od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4]] += row[q];
                }
              }
      }
    }
  return true;
}

}  // namespace

bool conv_f32_gemm(KernelContext& ctx, const ConvGeom& g, const float* x, const float* w, const float* bias, float* y) {
  if (!g.weight_rows_dense) return false;
  return g.transposed ? conv_transposed(ctx, g, x, w, bias, y) : conv_forward(ctx, g, x, w, bias, y);
}

}  // namespace pte::linalg
