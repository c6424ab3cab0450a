// aten::logit.out(Tensor self, float? eps=None, *, Tensor(a!) out)
//
// out = log(z / (1 - z)) with z = x clamped to [eps, 1 - eps] when eps is given and
// >= 0, else z = x (so logit(0) = -inf, logit(1) = inf). Integer and bool inputs are
// promoted to float32.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct Logit {
  template <class C>
  C operator()(C x) const { return std::log(x / (C(1) - x)); }
};

struct LogitEps {
  double lo;
  template <class C>
  C operator()(C x) const {
    const C l = static_cast<C>(lo), h = C(1) - static_cast<C>(lo);
    const C z = x < l ? l : (x > h ? h : x);
    return std::log(z / (C(1) - z));
  }
};

}  // namespace

// args: self, eps (float?), out, return
bool logit_out(KernelContext& ctx, EValue** args) {
  const EValue* eps = args[1];
  if (eps->tag == Tag::None) return ew::unary_float(ctx, args[0], args[2], Logit{});
  if (!ew::scalar_arg(ctx, eps, "eps")) return false;
  const double e = eps->to_double();
  if (e < 0) return ew::unary_float(ctx, args[0], args[2], Logit{});
  return ew::unary_float(ctx, args[0], args[2], LogitEps{e});
}

}  // namespace pte
