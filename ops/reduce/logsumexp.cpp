// aten::logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out)
//
// log(sum(exp(x))) computed as m + log(sum(exp(x - m))) with m the row maximum
// (m = 0 when it is infinite, as torch does, so all -inf gives -inf and +inf gives
// +inf). dim [] reduces everything. Integral inputs give a floating out. Double
// accumulation.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// In double over chunks converted from any dtype.
void logsumexp_run(const ReducePlan& p, const Tensor& in, Tensor& out) {
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    double m = -INFINITY;
    for_chunks<double>(in.dtype, in.data, p.inner, a, [&](const double* x, int64_t n, int64_t) {
      for (int64_t i = 0; i < n; ++i)
        if (better<true>(x[i], m)) m = x[i];
    });
    if (std::isinf(m)) m = 0;
    double s = 0;
    for_chunks<double>(in.dtype, in.data, p.inner, a, [&](const double* x, int64_t n, int64_t) {
      for (int64_t i = 0; i < n; ++i) s += std::exp(x[i] - m);
    });
    store_f64(out, b, std::log(s) + m);
  });
}

}  // namespace

bool logsumexp_out(KernelContext& ctx, EValue** args) {
  const char* op = "logsumexp.out";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Bool, "keepdim") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "out"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[3]->t;
  if (!is_float_dtype(out.dtype)) return ctx.fail("%s: out dtype must be floating, got %s", op, dtype_name(out.dtype));
  bool mask[kMaxDims];
  if (!parse_dim_mask(ctx, op, args[1], in.dim, true, mask)) return false;
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, args[2]->b, out, p)) return false;
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  logsumexp_run(p, in, out);
  return true;
}

}  // namespace pte
