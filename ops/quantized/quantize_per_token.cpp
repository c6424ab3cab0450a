// quantized_decomposed::quantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points,
//     int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
// One (scale, zero point) per token = per row of the last dim: scales has
// prod(input.shape[:-1]) elements (typically shape [..., 1]).
#include "ops/quantized/quant_util.h"

namespace pte {

bool quantize_per_token_out(KernelContext& ctx, EValue** args) {
  const char* op = "quantize_per_token";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[1], Tag::Tensor, "scales") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "zero_points") || !expect_tag(ctx, args[3], Tag::Int, "quant_min") ||
      !expect_tag(ctx, args[4], Tag::Int, "quant_max") || !expect_tag(ctx, args[6], Tag::Tensor, "out"))
    return false;
  const Tensor& x = *args[0]->t;
  const Tensor& scales = *args[1]->t;
  const Tensor& zps = *args[2]->t;
  Tensor& out = *args[6]->t;
  DType qdt;
  if (!quant::read_dtype(ctx, args[5], "dtype", &qdt)) return false;
  if (x.dim == 0) return ctx.fail("%s: input must have at least one dim", op);
  const int64_t dim = x.sizes[x.dim - 1];
  const int64_t tokens = dim ? x.numel() / dim : 0;
  if (scales.numel() != tokens || zps.numel() != tokens)
    return ctx.fail("%s: %lld tokens but %lld scales and %lld zero points", op, (long long)tokens, (long long)scales.numel(),
                    (long long)zps.numel());
  const int64_t qmin = args[3]->i, qmax = args[4]->i;
  if (out.dtype != qdt) return ctx.fail("%s: out dtype %s does not match dtype %s", op, dtype_name(out.dtype), dtype_name(qdt));
  if (!quant::check_qparams(ctx, op, qdt, qmin, qmax) || !resize_output_like(ctx, out, x)) return false;
  if (x.numel() == 0) return true;
  auto params = [&](int64_t b, double* s, int64_t* z) {
    *s = quant::element(scales, b);
    *z = static_cast<int64_t>(quant::element(zps, b));
  };
  return quant::quantize_dispatch(ctx, op, x, out, dim, qmin, qmax, params);
}

}  // namespace pte
