// aten::linalg_vector_norm.out(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,
//                              ScalarType? dtype=None, Tensor(a!) out)
//
// ord inf: max |x|; -inf: min |x|; 0: number of non-zeros; 1: sum |x|; 2: sqrt of
// the sum of squares; other p: (sum |x|^p)^(1/p). dim None or [] reduces
// everything. Floating dtypes only; double accumulation. inf or negative orders
// over an empty reduction are errors (no identity), as in torch.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// In double over chunks converted from any dtype.
void vector_norm_run(const ReducePlan& p, const Tensor& in, Tensor& out, double ord) {
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    double r = 0;
    bool first = true;
    for_chunks<double>(in.dtype, in.data, p.inner, a, [&](const double* x, int64_t m, int64_t) {
      if (std::isinf(ord)) {
        for (int64_t i = 0; i < m; ++i) {
          double v = std::fabs(x[i]);
          if (first || (ord > 0 ? better<true>(v, r) : better<false>(v, r))) r = v;
          first = false;
        }
      } else if (ord == 0) {
        for (int64_t i = 0; i < m; ++i) r += x[i] != 0 ? 1.0 : (std::isnan(x[i]) ? x[i] : 0.0);
      } else if (ord == 1) {
        for (int64_t i = 0; i < m; ++i) r += std::fabs(x[i]);
      } else if (ord == 2) {
        for (int64_t i = 0; i < m; ++i) r += x[i] * x[i];
      } else {
        for (int64_t i = 0; i < m; ++i) r += std::pow(std::fabs(x[i]), ord);
      }
    });
    if (!std::isinf(ord) && ord == 2)
      r = std::sqrt(r);
    else if (!std::isinf(ord) && ord != 0 && ord != 1)
      r = std::pow(r, 1.0 / ord);
    store_f64(out, b, r);
  });
}

}  // namespace

bool linalg_vector_norm_out(KernelContext& ctx, EValue** args) {
  const char* op = "linalg_vector_norm.out";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[3], Tag::Bool, "keepdim") ||
      !expect_tag(ctx, args[5], Tag::Tensor, "out"))
    return false;
  const EValue* ordv = args[1];
  if (ordv->tag != Tag::Int && ordv->tag != Tag::Double)
    return ctx.fail("%s: ord must be a number, got %s", op, tag_name(ordv->tag));
  const double ord = ordv->to_double();
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[5]->t;
  if (!check_dtype_arg(ctx, op, args[4], out)) return false;
  if (!is_float_dtype(in.dtype) || !is_float_dtype(out.dtype))
    return ctx.fail("%s: only floating dtypes are supported, got %s -> %s", op, dtype_name(in.dtype),
                    dtype_name(out.dtype));
  bool mask[kMaxDims];
  if (!parse_dim_mask(ctx, op, args[2], in.dim, true, mask)) return false;
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, args[3]->b, out, p)) return false;
  if (p.inner.numel == 0 && p.outer.numel > 0 && (ord < 0 || std::isinf(ord)))
    return ctx.fail("%s: the norm of order %g over an empty dim has no identity", op, ord);
  vector_norm_run(p, in, out, ord);
  return true;
}

}  // namespace pte
