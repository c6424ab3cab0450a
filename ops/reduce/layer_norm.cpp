// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps, *,
//                             Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
//
// Normalises over the trailing dims named by normalized_shape: for each row,
// mean = sum/N, var = sum((x-mean)^2)/N (biased), rstd = 1/sqrt(var + eps) (two
// passes in double), out0 = (x - mean) * rstd * weight + bias. out1 (mean) and out2
// (rstd) have the input's shape with the normalized dims set to 1. The return slot is
// a TensorList of the three outs and is not read. weight/bias may have another
// floating dtype than the input (both the same one). An empty normalized shape gives
// mean 0 and rstd NaN (ExecuTorch's portable kernel does the same).
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

struct LayerNormArgs {
  const Tensor* in;
  const Tensor* weight;  // null when None
  const Tensor* bias;    // null when None
  double eps;
  Tensor* out;
  Tensor* mean;
  Tensor* rstd;
};

// f32 input and weights, contiguous rows: the hot path (transformers' LayerNorm).
void layer_norm_f32(KernelContext& ctx, const ReducePlan& p, const LayerNormArgs& a) {
  const float* x = a.in->ptr<float>();
  float* y = a.out->ptr<float>();
  const float* w = a.weight ? a.weight->ptr<float>() : nullptr;
  const float* bi = a.bias ? a.bias->ptr<float>() : nullptr;
  const bool m_contig = a.mean->contiguous_order(), r_contig = a.rstd->contiguous_order();
  const int64_t n = p.inner.numel;
  int64_t len = 0, sa = 0, sb = 0;
  inner_row(p.inner, &len, &sa, &sb);
  parallel_for_each(ctx, p.outer, p.outer.numel * n * 3, [&](int64_t ra, int64_t rb, int64_t k) {
    double mean = 0, rstd = NAN;
    if (n > 0) {
      mean = sum_row_f64(x + ra, len, sa) / static_cast<double>(n);
      rstd = 1.0 / std::sqrt(sq_dev_row_f64(x + ra, len, sa, mean) / static_cast<double>(n) + a.eps);
    }
    const float mc = static_cast<float>(mean), rc = static_cast<float>(rstd);
    const float* xr = x + ra;
    float* yr = y + rb;
    for (int64_t j = 0; j < len; ++j) {
      float v = (xr[j * sa] - mc) * rc;
      if (w) v *= w[j];
      if (bi) v += bi[j];
      yr[j * sb] = v;
    }
    store_f64(*a.mean, m_contig ? k : strided_offset(*a.mean, k), mean);
    store_f64(*a.rstd, r_contig ? k : strided_offset(*a.rstd, k), rstd);
  });
}

// n elements from logical index j0 of a 1-d-like weight or bias, converted to C.
template <class C>
void load_param(const Tensor& t, int64_t j0, int64_t n, C* dst) {
  if (t.contiguous_order()) return load_row(t.dtype, t.data, j0, n, 1, dst);
  for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<C>(load_f64(t, strided_offset(t, j0 + j)));
}

// Any floating dtypes: statistics in double over converted chunks, the affine part
// in C (double for a double input, float otherwise, as torch computes).
template <class C>
void layer_norm_any(KernelContext& ctx, const ReducePlan& p, const LayerNormArgs& a) {
  const bool m_contig = a.mean->contiguous_order(), r_contig = a.rstd->contiguous_order();
  const int64_t n = p.inner.numel;
  int64_t len = 0, sa = 0;
  const bool contig_params = (!a.weight || a.weight->contiguous_order()) && (!a.bias || a.bias->contiguous_order());
  const bool row = inner_row(p.inner, &len, &sa) && contig_params;  // else one accumulator, as before
  parallel_for_each(ctx, p.outer, p.outer.numel * n * 3, [&](int64_t ra, int64_t rb, int64_t k) {
    double mean = 0, rstd = NAN;
    if (n > 0) {
      mean = row_sum(p.inner, *a.in, ra, row && sa == 1, [](double v) { return v; }) / static_cast<double>(n);
      const double m2 = row_sum(p.inner, *a.in, ra, row, [mean](double v) {
        const double d = v - mean;
        return d * d;
      });
      rstd = 1.0 / std::sqrt(m2 / static_cast<double>(n) + a.eps);
    }
    const C mc = static_cast<C>(mean), rc = static_cast<C>(rstd);
    for_chunks<C>(a.in->dtype, a.in->data, p.inner, ra, [&](const C* xb, int64_t m, int64_t j0) {
      C v[kChunk], pb[kChunk];
      for (int64_t j = 0; j < m; ++j) v[j] = (xb[j] - mc) * rc;
      if (a.weight) {
        load_param(*a.weight, j0, m, pb);
        for (int64_t j = 0; j < m; ++j) v[j] *= pb[j];
      }
      if (a.bias) {
        load_param(*a.bias, j0, m, pb);
        for (int64_t j = 0; j < m; ++j) v[j] += pb[j];
      }
      scatter(*a.out, p.inner, rb, j0, m, v);
    });
    store_f64(*a.mean, m_contig ? k : strided_offset(*a.mean, k), mean);
    store_f64(*a.rstd, r_contig ? k : strided_offset(*a.rstd, k), rstd);
  });
}

const Tensor* optional_tensor(const EValue* v) { return v && v->is_tensor() ? v->t : nullptr; }

}  // namespace

bool native_layer_norm_out(KernelContext& ctx, EValue** args) {
  const char* op = "native_layer_norm.out";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[1], Tag::IntList, "normalized_shape") ||
      !expect_tag(ctx, args[5], Tag::Tensor, "out0") || !expect_tag(ctx, args[6], Tag::Tensor, "out1") ||
      !expect_tag(ctx, args[7], Tag::Tensor, "out2"))
    return false;
  if (args[4]->tag != Tag::Double && args[4]->tag != Tag::Int)
    return ctx.fail("%s: eps must be a float, got %s", op, tag_name(args[4]->tag));
  LayerNormArgs a{args[0]->t, optional_tensor(args[2]), optional_tensor(args[3]), args[4]->to_double(),
                  args[5]->t,  args[6]->t,                args[7]->t};
  const Tensor& in = *a.in;
  size_t k = 0;
  const int64_t* ns = args[1]->int_list(&k);
  if (k < 1 || static_cast<int64_t>(k) > in.dim)
    return ctx.fail("%s: normalized_shape has %zu dims, input has %d", op, k, in.dim);
  const int32_t axis = in.dim - static_cast<int32_t>(k);
  int64_t n = 1;
  for (size_t i = 0; i < k; ++i) {
    if (in.sizes[axis + i] != ns[i])
      return ctx.fail("%s: normalized_shape[%zu] = %lld does not match input dim %zu of size %lld", op, i,
                      static_cast<long long>(ns[i]), axis + i, static_cast<long long>(in.sizes[axis + i]));
    n *= ns[i];
  }
  for (const Tensor* t : {a.weight, a.bias})
    if (t && t->numel() != n)
      return ctx.fail("%s: weight/bias has %lld elements, expected %lld", op, static_cast<long long>(t->numel()),
                      static_cast<long long>(n));
  if (!is_float_dtype(in.dtype) || a.out->dtype != in.dtype)
    return ctx.fail("%s: input and out0 must share a floating dtype, got %s and %s", op, dtype_name(in.dtype),
                    dtype_name(a.out->dtype));
  if (!is_float_dtype(a.mean->dtype) || !is_float_dtype(a.rstd->dtype))
    return ctx.fail("%s: mean/rstd outs must be floating", op);
  const DType wdt = a.weight ? a.weight->dtype : a.bias ? a.bias->dtype : in.dtype;
  if (!is_float_dtype(wdt) || (a.weight && a.bias && a.weight->dtype != a.bias->dtype))
    return ctx.fail("%s: weight and bias must share a floating dtype", op);

  bool mask[kMaxDims] = {};
  for (int d = axis; d < in.dim; ++d) mask[d] = true;
  ReducePlan p;
  if (!plan_same_shape(ctx, in, mask, *a.out, p)) return false;
  if (!resize_output(ctx, *a.mean, p.out_sizes, p.out_dim) || !resize_output(ctx, *a.rstd, p.out_sizes, p.out_dim))
    return false;
  int64_t len = 0, sa = 0;
  const bool contig_params = (!a.weight || a.weight->contiguous_order()) && (!a.bias || a.bias->contiguous_order());
  if (in.dtype == DType::Float && wdt == DType::Float && contig_params && inner_row(p.inner, &len, &sa))
    layer_norm_f32(ctx, p, a);
  else if (in.dtype == DType::Double)
    layer_norm_any<double>(ctx, p, a);
  else
    layer_norm_any<float>(ctx, p, a);
  return true;
}

}  // namespace pte
