// aten::gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out)
//
// approximate 'none': x/2 * (1 + erf(x/sqrt(2)));
// approximate 'tanh': x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))). Floating dtypes.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct GeluErf {
  template <class C>
  C operator()(C x) const {
    const C kSqrtHalf = static_cast<C>(0.70710678118654752440);
    return x * C(0.5) * (C(1) + std::erf(x * kSqrtHalf));
  }
};

struct GeluTanh {
  template <class C>
  C operator()(C x) const {
    const C kBeta = static_cast<C>(0.79788456080286535588);  // sqrt(2/pi)
    const C kKappa = static_cast<C>(0.044715);
    const C inner = kBeta * (x + kKappa * x * x * x);
    return C(0.5) * x * (C(1) + std::tanh(inner));
  }
};

}  // namespace

// args: self, approximate, out, return
bool gelu_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[1], Tag::String, "approximate")) return false;
  const std::string_view mode = args[1]->string();
  if (mode == "none") return ew::unary_activation(ctx, args[0], args[2], GeluErf{});
  if (mode == "tanh") return ew::unary_activation(ctx, args[0], args[2], GeluTanh{});
  return ctx.fail("gelu: approximate must be 'none' or 'tanh', got '%.*s'", static_cast<int>(mode.size()), mode.data());
}

}  // namespace pte
