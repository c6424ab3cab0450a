// quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale, int zero_point,
//     int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
// quantized_decomposed::quantize_per_tensor.Tensor_out(Tensor input, Tensor scale,
//     Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
// q = clamp(zero_point + nearbyint(x * (1/scale)), quant_min, quant_max) as `dtype`
// (uint8, int8, int16, uint16, int32); input f32/f64/f16/bf16, any dim order.
#include "ops/quantized/quant_util.h"

namespace pte {

namespace {

bool quantize_per_tensor(KernelContext& ctx, const char* op, const Tensor& x, double scale, int64_t zp, EValue** args,
                         Tensor& out) {
  DType qdt;
  if (!expect_tag(ctx, args[3], Tag::Int, "quant_min") || !expect_tag(ctx, args[4], Tag::Int, "quant_max") ||
      !quant::read_dtype(ctx, args[5], "dtype", &qdt))
    return false;
  const int64_t qmin = args[3]->i, qmax = args[4]->i;
  if (out.dtype != qdt)
    return ctx.fail("%s: out dtype %s does not match dtype %s", op, dtype_name(out.dtype), dtype_name(qdt));
  if (!quant::check_qparams(ctx, op, qdt, qmin, qmax) || !resize_output_like(ctx, out, x)) return false;
  auto params = [&](int64_t, double* s, int64_t* z) { *s = scale, *z = zp; };
  return quant::quantize_dispatch(ctx, op, x, out, x.numel() ? x.numel() : 1, qmin, qmax, params);
}

}  // namespace

bool quantize_per_tensor_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[6], Tag::Tensor, "out")) return false;
  if (args[1]->tag != Tag::Double && args[1]->tag != Tag::Int) return ctx.fail("quantize_per_tensor: scale must be a number");
  if (!expect_tag(ctx, args[2], Tag::Int, "zero_point")) return false;
  return quantize_per_tensor(ctx, "quantize_per_tensor", *args[0]->t, args[1]->to_double(), args[2]->i, args, *args[6]->t);
}

bool quantize_per_tensor_tensor_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[1], Tag::Tensor, "scale") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "zero_point") || !expect_tag(ctx, args[6], Tag::Tensor, "out"))
    return false;
  const Tensor& s = *args[1]->t;
  const Tensor& z = *args[2]->t;
  if (s.numel() != 1 || z.numel() != 1)
    return ctx.fail("quantize_per_tensor.Tensor: scale and zero_point must have one element (got %lld and %lld)",
                    (long long)s.numel(), (long long)z.numel());
  return quantize_per_tensor(ctx, "quantize_per_tensor.Tensor", *args[0]->t, quant::element(s, 0),
                             static_cast<int64_t>(quant::element(z, 0)), args, *args[6]->t);
}

}  // namespace pte
