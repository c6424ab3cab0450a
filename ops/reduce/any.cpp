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

template <class T, bool IsAll>
void any_typed(const ReducePlan& p, const Tensor& in, Tensor& out) {
  const T* x = in.ptr<T>();
  int64_t len = 0, s = 0;
  const bool row = inner_row(p.inner, &len, &s);
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    bool r = IsAll;
    if (row) {
      const T* q = x + a;
      for (int64_t i = 0; i < len; ++i) {
        if (convert<bool>(q[i * s]) != IsAll) {
          r = !IsAll;
          break;
        }
      }
    } else {
      for_each(p.inner, a, 0, [&](int64_t ia, int64_t) {
        if (convert<bool>(x[ia]) != IsAll) r = !IsAll;
      });
    }
    store_as(out, b, r);
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
  bool ok = visit_any_dtype(in.dtype, [&](auto tag) { any_typed<typename decltype(tag)::type, IsAll>(p, in, out); });
  if (!ok) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
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
