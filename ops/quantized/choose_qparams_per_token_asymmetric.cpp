// quantized_decomposed::choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype,
//     *, Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))
// Per row of the last dim (a token): (scale, zero point) for [-128, 127] from the row's
// min and max, like choose_qparams. Outputs are resized to input.shape[:-1] + [1];
// scale_out f64 or f32, zero_point_out int64, int32 or f32 (torch's op returns f32).
#include <algorithm>

#include "ops/quantized/choose_qparams.h"
#include "ops/quantized/quant_util.h"

namespace pte {

bool choose_qparams_per_token_asymmetric_out(KernelContext& ctx, EValue** args) {
  const char* op = "choose_qparams_per_token_asymmetric";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[2], Tag::Tensor, "scale_out") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "zero_point_out"))
    return false;
  const Tensor& x = *args[0]->t;
  Tensor& s = *args[2]->t;
  Tensor& z = *args[3]->t;
  if (x.dtype != DType::Float) return ctx.fail("%s: input must be float32, got %s", op, dtype_name(x.dtype));
  if (x.dim == 0) return ctx.fail("%s: input must have at least one dim", op);
  int64_t sizes[kMaxDims];
  for (int i = 0; i < x.dim - 1; ++i) sizes[i] = x.sizes[i];
  sizes[x.dim - 1] = 1;
  if (!resize_output(ctx, s, sizes, x.dim) || !resize_output(ctx, z, sizes, x.dim)) return false;
  const bool sf = s.dtype == DType::Float || s.dtype == DType::Double;
  const bool zf = z.dtype == DType::Int64 || z.dtype == DType::Int32 || z.dtype == DType::Float;
  if (!sf || !zf)
    return ctx.fail("%s: unsupported output dtypes (scale %s, zero point %s)", op, dtype_name(s.dtype), dtype_name(z.dtype));
  const int64_t dim = x.sizes[x.dim - 1];
  if (dim == 0) return ctx.fail("%s: empty last dim", op);
  const int64_t tokens = x.numel() / dim;
  const float* xp = x.ptr<float>();
  const bool c = x.contiguous_order();
  for (int64_t t = 0; t < tokens; ++t) {
    float mn = xp[quant::offset_of(x, c, t * dim)], mx = mn;
    for (int64_t j = 1; j < dim; ++j) {
      const float v = xp[quant::offset_of(x, c, t * dim + j)];
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
    double scale;
    int32_t zp;
    quant::choose_scale_zero_point(mn, mx, -128, 127, &scale, &zp);
    const int64_t so = strided_offset(s, t), zo = strided_offset(z, t);
    if (s.dtype == DType::Double)
      s.ptr<double>()[so] = scale;
    else
      s.ptr<float>()[so] = static_cast<float>(scale);
    if (z.dtype == DType::Int64)
      z.ptr<int64_t>()[zo] = zp;
    else if (z.dtype == DType::Int32)
      z.ptr<int32_t>()[zo] = zp;
    else
      z.ptr<float>()[zo] = static_cast<float>(zp);
  }
  return true;
}

}  // namespace pte
