// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
//
// out = condition ? self : other, all three broadcast together, values in the result
// type of (self, other). The condition must be bool (uint8 is accepted as legacy).
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct Where {
  C operator()(C c, C a, C b) const { return c != C(0) ? a : b; }
};

}  // namespace

// args: condition, self, other, out, return
bool where_self_out(KernelContext& ctx, EValue** args) {
  Tensor* cond = ew::tensor_arg(ctx, args[0], "condition");
  Tensor* x = cond ? ew::tensor_arg(ctx, args[1], "self") : nullptr;
  Tensor* y = x ? ew::tensor_arg(ctx, args[2], "other") : nullptr;
  Tensor* out = y ? ew::tensor_arg(ctx, args[3], "out") : nullptr;
  if (!out) return false;
  if (cond->dtype != DType::Bool && cond->dtype != DType::UInt8)
    return ctx.fail("where expected condition to be a boolean tensor, got %s", dtype_name(cond->dtype));
  const Tensor* ts[3] = {cond, x, y};
  int64_t sizes[kMaxDims];
  int32_t dim;
  if (!ew::broadcast_all(ctx, ts, 3, sizes, &dim) || !resize_output(ctx, *out, sizes, dim)) return false;
  ew::ResultType rt;
  rt.add(*x);
  rt.add(*y);
  const DType common = rt.get();
  if (common == ew::kNoDType) return ctx.fail("unsupported dtypes %s and %s", dtype_name(x->dtype), dtype_name(y->dtype));
  if (!ew::check_cast(ctx, common, *out)) return false;
  const ew::Operand in[3] = {ew::operand(*cond), ew::operand(*x), ew::operand(*y)};
  return ew::with_compute(ctx, common, [&](auto c) {
    Where<decltype(c)> op;
    return ew::map<decltype(c)>(ctx, *out, in, op);
  });
}

}  // namespace pte
