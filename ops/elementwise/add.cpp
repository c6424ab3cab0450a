// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
// aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
//
// out = self + alpha * other, broadcast, computed in the result type of (self, other)
// (integers wrap; bool + bool is logical or) and converted to out's dtype.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct Add {
  C operator()(C a, C b) const { return ew::add_(a, b); }
};

template <class C>
struct AddAlpha {
  C alpha;
  C operator()(C a, C b) const { return ew::add_(a, ew::mul_(alpha, b)); }
};

bool add_common(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[2], DType common, const EValue* alpha) {
  if (!ew::check_alpha(ctx, common, alpha) || !ew::check_cast(ctx, common, out)) return false;
  return ew::with_compute(ctx, common, [&](auto c) {
    using C = decltype(c);
    const C a = ew::scalar_as<C>(*alpha);
    if (a == C(1)) {
      Add<C> op;
      return ew::map<C>(ctx, out, in, op);
    }
    AddAlpha<C> op{a};
    return ew::map<C>(ctx, out, in, op);
  });
}

}  // namespace

// args: self, other, alpha, out, return
bool add_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[3], out, a, b, common)) return false;
  const ew::Operand in[2] = {a, b};
  return add_common(ctx, *out, in, common, args[2]);
}

// args: self, other (Scalar), alpha, out, return
bool add_scalar_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  ew::ScalarBox box;
  if (!ew::setup_scalar(ctx, args[0], args[1], args[3], out, a, b, common, box)) return false;
  const ew::Operand in[2] = {a, b};
  return add_common(ctx, *out, in, common, args[2]);
}

// Load-time steps: dtypes, alpha and out's dtype checked once; all-Float with alpha 1
// runs a float body that checks nothing again (ops/kernel.h, KernelPrepareFn).
static bool add_f32_out(KernelContext& ctx, EValue** args) {
  Add<float> op;
  return ew::binary_f32(ctx, args, 3, op);
}

static bool add_scalar_f32_out(KernelContext& ctx, EValue** args) {
  Add<float> op;
  return ew::binary_scalar_f32(ctx, args, 3, op);
}

KernelFn add_out_prepare(KernelContext& ctx, EValue** args) {
  const DType common = ew::prepare_binary(ctx, args, 3, false, args[2]);
  if (common == ew::kNoDType || !ew::check_cast(ctx, common, *args[3]->t)) return nullptr;
  return ew::all_f32({args[0], args[1], args[3]}) && ew::is_unit(*args[2]) ? add_f32_out : add_out;
}

KernelFn add_scalar_out_prepare(KernelContext& ctx, EValue** args) {
  const DType common = ew::prepare_binary(ctx, args, 3, true, args[2]);
  if (common == ew::kNoDType || !ew::check_cast(ctx, common, *args[3]->t)) return nullptr;
  return ew::all_f32({args[0], args[3]}) && ew::is_unit(*args[2]) ? add_scalar_f32_out : add_scalar_out;
}

}  // namespace pte
