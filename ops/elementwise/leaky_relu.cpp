// aten::leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)
//
// out = x > 0 ? x : x * negative_slope. Floating dtypes.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct LeakyRelu {
  C slope;
  C operator()(C x) const { return x > C(0) ? x : x * slope; }
};

}  // namespace

// args: self, negative_slope, out, return
bool leaky_relu_out(KernelContext& ctx, EValue** args) {
  if (!ew::scalar_arg(ctx, args[1], "negative_slope")) return false;
  const double slope = args[1]->to_double();
  Tensor* x = args[0]->tag == Tag::Tensor ? args[0]->t : nullptr;
  if (x && x->dtype == DType::Double) return ew::unary_activation(ctx, args[0], args[2], LeakyRelu<double>{slope});
  return ew::unary_activation(ctx, args[0], args[2], LeakyRelu<float>{static_cast<float>(slope)});
}

}  // namespace pte
