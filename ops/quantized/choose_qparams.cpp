// quantized_decomposed::choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max,
//     float eps, ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out)
//     -> (Tensor(a!), Tensor(b!))
// One (scale, zero point) for the whole f32 input from its min and max. eps is a
// lower bound on the scale (ExecuTorch ignores it; the 6.1e-5 floor is larger than
// the float32 eps exporters pass). scale_out is f64 (or f32), zero_point_out int64
// (or int32/f32), one element each.
#include "ops/quantized/choose_qparams.h"

#include <algorithm>
#include <cmath>

#include "ops/quantized/quant_util.h"

namespace pte::quant {

void choose_scale_zero_point(float min, float max, int32_t qmin, int32_t qmax, double* scale_out, int32_t* zp_out) {
  constexpr float kSmallScale = 6.1e-5f;
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) scale = 0.1;
  if (scale < kSmallScale) {
    const float org = static_cast<float>(scale);
    scale = kSmallScale;
    if (min == 0.0f) {
      max = kSmallScale * (qmax - qmin);
    } else if (max == 0.0f) {
      min = -kSmallScale * (qmax - qmin);
    } else {
      const float amp = kSmallScale / org;
      min *= amp;
      max *= amp;
    }
  }
  const double zp_from_min = qmin - min / scale;
  const double zp_from_max = qmax - max / scale;
  const double err_min = std::abs(qmin) - std::abs(min / scale);
  const double err_max = std::abs(qmax) - std::abs(max / scale);
  const double initial = err_min < err_max ? zp_from_min : zp_from_max;
  int32_t zp;
  if (initial < qmin)
    zp = qmin;
  else if (initial > qmax)
    zp = qmax;
  else
    zp = static_cast<int32_t>(std::nearbyint(static_cast<float>(initial)));
  *scale_out = scale;
  *zp_out = zp;
}

}  // namespace pte::quant

namespace pte {

namespace {

bool store_param(KernelContext& ctx, Tensor& t, int64_t i, double v, const char* what) {
  const int64_t o = strided_offset(t, i);
  switch (t.dtype) {
    case DType::Double: t.ptr<double>()[o] = v; return true;
    case DType::Float: t.ptr<float>()[o] = static_cast<float>(v); return true;
    case DType::Int64: t.ptr<int64_t>()[o] = static_cast<int64_t>(v); return true;
    case DType::Int32: t.ptr<int32_t>()[o] = static_cast<int32_t>(v); return true;
    default: return ctx.fail("choose_qparams: unsupported %s dtype %s", what, dtype_name(t.dtype));
  }
}

}  // namespace

bool choose_qparams_tensor_out(KernelContext& ctx, EValue** args) {
  const char* op = "choose_qparams";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[1], Tag::Int, "quant_min") ||
      !expect_tag(ctx, args[2], Tag::Int, "quant_max") || !expect_tag(ctx, args[5], Tag::Tensor, "scale_out") ||
      !expect_tag(ctx, args[6], Tag::Tensor, "zero_point_out"))
    return false;
  const Tensor& x = *args[0]->t;
  Tensor& s = *args[5]->t;
  Tensor& z = *args[6]->t;
  const int64_t qmin = args[1]->i, qmax = args[2]->i;
  const double eps = args[3]->to_double();
  if (qmin >= qmax) return ctx.fail("%s: quant_min %lld must be below quant_max %lld", op, (long long)qmin, (long long)qmax);
  if (x.dtype != DType::Float) return ctx.fail("%s: input must be float32, got %s", op, dtype_name(x.dtype));
  const int64_t one = 1;
  if ((s.numel() != 1 && !resize_output(ctx, s, &one, 1)) || (z.numel() != 1 && !resize_output(ctx, z, &one, 1)))
    return false;
  if (x.numel() == 0) return ctx.fail("%s: empty input", op);
  const float* xp = x.ptr<float>();
  const bool c = x.contiguous_order();
  float mn = xp[quant::offset_of(x, c, 0)], mx = mn;
  for (int64_t i = 1, n = x.numel(); i < n; ++i) {
    const float v = xp[quant::offset_of(x, c, i)];
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  double scale;
  int32_t zp;
  quant::choose_scale_zero_point(mn, mx, static_cast<int32_t>(qmin), static_cast<int32_t>(qmax), &scale, &zp);
  if (scale < eps) scale = eps;
  return store_param(ctx, s, 0, scale, "scale_out") && store_param(ctx, z, 0, zp, "zero_point_out");
}

}  // namespace pte
