// aten::{eq,ne,lt,le,gt,ge}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::{eq,ne,lt,le,gt,ge}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// Broadcast comparison in the result type of (self, other) (so int == 2.5 compares
// in float); out is usually bool, any other dtype receives 1 / 0. NaN compares
// unequal to everything.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct Eq { template <class C> bool operator()(C a, C b) const { return a == b; } };
struct Ne { template <class C> bool operator()(C a, C b) const { return a != b; } };
struct Lt { template <class C> bool operator()(C a, C b) const { return a < b; } };
struct Le { template <class C> bool operator()(C a, C b) const { return a <= b; } };
struct Gt { template <class C> bool operator()(C a, C b) const { return a > b; } };
struct Ge { template <class C> bool operator()(C a, C b) const { return a >= b; } };

template <class Op>
bool compare_run(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[2], DType common) {
  return ew::with_compute(ctx, common, [&](auto c) {
    Op op;
    return ew::map<decltype(c)>(ctx, out, in, op);
  });
}

// args: self, other, out, return
template <class Op>
bool compare_tensor(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[2], out, a, b, common)) return false;
  const ew::Operand in[2] = {a, b};
  return compare_run<Op>(ctx, *out, in, common);
}

// args: self, other (Scalar), out, return
template <class Op>
bool compare_scalar(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  ew::ScalarBox box;
  if (!ew::setup_scalar(ctx, args[0], args[1], args[2], out, a, b, common, box)) return false;
  const ew::Operand in[2] = {a, b};
  return compare_run<Op>(ctx, *out, in, common);
}

}  // namespace

bool eq_tensor_out(KernelContext& ctx, EValue** args) { return compare_tensor<Eq>(ctx, args); }
bool ne_tensor_out(KernelContext& ctx, EValue** args) { return compare_tensor<Ne>(ctx, args); }
bool lt_tensor_out(KernelContext& ctx, EValue** args) { return compare_tensor<Lt>(ctx, args); }
bool le_tensor_out(KernelContext& ctx, EValue** args) { return compare_tensor<Le>(ctx, args); }
bool gt_tensor_out(KernelContext& ctx, EValue** args) { return compare_tensor<Gt>(ctx, args); }
bool ge_tensor_out(KernelContext& ctx, EValue** args) { return compare_tensor<Ge>(ctx, args); }

bool eq_scalar_out(KernelContext& ctx, EValue** args) { return compare_scalar<Eq>(ctx, args); }
bool ne_scalar_out(KernelContext& ctx, EValue** args) { return compare_scalar<Ne>(ctx, args); }
bool lt_scalar_out(KernelContext& ctx, EValue** args) { return compare_scalar<Lt>(ctx, args); }
bool le_scalar_out(KernelContext& ctx, EValue** args) { return compare_scalar<Le>(ctx, args); }
bool gt_scalar_out(KernelContext& ctx, EValue** args) { return compare_scalar<Gt>(ctx, args); }
bool ge_scalar_out(KernelContext& ctx, EValue** args) { return compare_scalar<Ge>(ctx, args); }

}  // namespace pte
