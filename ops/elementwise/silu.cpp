// aten::silu.out(Tensor self, *, Tensor(a!) out)
//
// out = x * sigmoid(x) = x / (1 + exp(-x)). Floating dtypes.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct Silu {
  template <class C>
  C operator()(C x) const { return x / (C(1) + std::exp(-x)); }
};

}  // namespace

// args: self, out, return
bool silu_out(KernelContext& ctx, EValue** args) { return ew::unary_activation(ctx, args[0], args[1], Silu{}); }

// load-time step: all-Float arguments run a float body that checks nothing again
KernelFn silu_out_prepare(KernelContext& ctx, EValue** args) {
  if (!ew::prepare_unary_activation(ctx, args)) return nullptr;
  return ew::all_f32({args[0], args[1]}) ? ew::unary_float_f32<Silu> : silu_out;
}

}  // namespace pte
