// aten::isnan.out(Tensor self, *, Tensor(a!) out)
// aten::isinf.out(Tensor self, *, Tensor(a!) out)
//
// Per-element tests, written as bool (or 1 / 0 in another out dtype); always false
// for integer and bool inputs.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct IsNan {
  template <class C>
  bool operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) return std::isnan(x);
    else return false;
  }
};

struct IsInf {
  template <class C>
  bool operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) return std::isinf(x);
    else return false;
  }
};

// args: self, out, return
template <class Op>
bool test_run(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a;
  if (!ew::setup_unary(ctx, args[0], args[1], out, a)) return false;
  const ew::Operand in[1] = {a};
  return ew::with_compute(ctx, a.dtype, [&](auto c) {
    Op op;
    return ew::map<decltype(c)>(ctx, *out, in, op);
  });
}

}  // namespace

bool isnan_out(KernelContext& ctx, EValue** args) { return test_run<IsNan>(ctx, args); }
bool isinf_out(KernelContext& ctx, EValue** args) { return test_run<IsInf>(ctx, args); }

}  // namespace pte
