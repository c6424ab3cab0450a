// quantized_decomposed::mixed_linear.out(Tensor input, Tensor weight, Tensor weight_scales,
//     Tensor? weight_zero_points, ScalarType? dtype=None, *, Tensor(a!) out) -> Tensor(a!)
// out[m, p] = sum_k input[m, k] * (weight[p, k] - zp[p, g]) * scales[p, g], g = k / group,
// with int8 weight [p, n], scales [p] or [p, groups] (group = ceil(n / groups)) in the
// input's dtype (f32/f16/bf16). Sums in float per group, threaded over rows and columns.
#include <pthreadpool.h>

#include "ops/quantized/quant_util.h"

namespace pte {

namespace {

template <class T>
void mixed_linear_run(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor& s, const Tensor* z, Tensor& out) {
  const int64_t M = x.sizes[0], N = x.sizes[1], P = w.sizes[0];
  const int64_t groups = s.dim == 2 ? s.sizes[1] : 1;
  const int64_t gsize = (N + groups - 1) / groups;
  const T* xp = x.ptr<T>();
  const int8_t* wp = w.ptr<int8_t>();
  const T* sp = s.ptr<T>();
  const int64_t ss0 = s.strides[0], ss1 = s.dim == 2 ? s.strides[1] : 0;
  T* yp = out.ptr<T>();
  auto task = [&](size_t i, size_t j0, size_t nj) {
    const T* xr = xp + i * x.strides[0];
    for (size_t j = j0; j < j0 + nj; ++j) {
      const int8_t* wr = wp + j * w.strides[0];
      float total = 0.0f;
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t k0 = g * gsize, k1 = k0 + gsize < N ? k0 + gsize : N;
        float dot = 0.0f, xsum = 0.0f;
        for (int64_t k = k0; k < k1; ++k) {
          const float xv = convert<float>(xr[k * x.strides[1]]);
          dot += xv * static_cast<float>(wr[k * w.strides[1]]);
          xsum += xv;
        }
        const float zp = z ? static_cast<float>(quant::element(*z, j * groups + g)) : 0.0f;
        total += (dot - zp * xsum) * convert<float>(sp[j * ss0 + g * ss1]);
      }
      yp[i * out.strides[0] + j * out.strides[1]] = convert<T>(total);
    }
  };
  const double work = static_cast<double>(M) * P * N;
  pthreadpool_parallelize_2d_tile_1d(work >= 1.0e6 ? ctx.threadpool : nullptr, task, M, P, 64, 0);
}

}  // namespace

bool mixed_linear_out(KernelContext& ctx, EValue** args) {
  const char* op = "mixed_linear";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[1], Tag::Tensor, "weight") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "weight_scales") || !expect_tag(ctx, args[5], Tag::Tensor, "out"))
    return false;
  const Tensor& x = *args[0]->t;
  const Tensor& w = *args[1]->t;
  const Tensor& s = *args[2]->t;
  const Tensor* z = args[3]->tag == Tag::Tensor ? args[3]->t : nullptr;
  Tensor& out = *args[5]->t;
  DType dt;
  bool has_dt;
  if (!quant::read_optional_dtype(ctx, args[4], "dtype", &dt, &has_dt)) return false;
  if (has_dt && dt != out.dtype) return ctx.fail("%s: out dtype %s does not match dtype %s", op, dtype_name(out.dtype), dtype_name(dt));
  if (x.dim != 2 || w.dim != 2 || (s.dim != 1 && s.dim != 2))
    return ctx.fail("%s: expected 2-D input and weight, 1-D or 2-D scales", op);
  if (w.dtype != DType::Int8) return ctx.fail("%s: weight must be int8, got %s", op, dtype_name(w.dtype));
  if (x.sizes[1] != w.sizes[1] || s.sizes[0] != w.sizes[0])
    return ctx.fail("%s: input [%lld,%lld], weight [%lld,%lld] and %lld scale rows do not match", op, (long long)x.sizes[0],
                    (long long)x.sizes[1], (long long)w.sizes[0], (long long)w.sizes[1], (long long)s.sizes[0]);
  if (s.dtype != x.dtype || out.dtype != x.dtype)
    return ctx.fail("%s: input %s, scales %s and out %s must share a dtype", op, dtype_name(x.dtype), dtype_name(s.dtype),
                    dtype_name(out.dtype));
  if (z && z->numel() != s.numel()) return ctx.fail("%s: weight_zero_points must have the shape of weight_scales", op);
  const int64_t sizes[2] = {x.sizes[0], w.sizes[0]};
  if (!resize_output(ctx, out, sizes, 2)) return false;
  switch (x.dtype) {
    case DType::Float: mixed_linear_run<float>(ctx, x, w, s, z, out); return true;
    case DType::Half: mixed_linear_run<Half>(ctx, x, w, s, z, out); return true;
    case DType::BFloat16: mixed_linear_run<BFloat16>(ctx, x, w, s, z, out); return true;
    default: return ctx.fail("%s: unsupported input dtype %s", op, dtype_name(x.dtype));
  }
}

}  // namespace pte
