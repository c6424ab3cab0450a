// quantized_decomposed::mixed_mm.out(Tensor input, Tensor weight, Tensor weight_scales,
//     Tensor? weight_zero_points, *, Tensor(a!) out) -> Tensor(a!)
// out[m, p] = sum_k input[m, k] * (weight[k, p] - zp[k]) * scales[k], int8 weight [n, p],
// scales [n] in the input's dtype (f32/f16/bf16); sums in float.
#include "ops/quantized/quant_util.h"

namespace pte {

namespace {

template <class T>
void mixed_mm_run(const Tensor& x, const Tensor& w, const Tensor& s, const Tensor* z, Tensor& out) {
  const int64_t M = x.sizes[0], N = x.sizes[1], P = w.sizes[1];
  const T* xp = x.ptr<T>();
  const int8_t* wp = w.ptr<int8_t>();
  const T* sp = s.ptr<T>();
  T* yp = out.ptr<T>();
  constexpr int64_t kChunk = 256;
  float acc[kChunk];
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j0 = 0; j0 < P; j0 += kChunk) {
      const int64_t nj = P - j0 < kChunk ? P - j0 : kChunk;
      for (int64_t j = 0; j < nj; ++j) acc[j] = 0.0f;
      for (int64_t k = 0; k < N; ++k) {
        const float xs = convert<float>(xp[i * x.strides[0] + k * x.strides[1]]) * convert<float>(sp[k * s.strides[0]]);
        const float zp = z ? static_cast<float>(quant::element(*z, k)) : 0.0f;
        const int8_t* wr = wp + k * w.strides[0] + j0 * w.strides[1];
        for (int64_t j = 0; j < nj; ++j) acc[j] += xs * (static_cast<float>(wr[j * w.strides[1]]) - zp);
      }
      for (int64_t j = 0; j < nj; ++j) yp[i * out.strides[0] + (j0 + j) * out.strides[1]] = convert<T>(acc[j]);
    }
}

}  // namespace

bool mixed_mm_out(KernelContext& ctx, EValue** args) {
  const char* op = "mixed_mm";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[1], Tag::Tensor, "weight") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "weight_scales") || !expect_tag(ctx, args[4], Tag::Tensor, "out"))
    return false;
  const Tensor& x = *args[0]->t;
  const Tensor& w = *args[1]->t;
  const Tensor& s = *args[2]->t;
  const Tensor* z = args[3]->tag == Tag::Tensor ? args[3]->t : nullptr;
  Tensor& out = *args[4]->t;
  if (x.dim != 2 || w.dim != 2 || s.dim != 1) return ctx.fail("%s: expected 2-D input and weight, 1-D scales", op);
  if (w.dtype != DType::Int8) return ctx.fail("%s: weight must be int8, got %s", op, dtype_name(w.dtype));
  if (x.sizes[1] != w.sizes[0] || s.sizes[0] != w.sizes[0])
    return ctx.fail("%s: input [%lld,%lld], weight [%lld,%lld] and %lld scales do not match", op, (long long)x.sizes[0],
                    (long long)x.sizes[1], (long long)w.sizes[0], (long long)w.sizes[1], (long long)s.sizes[0]);
  if (s.dtype != x.dtype || out.dtype != x.dtype)
    return ctx.fail("%s: input %s, scales %s and out %s must share a dtype", op, dtype_name(x.dtype), dtype_name(s.dtype),
                    dtype_name(out.dtype));
  if (z && z->numel() != s.numel()) return ctx.fail("%s: weight_zero_points must have the shape of weight_scales", op);
  const int64_t sizes[2] = {x.sizes[0], w.sizes[1]};
  if (!resize_output(ctx, out, sizes, 2)) return false;
  switch (x.dtype) {
    case DType::Float: mixed_mm_run<float>(x, w, s, z, out); return true;
    case DType::Half: mixed_mm_run<Half>(x, w, s, z, out); return true;
    case DType::BFloat16: mixed_mm_run<BFloat16>(x, w, s, z, out); return true;
    default: return ctx.fail("%s: unsupported input dtype %s", op, dtype_name(x.dtype));
  }
}

}  // namespace pte
