// aten::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out)
//
// Elementwise min / max, broadcast, in the result type. NaN propagates (unlike fmin).
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct Minimum {
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return b < a ? b : a;
  }
};

template <class C>
struct Maximum {
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a < b ? b : a;
  }
};

template <template <class> class Op>
bool min_max(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[2], out, a, b, common)) return false;
  if (!ew::check_cast(ctx, common, *out)) return false;
  const ew::Operand in[2] = {a, b};
  return ew::with_compute(ctx, common, [&](auto c) {
    Op<decltype(c)> op;
    return ew::map<decltype(c)>(ctx, *out, in, op);
  });
}

}  // namespace

// args: self, other, out, return
bool minimum_out(KernelContext& ctx, EValue** args) { return min_max<Minimum>(ctx, args); }
bool maximum_out(KernelContext& ctx, EValue** args) { return min_max<Maximum>(ctx, args); }

}  // namespace pte
