// aten::bitwise_{and,or,xor}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::bitwise_{and,or,xor}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
// aten::bitwise_not.out(Tensor self, *, Tensor(a!) out)
//
// Integer and bool dtypes only (bool: logical and/or/xor/not), broadcast, in the
// result type of the inputs.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct BitAnd { int64_t operator()(int64_t a, int64_t b) const { return a & b; } };
struct BitOr { int64_t operator()(int64_t a, int64_t b) const { return a | b; } };
struct BitXor { int64_t operator()(int64_t a, int64_t b) const { return a ^ b; } };
struct BitNot { int64_t operator()(int64_t a) const { return ~a; } };
struct BoolNot { bool operator()(bool a) const { return !a; } };

bool check_integral(KernelContext& ctx, DType t) {
  if (ew::is_integral(t) || t == DType::Bool) return true;
  return ctx.fail("bitwise ops support integer and bool dtypes only, got %s", dtype_name(t));
}

template <class Op>
bool bitwise_run(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[2], DType common) {
  if (!check_integral(ctx, common) || !ew::check_cast(ctx, common, out)) return false;
  Op op;
  return ew::map<int64_t>(ctx, out, in, op);
}

// args: self, other, out, return
template <class Op>
bool bitwise_tensor(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[2], out, a, b, common)) return false;
  const ew::Operand in[2] = {a, b};
  return bitwise_run<Op>(ctx, *out, in, common);
}

// args: self, other (Scalar), out, return
template <class Op>
bool bitwise_scalar(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  ew::ScalarBox box;
  if (!ew::setup_scalar(ctx, args[0], args[1], args[2], out, a, b, common, box)) return false;
  const ew::Operand in[2] = {a, b};
  return bitwise_run<Op>(ctx, *out, in, common);
}

}  // namespace

bool bitwise_and_tensor_out(KernelContext& ctx, EValue** args) { return bitwise_tensor<BitAnd>(ctx, args); }
bool bitwise_or_tensor_out(KernelContext& ctx, EValue** args) { return bitwise_tensor<BitOr>(ctx, args); }
bool bitwise_xor_tensor_out(KernelContext& ctx, EValue** args) { return bitwise_tensor<BitXor>(ctx, args); }
bool bitwise_and_scalar_out(KernelContext& ctx, EValue** args) { return bitwise_scalar<BitAnd>(ctx, args); }
bool bitwise_or_scalar_out(KernelContext& ctx, EValue** args) { return bitwise_scalar<BitOr>(ctx, args); }
bool bitwise_xor_scalar_out(KernelContext& ctx, EValue** args) { return bitwise_scalar<BitXor>(ctx, args); }

// args: self, out, return
bool bitwise_not_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a;
  if (!ew::setup_unary(ctx, args[0], args[1], out, a)) return false;
  if (!check_integral(ctx, a.dtype) || !ew::check_cast(ctx, a.dtype, *out)) return false;
  const ew::Operand in[1] = {a};
  if (a.dtype == DType::Bool) {
    BoolNot op;
    return ew::map<bool>(ctx, *out, in, op);
  }
  BitNot op;
  return ew::map<int64_t>(ctx, *out, in, op);
}

}  // namespace pte
