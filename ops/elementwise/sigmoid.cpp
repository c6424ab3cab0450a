// aten::sigmoid.out(Tensor self, *, Tensor(a!) out)
//
// out = 1 / (1 + exp(-x)), evaluated without overflow: exp is only taken of -|x|.
// Integer and bool inputs are promoted to float32.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct Sigmoid {
  template <class C>
  C operator()(C x) const {
    if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
    const C e = std::exp(x);
    return e / (C(1) + e);
  }
};

}  // namespace

// args: self, out, return
bool sigmoid_out(KernelContext& ctx, EValue** args) { return ew::unary_float(ctx, args[0], args[1], Sigmoid{}); }

// load-time step: all-Float arguments run a float body that checks nothing again
KernelFn sigmoid_out_prepare(KernelContext& ctx, EValue** args) {
  if (!ew::prepare_unary_float(ctx, args)) return nullptr;
  return ew::all_f32({args[0], args[1]}) ? ew::unary_float_f32<Sigmoid> : sigmoid_out;
}

}  // namespace pte
