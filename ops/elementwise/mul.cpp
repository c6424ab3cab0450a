// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// out = self * other, broadcast, in the result type (integers wrap; bool * bool is
// logical and).
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct Mul {
  C operator()(C a, C b) const { return ew::mul_(a, b); }
};

bool mul_common(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[2], DType common) {
  if (!ew::check_cast(ctx, common, out)) return false;
  return ew::with_compute(ctx, common, [&](auto c) {
    Mul<decltype(c)> op;
    return ew::map<decltype(c)>(ctx, out, in, op);
  });
}

}  // namespace

// args: self, other, out, return
bool mul_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[2], out, a, b, common)) return false;
  const ew::Operand in[2] = {a, b};
  return mul_common(ctx, *out, in, common);
}

// args: self, other (Scalar), out, return
bool mul_scalar_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  ew::ScalarBox box;
  if (!ew::setup_scalar(ctx, args[0], args[1], args[2], out, a, b, common, box)) return false;
  const ew::Operand in[2] = {a, b};
  return mul_common(ctx, *out, in, common);
}

// Load-time steps (see add.cpp).
static bool mul_f32_out(KernelContext& ctx, EValue** args) {
  Mul<float> op;
  return ew::binary_f32(ctx, args, 2, op);
}

static bool mul_scalar_f32_out(KernelContext& ctx, EValue** args) {
  Mul<float> op;
  return ew::binary_scalar_f32(ctx, args, 2, op);
}

KernelFn mul_out_prepare(KernelContext& ctx, EValue** args) {
  const DType common = ew::prepare_binary(ctx, args, 2, false, nullptr);
  if (common == ew::kNoDType || !ew::check_cast(ctx, common, *args[2]->t)) return nullptr;
  return ew::all_f32({args[0], args[1], args[2]}) ? mul_f32_out : mul_out;
}

KernelFn mul_scalar_out_prepare(KernelContext& ctx, EValue** args) {
  const DType common = ew::prepare_binary(ctx, args, 2, true, nullptr);
  if (common == ew::kNoDType || !ew::check_cast(ctx, common, *args[2]->t)) return nullptr;
  return ew::all_f32({args[0], args[2]}) ? mul_scalar_f32_out : mul_scalar_out;
}

}  // namespace pte
