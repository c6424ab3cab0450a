// aten::amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
// aten::amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
//
// dim [] reduces every dim. NaN propagates. out has the input dtype. Reducing a
// zero-size dim is an error (there is no identity), as in torch.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

template <class T, bool IsMax>
void amax_typed(const ReducePlan& p, const Tensor& in, Tensor& out) {
  using C = compute_t<T>;
  const T* x = in.ptr<T>();
  T* y = out.ptr<T>();
  int64_t len = 0, s = 0;
  if (inner_row(p.inner, &len, &s)) {
    for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) { y[b] = convert<T>(minmax_row<IsMax>(x + a, len, s)); });
    return;
  }
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    C best = static_cast<C>(x[a]);
    for_each(p.inner, a, 0, [&](int64_t ia, int64_t) {
      C v = static_cast<C>(x[ia]);
      if (better<IsMax>(v, best)) best = v;
    });
    y[b] = convert<T>(best);
  });
}

template <bool IsMax>
bool amax_common(KernelContext& ctx, EValue** args, const char* op) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Bool, "keepdim") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "out"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[3]->t;
  if (out.dtype != in.dtype)
    return ctx.fail("%s: out dtype %s must match input dtype %s", op, dtype_name(out.dtype), dtype_name(in.dtype));
  bool mask[kMaxDims];
  if (!parse_dim_mask(ctx, op, args[1], in.dim, true, mask)) return false;
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, args[2]->b, out, p)) return false;
  if (p.inner.numel == 0 && p.outer.numel > 0)
    return ctx.fail("%s: cannot reduce over a zero-size dim (no identity)", op);
  bool ok = visit_any_dtype(in.dtype, [&](auto tag) { amax_typed<typename decltype(tag)::type, IsMax>(p, in, out); });
  if (!ok) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  return true;
}

}  // namespace

bool amax_out(KernelContext& ctx, EValue** args) { return amax_common<true>(ctx, args, "amax.out"); }
bool amin_out(KernelContext& ctx, EValue** args) { return amax_common<false>(ctx, args, "amin.out"); }

}  // namespace pte
