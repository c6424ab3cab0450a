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

}  // namespace pte
