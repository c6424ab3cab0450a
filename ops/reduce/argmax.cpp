// aten::argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
// aten::argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
//
// int64 index of the first maximum (minimum) along dim; with dim=None, the index
// into the flattened (logical row-major) tensor. A NaN counts as the extreme.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

template <class T, bool IsMax>
void argmax_typed(const ReducePlan& p, const Tensor& in, Tensor& out) {
  using C = compute_t<T>;
  const T* x = in.ptr<T>();
  int64_t* y = out.ptr<int64_t>();
  int64_t len = 0, s = 0;
  if (inner_row(p.inner, &len, &s)) {
    for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) { y[b] = arg_row<IsMax>(x + a, len, s); });
    return;
  }
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    C best = static_cast<C>(x[a]);
    int64_t best_j = 0, j = 0;
    for_each(p.inner, a, 0, [&](int64_t ia, int64_t) {
      C v = static_cast<C>(x[ia]);
      if (better<IsMax>(v, best)) {
        best = v;
        best_j = j;
      }
      ++j;
    });
    y[b] = best_j;
  });
}

template <bool IsMax>
bool argmax_common(KernelContext& ctx, EValue** args, const char* op) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Bool, "keepdim") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "out"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[3]->t;
  if (out.dtype != DType::Int64) return ctx.fail("%s: out dtype must be int64, got %s", op, dtype_name(out.dtype));
  bool mask[kMaxDims];
  if (args[1]->is_none()) {
    all_dims_mask(in.dim, mask);
  } else {
    if (!expect_tag(ctx, args[1], Tag::Int, "dim")) return false;
    if (!single_dim_mask(ctx, op, args[1]->i, in.dim, mask)) return false;
  }
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, args[2]->b, out, p)) return false;
  if (p.inner.numel == 0 && p.outer.numel > 0)
    return ctx.fail("%s: cannot take the %s of an empty dim", op, IsMax ? "argmax" : "argmin");
  bool ok = visit_any_dtype(in.dtype, [&](auto tag) { argmax_typed<typename decltype(tag)::type, IsMax>(p, in, out); });
  if (!ok) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  return true;
}

}  // namespace

bool argmax_out(KernelContext& ctx, EValue** args) { return argmax_common<true>(ctx, args, "argmax.out"); }
bool argmin_out(KernelContext& ctx, EValue** args) { return argmax_common<false>(ctx, args, "argmin.out"); }

}  // namespace pte
