// aten::relu.out(Tensor self, *, Tensor(a!) out)
//
// out = max(x, 0); NaN stays NaN. Floating and integer dtypes (not bool).
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct Relu {
  template <class C>
  C operator()(C x) const { return x < C(0) ? C(0) : x; }
};

}  // namespace

// args: self, out, return
bool relu_out(KernelContext& ctx, EValue** args) {
  if (args[0]->tag == Tag::Tensor && args[0]->t && args[0]->t->dtype == DType::Bool)
    return ctx.fail("relu is not supported for bool tensors");
  return ew::unary_same(ctx, args[0], args[1], Relu{});
}

}  // namespace pte
