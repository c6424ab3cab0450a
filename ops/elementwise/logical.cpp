// aten::logical_and.out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::logical_or.out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::logical_xor.out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::logical_not.out(Tensor self, *, Tensor(a!) out)
//
// Inputs of any dtype are read as "!= 0" (nan counts as true), broadcast; out is
// usually bool, any other dtype receives 1 / 0.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct And { bool operator()(bool a, bool b) const { return a && b; } };
struct Or { bool operator()(bool a, bool b) const { return a || b; } };
struct Xor { bool operator()(bool a, bool b) const { return a != b; } };
struct Not { bool operator()(bool a) const { return !a; } };

// args: self, other, out, return
template <class Op>
bool logical_binary(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[2], out, a, b, common)) return false;
  const ew::Operand in[2] = {a, b};
  Op op;
  return ew::map<bool>(ctx, *out, in, op);
}

}  // namespace

bool logical_and_out(KernelContext& ctx, EValue** args) { return logical_binary<And>(ctx, args); }
bool logical_or_out(KernelContext& ctx, EValue** args) { return logical_binary<Or>(ctx, args); }
bool logical_xor_out(KernelContext& ctx, EValue** args) { return logical_binary<Xor>(ctx, args); }

// args: self, out, return
bool logical_not_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a;
  if (!ew::setup_unary(ctx, args[0], args[1], out, a)) return false;
  const ew::Operand in[1] = {a};
  Not op;
  return ew::map<bool>(ctx, *out, in, op);
}

}  // namespace pte
