// aten::softplus.out(Tensor self, Scalar beta=1, Scalar threshold=20, *, Tensor(a!) out)
//
// out = x * beta > threshold ? x : log1p(exp(x * beta)) / beta. Floating dtypes.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct Softplus {
  C beta, threshold;
  C operator()(C x) const { return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta; }
};

}  // namespace

// args: self, beta, threshold, out, return
bool softplus_out(KernelContext& ctx, EValue** args) {
  if (!ew::scalar_arg(ctx, args[1], "beta") || !ew::scalar_arg(ctx, args[2], "threshold")) return false;
  const double beta = args[1]->to_double(), threshold = args[2]->to_double();
  Tensor* x = args[0]->tag == Tag::Tensor ? args[0]->t : nullptr;
  if (x && x->dtype == DType::Double) return ew::unary_activation(ctx, args[0], args[3], Softplus<double>{beta, threshold});
  return ew::unary_activation(ctx, args[0], args[3],
                              Softplus<float>{static_cast<float>(beta), static_cast<float>(threshold)});
}

}  // namespace pte
