// quantized_decomposed::dequantize_per_channel.out(Tensor input, Tensor scales,
//     Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *,
//     ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)
// Element q[..., c, ...] (c along `axis`): (q - zero_points[c]) * scales[c]; no zero
// points means 0.
#include "ops/quantized/quant_util.h"

namespace pte {

bool dequantize_per_channel_out(KernelContext& ctx, EValue** args) {
  const char* op = "dequantize_per_channel";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[1], Tag::Tensor, "scales") ||
      !expect_tag(ctx, args[3], Tag::Int, "axis") || !expect_tag(ctx, args[4], Tag::Int, "quant_min") ||
      !expect_tag(ctx, args[5], Tag::Int, "quant_max") || !expect_tag(ctx, args[8], Tag::Tensor, "out"))
    return false;
  const Tensor& x = *args[0]->t;
  const Tensor& scales = *args[1]->t;
  const Tensor* zps = args[2]->tag == Tag::Tensor ? args[2]->t : nullptr;
  Tensor& out = *args[8]->t;
  DType qdt, odt;
  bool has_odt;
  if (!quant::read_dtype(ctx, args[6], "dtype", &qdt) || !quant::read_optional_dtype(ctx, args[7], "out_dtype", &odt, &has_odt))
    return false;
  if (x.dtype != qdt) return ctx.fail("%s: input dtype %s does not match dtype %s", op, dtype_name(x.dtype), dtype_name(qdt));
  if (has_odt && out.dtype != odt)
    return ctx.fail("%s: out dtype %s does not match out_dtype %s", op, dtype_name(out.dtype), dtype_name(odt));
  int64_t axis = args[3]->i;
  if (x.dim == 0 || !normalize_dim(axis, x.dim)) return ctx.fail("%s: axis %lld out of range for rank %d", op, (long long)args[3]->i, x.dim);
  const int64_t channels = x.sizes[axis];
  if (scales.numel() != channels || (zps && zps->numel() != channels))
    return ctx.fail("%s: %lld channels but %lld scales and %lld zero points", op, (long long)channels,
                    (long long)scales.numel(), (long long)(zps ? zps->numel() : 0));
  if (args[4]->i > args[5]->i) return ctx.fail("%s: quant_min > quant_max", op);
  if (!resize_output_like(ctx, out, x)) return false;
  int64_t inner = 1;
  for (int d = static_cast<int>(axis) + 1; d < x.dim; ++d) inner *= x.sizes[d];
  if (x.numel() == 0) return true;
  auto params = [&](int64_t b, double* s, int64_t* z) {
    const int64_t c = b % channels;
    *s = quant::element(scales, c);
    *z = zps ? static_cast<int64_t>(quant::element(*zps, c)) : 0;
  };
  return quant::dequantize_dispatch(ctx, op, x, out, inner, params);
}

}  // namespace pte
