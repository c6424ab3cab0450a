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

// One contiguous-or-strided row: out = (x - mean) * rstd * w + b.
template <class T, class W, class C>
void layer_norm_row(const T* x, int64_t sx, T* y, int64_t sy, int64_t n, const W* w, const W* b, C mean, C rstd) {
  if (w && b) {
    for (int64_t j = 0; j < n; ++j)
      y[j * sy] = convert<T>((static_cast<C>(x[j * sx]) - mean) * rstd * static_cast<C>(w[j]) + static_cast<C>(b[j]));
  } else if (w) {
    for (int64_t j = 0; j < n; ++j)
      y[j * sy] = convert<T>((static_cast<C>(x[j * sx]) - mean) * rstd * static_cast<C>(w[j]));
  } else if (b) {
    for (int64_t j = 0; j < n; ++j)
      y[j * sy] = convert<T>((static_cast<C>(x[j * sx]) - mean) * rstd + static_cast<C>(b[j]));
  } else {
    for (int64_t j = 0; j < n; ++j) y[j * sy] = convert<T>((static_cast<C>(x[j * sx]) - mean) * rstd);
  }
}

template <class T, class W>
void layer_norm_typed(KernelContext& ctx, const ReducePlan& p, const LayerNormArgs& a) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const T* x = a.in->ptr<T>();
  T* y = a.out->ptr<T>();
  const W* w = a.weight ? a.weight->ptr<W>() : nullptr;
  const W* bi = a.bias ? a.bias->ptr<W>() : nullptr;
  const bool w_contig = !a.weight || a.weight->contiguous_order();
  const bool b_contig = !a.bias || a.bias->contiguous_order();
  const bool m_contig = a.mean->contiguous_order(), r_contig = a.rstd->contiguous_order();
  const int64_t n = p.inner.numel;
  int64_t len = 0, sa = 0, sb = 0;
  const bool row = inner_row(p.inner, &len, &sa, &sb) && w_contig && b_contig;
  parallel_for_each(ctx, p.outer, p.outer.numel * n * 3, [&](int64_t ra, int64_t rb, int64_t k) {
    double mean = 0, rstd = NAN;
    if (n > 0) {
      double s = 0, m2 = 0;
      if (row) {
        s = sum_row_f64(x + ra, len, sa);
        mean = s / static_cast<double>(n);
        m2 = sq_dev_row_f64(x + ra, len, sa, mean);
      } else {
        for_each(p.inner, ra, 0, [&](int64_t ia, int64_t) { s += convert<double>(x[ia]); });
        mean = s / static_cast<double>(n);
        for_each(p.inner, ra, 0, [&](int64_t ia, int64_t) {
          double d = convert<double>(x[ia]) - mean;
          m2 += d * d;
        });
      }
      rstd = 1.0 / std::sqrt(m2 / static_cast<double>(n) + a.eps);
    }
    const C mc = static_cast<C>(mean), rc = static_cast<C>(rstd);
    if (row) {
      layer_norm_row<T, W, C>(x + ra, sa, y + rb, sb, len, w, bi, mc, rc);
    } else {
      int64_t j = 0;
      for_each(p.inner, ra, rb, [&](int64_t ia, int64_t ib) {
        C v = (static_cast<C>(x[ia]) - mc) * rc;
        if (w) v *= static_cast<C>(w[w_contig ? j : strided_offset(*a.weight, j)]);
        if (bi) v += static_cast<C>(bi[b_contig ? j : strided_offset(*a.bias, j)]);
        y[ib] = convert<T>(v);
        ++j;
      });
    }
    store_as(*a.mean, m_contig ? k : strided_offset(*a.mean, k), mean);
    store_as(*a.rstd, r_contig ? k : strided_offset(*a.rstd, k), rstd);
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
  visit_float_dtype(in.dtype, [&](auto ti) {
    visit_float_dtype(wdt, [&](auto tw) {
      layer_norm_typed<typename decltype(ti)::type, typename decltype(tw)::type>(ctx, p, a);
    });
  });
  return true;
}

}  // namespace pte
