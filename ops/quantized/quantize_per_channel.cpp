// quantized_decomposed::quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points,
//     int axis, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
// Element x[..., c, ...] (c along `axis`) uses scales[c] and zero_points[c].
#include "ops/quantized/quant_util.h"

namespace pte {

bool quantize_per_channel_out(KernelContext& ctx, EValue** args) {
  const char* op = "quantize_per_channel";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[1], Tag::Tensor, "scales") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "zero_points") || !expect_tag(ctx, args[3], Tag::Int, "axis") ||
      !expect_tag(ctx, args[4], Tag::Int, "quant_min") || !expect_tag(ctx, args[5], Tag::Int, "quant_max") ||
      !expect_tag(ctx, args[7], Tag::Tensor, "out"))
    return false;
  const Tensor& x = *args[0]->t;
  const Tensor& scales = *args[1]->t;
  const Tensor& zps = *args[2]->t;
  Tensor& out = *args[7]->t;
  DType qdt;
  if (!quant::read_dtype(ctx, args[6], "dtype", &qdt)) return false;
  int64_t axis = args[3]->i;
  if (x.dim == 0 || !normalize_dim(axis, x.dim)) return ctx.fail("%s: axis %lld out of range for rank %d", op, (long long)args[3]->i, x.dim);
  const int64_t channels = x.sizes[axis];
  if (scales.numel() != channels || zps.numel() != channels)
    return ctx.fail("%s: %lld channels but %lld scales and %lld zero points", op, (long long)channels,
                    (long long)scales.numel(), (long long)zps.numel());
  const int64_t qmin = args[4]->i, qmax = args[5]->i;
  if (out.dtype != qdt) return ctx.fail("%s: out dtype %s does not match dtype %s", op, dtype_name(out.dtype), dtype_name(qdt));
  if (!quant::check_qparams(ctx, op, qdt, qmin, qmax) || !resize_output_like(ctx, out, x)) return false;
  int64_t inner = 1;
  for (int d = static_cast<int>(axis) + 1; d < x.dim; ++d) inner *= x.sizes[d];
  if (x.numel() == 0) return true;
  auto params = [&](int64_t b, double* s, int64_t* z) {
    const int64_t c = b % channels;
    *s = quant::element(scales, c);
    *z = static_cast<int64_t>(quant::element(zps, c));
  };
  return quant::quantize_dispatch(ctx, op, x, out, inner, qmin, qmax, params);
}

}  // namespace pte
