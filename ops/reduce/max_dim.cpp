// aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values)
// aten::min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, Tensor(b!) min_indices)
// aten::max.unary_out(Tensor self, *, Tensor(a!) out)
// aten::min.unary_out(Tensor self, *, Tensor(a!) out)
//
// The .dim forms return the values (input dtype) and their int64 indices along dim
// (the second out, despite its name `max_values` in the schema); the first maximum
// wins, and a NaN wins over numbers (its index is returned). Their return slot is a
// TensorList of both outs and is not read. The .unary forms reduce everything to a
// 0-d tensor. Reducing a zero-size dim is an error.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

template <bool IsMax>
void max_dim_run(const ReducePlan& p, const Tensor& in, Tensor& values, Tensor& indices) {
  const bool idx_contig = indices.contiguous_order();
  int64_t k = 0;
  int64_t len = 0, s = 0;
  if (in.dtype == DType::Float && inner_row(p.inner, &len, &s)) {  // f32 rows
    const float* x = in.ptr<float>();
    float* y = values.ptr<float>();
    for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
      const int64_t j = arg_row<IsMax>(x + a, len, s);
      y[b] = x[a + j * s];
      store_i64(indices, idx_contig ? k : strided_offset(indices, k), j);
      ++k;
    });
    return;
  }
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    const int64_t j = arg_extreme(in, p.inner, a, IsMax);
    copy_element(in, iter_offset(p.inner, a, j), values, b);
    store_i64(indices, idx_contig ? k : strided_offset(indices, k), j);
    ++k;
  });
}

template <bool IsMax>
bool max_dim_common(KernelContext& ctx, EValue** args, const char* op) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Int, "dim") ||
      !expect_tag(ctx, args[2], Tag::Bool, "keepdim") || !expect_tag(ctx, args[3], Tag::Tensor, "values") ||
      !expect_tag(ctx, args[4], Tag::Tensor, "indices"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& values = *args[3]->t;
  Tensor& indices = *args[4]->t;
  if (values.dtype != in.dtype)
    return ctx.fail("%s: values dtype %s must match input dtype %s", op, dtype_name(values.dtype),
                    dtype_name(in.dtype));
  if (!is_int_dtype(indices.dtype))
    return ctx.fail("%s: indices dtype must be int64, got %s", op, dtype_name(indices.dtype));
  bool mask[kMaxDims];
  if (!single_dim_mask(ctx, op, args[1]->i, in.dim, mask)) return false;
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, args[2]->b, values, p)) return false;
  if (!resize_output(ctx, indices, p.out_sizes, p.out_dim)) return false;
  if (p.inner.numel == 0 && p.outer.numel > 0)
    return ctx.fail("%s: cannot reduce over a zero-size dim", op);
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  max_dim_run<IsMax>(p, in, values, indices);
  return true;
}

template <bool IsMax>
void max_all_run(const Tensor& in, Tensor& out) {
  const int64_t n = in.numel();
  const bool contig = in.contiguous_order();
  if (contig && in.dtype == DType::Float) {
    out.ptr<float>()[0] = minmax_row<IsMax>(in.ptr<float>(), n, 1);
    return;
  }
  // Any dtype: the value at the first extreme in logical order; a NaN gives the
  // quiet NaN for a contiguous input (minmax_row's result), else the first NaN.
  DimIter it;
  for (int d = 0; d < in.dim; ++d) it.push(in.sizes[d], in.strides[d], 0);
  const int64_t off = iter_offset(it, 0, arg_extreme(in, it, 0, IsMax));
  if (contig && is_nan_at(in, off))
    store_f64(out, 0, std::numeric_limits<double>::quiet_NaN());
  else
    copy_element(in, off, out, 0);
}

template <bool IsMax>
bool max_unary_common(KernelContext& ctx, EValue** args, const char* op) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Tensor, "out")) return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[1]->t;
  if (out.dtype != in.dtype)
    return ctx.fail("%s: out dtype %s must match input dtype %s", op, dtype_name(out.dtype), dtype_name(in.dtype));
  if (!resize_output(ctx, out, nullptr, 0)) return false;
  if (in.numel() == 0) return ctx.fail("%s: empty input has no %s", op, IsMax ? "maximum" : "minimum");
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  max_all_run<IsMax>(in, out);
  return true;
}

}  // namespace

bool max_dim_max(KernelContext& ctx, EValue** args) { return max_dim_common<true>(ctx, args, "max.dim_max"); }
bool min_dim_min(KernelContext& ctx, EValue** args) { return max_dim_common<false>(ctx, args, "min.dim_min"); }
bool max_unary_out(KernelContext& ctx, EValue** args) { return max_unary_common<true>(ctx, args, "max.unary_out"); }
bool min_unary_out(KernelContext& ctx, EValue** args) { return max_unary_common<false>(ctx, args, "min.unary_out"); }

}  // namespace pte
