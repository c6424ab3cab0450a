// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
// aten::sum.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
//
// dim None or [] reduces every dim. The input is cast to the out dtype element by
// element (torch semantics for `dtype`), then accumulated in double (floating out)
// or int64 (integral / bool out).
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

template <class T>
void sum_float(const ReducePlan& p, const Tensor& in, Tensor& out, double divisor) {
  const T* x = in.ptr<T>();
  int64_t len = 0, s = 0;
  const bool row = inner_row(p.inner, &len, &s);
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    double acc = 0;
    if (row) {
      acc = sum_row_f64(x + a, len, s);
    } else {
      for_each(p.inner, a, 0, [&](int64_t ia, int64_t) { acc += convert<double>(x[ia]); });
    }
    store_as(out, b, acc / divisor);
  });
}

template <class T>
void sum_int(const ReducePlan& p, const Tensor& in, Tensor& out) {
  const T* x = in.ptr<T>();
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    uint64_t acc = 0;  // unsigned: wraps like torch's int64 sum instead of overflowing
    for_each(p.inner, a, 0, [&](int64_t ia, int64_t) { acc += static_cast<uint64_t>(convert<int64_t>(x[ia])); });
    store_as(out, b, static_cast<int64_t>(acc));
  });
}

}  // namespace

bool sum_reduce(KernelContext& ctx, const char* op, const ReducePlan& p, const Tensor& in, Tensor& out,
                double divisor) {
  if (!is_any_dtype(out.dtype)) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  bool float_out = is_float_dtype(out.dtype);
  bool ok = visit_any_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (float_out)
      sum_float<T>(p, in, out, divisor);
    else
      sum_int<T>(p, in, out);
  });
  if (!ok) return ctx.fail("%s: unsupported input dtype %s", op, dtype_name(in.dtype));
  return true;
}

static bool sum_common(KernelContext& ctx, const char* op, const Tensor& in, const EValue* dim, bool keepdim,
                       const EValue* dtype, Tensor& out) {
  if (!check_dtype_arg(ctx, op, dtype, out)) return false;
  if (!is_any_dtype(out.dtype)) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  if (is_float_dtype(in.dtype) && !is_float_dtype(out.dtype) && (!dtype || dtype->is_none()))
    return ctx.fail("%s: floating input %s needs a floating out, got %s", op, dtype_name(in.dtype),
                    dtype_name(out.dtype));
  bool mask[kMaxDims];
  if (!parse_dim_mask(ctx, op, dim, in.dim, true, mask)) return false;
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, keepdim, out, p)) return false;
  return sum_reduce(ctx, op, p, in, out, 1.0);
}

bool sum_intlist_out(KernelContext& ctx, EValue** args) {
  const char* op = "sum.IntList_out";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Bool, "keepdim") ||
      !expect_tag(ctx, args[4], Tag::Tensor, "out"))
    return false;
  return sum_common(ctx, op, *args[0]->t, args[1], args[2]->b, args[3], *args[4]->t);
}

bool sum_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Tensor, "out")) return false;
  return sum_common(ctx, "sum.out", *args[0]->t, nullptr, false, args[1], *args[2]->t);
}

}  // namespace pte
