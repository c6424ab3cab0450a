// aten::remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// Python's modulus: the result has the sign of the divisor (torch.remainder).
// Floats: x % 0 is nan; integers: division by zero is an error.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct Remainder {
  std::atomic<bool>* by_zero;
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      C m = std::fmod(a, b);
      if (m != 0 && ((b < 0) != (m < 0))) m += b;
      return m;
    } else {
      if (b == 0) {
        by_zero->store(true, std::memory_order_relaxed);
        return 0;
      }
      if (b == -1) return 0;  // INT64_MIN % -1 would trap
      C r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
};

bool remainder_common(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[2], DType common) {
  if (!ew::check_cast(ctx, common, out)) return false;
  std::atomic<bool> by_zero{false};
  bool ok = ew::with_compute(ctx, common, [&](auto c) {
    Remainder<decltype(c)> op{&by_zero};
    return ew::map<decltype(c)>(ctx, out, in, op);
  });
  if (ok && by_zero.load()) return ctx.fail("ZeroDivisionError: integer remainder by zero");
  return ok;
}

}  // namespace

// args: self, other, out, return
bool remainder_tensor_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[2], out, a, b, common)) return false;
  const ew::Operand in[2] = {a, b};
  return remainder_common(ctx, *out, in, common);
}

// args: self, other (Scalar), out, return
bool remainder_scalar_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  ew::ScalarBox box;
  if (!ew::setup_scalar(ctx, args[0], args[1], args[2], out, a, b, common, box)) return false;
  const ew::Operand in[2] = {a, b};
  return remainder_common(ctx, *out, in, common);
}

}  // namespace pte
