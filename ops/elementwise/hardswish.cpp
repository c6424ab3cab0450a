// aten::hardswish.out(Tensor self, *, Tensor(a!) out)
// aten::hardsigmoid.out(Tensor self, *, Tensor(a!) out)
//
// hardsigmoid(x) = min(max(x + 3, 0), 6) / 6; hardswish(x) = x * hardsigmoid(x).
// Floating dtypes.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
inline C relu6_plus3(C x) {
  C y = x + C(3);
  y = y < C(0) ? C(0) : y;
  return y > C(6) ? C(6) : y;
}

struct Hardswish {
  template <class C>
  C operator()(C x) const { return x * relu6_plus3(x) / C(6); }
};

struct Hardsigmoid {
  template <class C>
  C operator()(C x) const { return relu6_plus3(x) / C(6); }
};

}  // namespace

// args: self, out, return
bool hardswish_out(KernelContext& ctx, EValue** args) { return ew::unary_activation(ctx, args[0], args[1], Hardswish{}); }
bool hardsigmoid_out(KernelContext& ctx, EValue** args) {
  return ew::unary_activation(ctx, args[0], args[1], Hardsigmoid{});
}

}  // namespace pte
