// aten::argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
// aten::argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
//
// int64 index of the first maximum (minimum) along dim; with dim=None, the index
// into the flattened (logical row-major) tensor. A NaN counts as the extreme.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

template <bool IsMax>
void argmax_run(const ReducePlan& p, const Tensor& in, Tensor& out) {
  int64_t* y = out.ptr<int64_t>();
  int64_t len = 0, s = 0;
  if (in.dtype == DType::Float && inner_row(p.inner, &len, &s)) {  // f32 rows: greedy sampling
    const float* x = in.ptr<float>();
    for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) { y[b] = arg_row<IsMax>(x + a, len, s); });
    return;
  }
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) { y[b] = arg_extreme(in, p.inner, a, IsMax); });
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
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  argmax_run<IsMax>(p, in, out);
  return true;
}

}  // namespace

bool argmax_out(KernelContext& ctx, EValue** args) { return argmax_common<true>(ctx, args, "argmax.out"); }
bool argmin_out(KernelContext& ctx, EValue** args) { return argmax_common<false>(ctx, args, "argmin.out"); }

}  // namespace pte
