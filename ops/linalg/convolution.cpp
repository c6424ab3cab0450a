// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//     SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//     SymInt groups, *, Tensor(a!) out) -> Tensor(a!)
//
// 1-D (N,C,L), 2-D (N,C,H,W) and 3-D (N,C,D,H,W) convolutions, grouped/depthwise and
// transposed, any dim order (channels-last included). Weight [Cout, Cin/groups, k...]
// or, transposed, [Cin, Cout/groups, k...]. Parameter lists of one value apply to
// every spatial dim.
//   out = floor((in + 2p - d(k-1) - 1) / s) + 1
//   transposed: out = (in - 1)s - 2p + d(k-1) + output_padding + 1
// f32 runs im2col + the blocked GEMM (row-sweep loops for depthwise, direct loops when
// scratch is short); f64/f16/bf16 run the direct loops in double/float.
#include "ops/linalg/conv.h"
#include "ops/linalg/linalg_util.h"
#include "ops/util.h"

namespace pte {

using linalg::ConvGeom;

bool convolution_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[1], Tag::Tensor, "weight") ||
      !expect_tag(ctx, args[9], Tag::Tensor, "out"))
    return false;
  const Tensor* bias = nullptr;
  if (!linalg::optional_tensor(ctx, args[2], "bias", &bias)) return false;
  const Tensor& x = *args[0]->t;
  const Tensor& w = *args[1]->t;
  Tensor& y = *args[9]->t;
  if (x.dim < 3 || x.dim > 5 || w.dim != x.dim)
    return ctx.fail("convolution: expected input and weight of rank 3, 4 or 5, got %d and %d", x.dim, w.dim);
  if (x.dtype != w.dtype || x.dtype != y.dtype || (bias && bias->dtype != y.dtype))
    return ctx.fail("convolution: dtypes differ (input %s, weight %s, out %s)", dtype_name(x.dtype), dtype_name(w.dtype),
                    dtype_name(y.dtype));
  const int nsp = x.dim - 2, off = 3 - nsp;  // spatial dims map to geometry dims off..2
  int64_t stride[3], pad[3], dil[3], opad[3];
  const int64_t zeros[3] = {0, 0, 0};
  if (!linalg::read_int_list(ctx, args[3], "convolution stride", stride, nsp, true) ||
      !linalg::read_int_list(ctx, args[4], "convolution padding", pad, nsp, true, zeros) ||
      !linalg::read_int_list(ctx, args[5], "convolution dilation", dil, nsp, true) ||
      !linalg::read_int_list(ctx, args[7], "convolution output_padding", opad, nsp, true, zeros))
    return false;
  if (!expect_tag(ctx, args[6], Tag::Bool, "transposed") || !expect_tag(ctx, args[8], Tag::Int, "groups")) return false;

  ConvGeom g;
  g.transposed = args[6]->b;
  g.G = args[8]->i;
  g.N = x.sizes[0];
  g.Cin = x.sizes[1];
  if (g.G < 1 || g.Cin % g.G) return ctx.fail("convolution: %lld input channels not divisible by groups %lld", (long long)g.Cin, (long long)g.G);
  g.icg = g.Cin / g.G;
  if (!g.transposed) {
    g.Cout = w.sizes[0];
    if (g.Cout % g.G) return ctx.fail("convolution: %lld output channels not divisible by groups %lld", (long long)g.Cout, (long long)g.G);
    g.ocg = g.Cout / g.G;
    if (w.sizes[1] != g.icg)
      return ctx.fail("convolution: weight has %lld input channels per group, input gives %lld", (long long)w.sizes[1],
                      (long long)g.icg);
  } else {
    if (w.sizes[0] != g.Cin)
      return ctx.fail("convolution: transposed weight has %lld input channels, input has %lld", (long long)w.sizes[0],
                      (long long)g.Cin);
    g.ocg = w.sizes[1];
    g.Cout = g.ocg * g.G;
  }
  if (bias && bias->numel() != g.Cout)
    return ctx.fail("convolution: bias has %lld elements, expected %lld", (long long)bias->numel(), (long long)g.Cout);
  g.bias_stride = bias && bias->dim > 0 ? bias->strides[bias->dim - 1] : 0;

  int64_t out_sizes[5] = {g.N, g.Cout, 1, 1, 1};
  for (int i = 0; i < 5; ++i) g.xs[i] = g.ws[i] = 0;
  g.xs[0] = x.strides[0], g.xs[1] = x.strides[1];
  g.ws[0] = w.strides[0], g.ws[1] = w.strides[1];
  for (int s = 0; s < nsp; ++s) {
    const int gd = off + s;
    g.in[gd] = x.sizes[2 + s];
    g.k[gd] = w.sizes[2 + s];
    g.stride[gd] = stride[s], g.pad[gd] = pad[s], g.dil[gd] = dil[s];
    g.xs[2 + gd] = x.strides[2 + s];
    g.ws[2 + gd] = w.strides[2 + s];
    if (stride[s] < 1 || dil[s] < 1 || pad[s] < 0 || opad[s] < 0)
      return ctx.fail("convolution: invalid stride %lld / dilation %lld / padding %lld / output_padding %lld",
                      (long long)stride[s], (long long)dil[s], (long long)pad[s], (long long)opad[s]);
    int64_t o;
    if (!g.transposed)
      o = (g.in[gd] + 2 * pad[s] - dil[s] * (g.k[gd] - 1) - 1) / stride[s] + 1;
    else
      o = (g.in[gd] - 1) * stride[s] - 2 * pad[s] + dil[s] * (g.k[gd] - 1) + opad[s] + 1;
    if (g.in[gd] + 2 * pad[s] < dil[s] * (g.k[gd] - 1) + 1 && !g.transposed) o = 0;
    if (o <= 0)
      return ctx.fail("convolution: input size %lld with kernel %lld, stride %lld, padding %lld, dilation %lld gives an empty output",
                      (long long)g.in[gd], (long long)g.k[gd], (long long)stride[s], (long long)pad[s], (long long)dil[s]);
    g.out[gd] = o;
    out_sizes[2 + s] = o;
  }
  if (!resize_output(ctx, y, out_sizes, x.dim)) return false;
  g.ys[0] = y.strides[0], g.ys[1] = y.strides[1];
  for (int i = 2; i < 5; ++i) g.ys[i] = 0;
  for (int s = 0; s < nsp; ++s) g.ys[2 + off + s] = y.strides[2 + s];
  // weight dims 1.. dense (dim 0 outermost): rows can be read in place by the GEMM
  int64_t row = 1;
  for (int d = 1; d < w.dim; ++d) row *= w.sizes[d];
  g.weight_rows_dense = w.dim_order[0] == 0 && (w.sizes[0] == 1 || w.strides[0] == row);
  if (g.N == 0 || g.Cout == 0) return true;

  const void* bp = bias ? bias->data : nullptr;
  switch (y.dtype) {
    case DType::Float: {
      const float* b32 = static_cast<const float*>(bp);
      if (!g.transposed && g.icg == 1 && g.G > 1) {
        linalg::conv_depthwise_f32(ctx.threadpool, g, x.ptr<float>(), w.ptr<float>(), b32, y.ptr<float>());
        return true;
      }
      if (linalg::conv_f32_gemm(ctx, g, x.ptr<float>(), w.ptr<float>(), b32, y.ptr<float>())) return true;
      linalg::conv_direct<float>(ctx.threadpool, g, x.ptr<float>(), w.ptr<float>(), static_cast<const float*>(bp),
                                 y.ptr<float>());
      return true;
    }
    case DType::Double:
      linalg::conv_direct<double>(ctx.threadpool, g, x.ptr<double>(), w.ptr<double>(), static_cast<const double*>(bp),
                                  y.ptr<double>());
      return true;
    case DType::Half:
      linalg::conv_direct<Half>(ctx.threadpool, g, x.ptr<Half>(), w.ptr<Half>(), static_cast<const Half*>(bp), y.ptr<Half>());
      return true;
    case DType::BFloat16:
      linalg::conv_direct<BFloat16>(ctx.threadpool, g, x.ptr<BFloat16>(), w.ptr<BFloat16>(),
                                    static_cast<const BFloat16*>(bp), y.ptr<BFloat16>());
      return true;
    default:
      return ctx.fail("convolution: unsupported dtype %s", dtype_name(y.dtype));
  }
}

}  // namespace pte

