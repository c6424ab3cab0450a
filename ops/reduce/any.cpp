// aten::any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
// aten::any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
// aten::any.all_out(Tensor self, *, Tensor(a!) out)
// aten::all.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
// aten::all.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
// aten::all.all_out(Tensor self, *, Tensor(a!) out)
//
// Logical or / and of `self != 0`. dims=None reduces everything; dims=[] reduces
// nothing (torch: the result is self != 0). An empty reduction gives false for any,
// true for all. out is bool (torch uses uint8 for a uint8 input); any dtype is
// written as 0/1.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// Every dtype is read as double in chunks (x != 0 is the same test on the double).
void any_run(const ReducePlan& p, const Tensor& in, Tensor& out, bool is_all) {
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    bool r = is_all;
    double buf[kChunk];
    for (int64_t i0 = 0; i0 < p.inner.numel && r == is_all; i0 += kChunk) {
      const int64_t m = p.inner.numel - i0 < kChunk ? p.inner.numel - i0 : kChunk;
      gather(in.dtype, in.data, p.inner, a, i0, m, buf);
      for (int64_t i = 0; i < m; ++i)
        if ((buf[i] != 0.0) != is_all) {
          r = !is_all;
          break;
        }
    }
    store_i64(out, b, r);
  });
}

template <bool IsAll>
bool any_common(KernelContext& ctx, const char* op, const EValue* self, const EValue* dim, bool single,
                const EValue* keepdim, const EValue* outv) {
  if (!expect_tag(ctx, self, Tag::Tensor, "self") || !expect_tag(ctx, outv, Tag::Tensor, "out")) return false;
  if (keepdim && !expect_tag(ctx, keepdim, Tag::Bool, "keepdim")) return false;
  const Tensor& in = *self->t;
  Tensor& out = *outv->t;
  if (!is_any_dtype(out.dtype)) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  bool mask[kMaxDims];
  if (single) {
    if (!expect_tag(ctx, dim, Tag::Int, "dim") || !single_dim_mask(ctx, op, dim->i, in.dim, mask)) return false;
  } else if (!parse_dim_mask(ctx, op, dim, in.dim, false, mask)) {
    return false;
  }
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, keepdim ? keepdim->b : false, out, p)) return false;
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  any_run(p, in, out, IsAll);
  return true;
}

}  // namespace

bool any_out(KernelContext& ctx, EValue** args) {
  return any_common<false>(ctx, "any.out", args[0], args[1], true, args[2], args[3]);
}
bool any_dims_out(KernelContext& ctx, EValue** args) {
  return any_common<false>(ctx, "any.dims_out", args[0], args[1], false, args[2], args[3]);
}
bool any_all_out(KernelContext& ctx, EValue** args) {
  return any_common<false>(ctx, "any.all_out", args[0], nullptr, false, nullptr, args[1]);
}
bool all_out(KernelContext& ctx, EValue** args) {
  return any_common<true>(ctx, "all.out", args[0], args[1], true, args[2], args[3]);
}
bool all_dims_out(KernelContext& ctx, EValue** args) {
  return any_common<true>(ctx, "all.dims_out", args[0], args[1], false, args[2], args[3]);
}
bool all_all_out(KernelContext& ctx, EValue** args) {
  return any_common<true>(ctx, "all.all_out", args[0], nullptr, false, nullptr, args[1]);
}

}  // namespace pte
