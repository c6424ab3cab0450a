// aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
// aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
// aten::rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
//
// sub: out = self - alpha * other; rsub: out = other - alpha * self. Broadcast,
// computed in the result type (integers wrap). Bool operands are refused, as in torch.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct Sub {
  C operator()(C a, C b) const { return ew::sub_(a, b); }
};

template <class C>
struct SubAlpha {
  C alpha;
  C operator()(C a, C b) const { return ew::sub_(a, ew::mul_(alpha, b)); }
};

// in[0] - alpha * in[1]
bool sub_common(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[2], DType common, const EValue* alpha) {
  if (in[0].dtype == DType::Bool || in[1].dtype == DType::Bool)
    return ctx.fail("subtraction with a bool tensor is not supported (use logical_xor or logical_not)");
  if (!ew::check_alpha(ctx, common, alpha) || !ew::check_cast(ctx, common, out)) return false;
  return ew::with_compute(ctx, common, [&](auto c) {
    using C = decltype(c);
    const C a = ew::scalar_as<C>(*alpha);
    if (a == C(1)) {
      Sub<C> op;
      return ew::map<C>(ctx, out, in, op);
    }
    SubAlpha<C> op{a};
    return ew::map<C>(ctx, out, in, op);
  });
}

}  // namespace

// args: self, other, alpha, out, return
bool sub_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[3], out, a, b, common)) return false;
  const ew::Operand in[2] = {a, b};
  return sub_common(ctx, *out, in, common, args[2]);
}

// args: self, other (Scalar), alpha, out, return
bool sub_scalar_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  ew::ScalarBox box;
  if (!ew::setup_scalar(ctx, args[0], args[1], args[3], out, a, b, common, box)) return false;
  const ew::Operand in[2] = {a, b};
  return sub_common(ctx, *out, in, common, args[2]);
}

// args: self, other (Scalar), alpha, out, return; out = other - alpha * self
bool rsub_scalar_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  ew::ScalarBox box;
  if (!ew::setup_scalar(ctx, args[0], args[1], args[3], out, a, b, common, box)) return false;
  const ew::Operand in[2] = {b, a};
  return sub_common(ctx, *out, in, common, args[2]);
}

// Load-time steps (see add.cpp): a bool tensor operand is refused at load.
static bool sub_f32_out(KernelContext& ctx, EValue** args) {
  Sub<float> op;
  return ew::binary_f32(ctx, args, 3, op);
}

static bool sub_scalar_f32_out(KernelContext& ctx, EValue** args) {
  Sub<float> op;
  return ew::binary_scalar_f32(ctx, args, 3, op);
}

static bool sub_prepare_common(KernelContext& ctx, EValue** args, bool scalar_other) {
  const DType common = ew::prepare_binary(ctx, args, 3, scalar_other, args[2]);
  if (common == ew::kNoDType) return false;
  // as the generic kernel: a bool tensor operand (a Scalar other takes the result type)
  if (args[0]->t->dtype == DType::Bool || (!scalar_other && args[1]->t->dtype == DType::Bool))
    return ctx.fail("subtraction with a bool tensor is not supported (use logical_xor or logical_not)");
  return ew::check_cast(ctx, common, *args[3]->t);
}

KernelFn sub_out_prepare(KernelContext& ctx, EValue** args) {
  if (!sub_prepare_common(ctx, args, false)) return nullptr;
  return ew::all_f32({args[0], args[1], args[3]}) && ew::is_unit(*args[2]) ? sub_f32_out : sub_out;
}

KernelFn sub_scalar_out_prepare(KernelContext& ctx, EValue** args) {
  if (!sub_prepare_common(ctx, args, true)) return nullptr;
  return ew::all_f32({args[0], args[3]}) && ew::is_unit(*args[2]) ? sub_scalar_f32_out : sub_scalar_out;
}

}  // namespace pte
