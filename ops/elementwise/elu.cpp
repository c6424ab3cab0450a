// aten::elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out)
//
// out = x > 0 ? x * scale : expm1(x * input_scale) * alpha * scale. Floating dtypes.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct Elu {
  C neg_coef, pos_coef, input_scale;
  C operator()(C x) const { return x <= C(0) ? std::expm1(x * input_scale) * neg_coef : x * pos_coef; }
};

template <class C>
Elu<C> make_elu(EValue** args) {
  const double alpha = args[1]->to_double(), scale = args[2]->to_double(), input_scale = args[3]->to_double();
  return Elu<C>{static_cast<C>(alpha * scale), static_cast<C>(scale), static_cast<C>(input_scale)};
}

}  // namespace

// args: self, alpha, scale, input_scale, out, return
bool elu_out(KernelContext& ctx, EValue** args) {
  if (!ew::scalar_arg(ctx, args[1], "alpha") || !ew::scalar_arg(ctx, args[2], "scale") ||
      !ew::scalar_arg(ctx, args[3], "input_scale"))
    return false;
  Tensor* x = args[0]->tag == Tag::Tensor ? args[0]->t : nullptr;
  if (x && x->dtype == DType::Double) return ew::unary_activation(ctx, args[0], args[4], make_elu<double>(args));
  return ew::unary_activation(ctx, args[0], args[4], make_elu<float>(args));
}

}  // namespace pte
