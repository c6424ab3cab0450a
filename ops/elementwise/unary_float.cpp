// aten::{exp,expm1,log,log1p,log2,log10,sqrt,rsqrt,reciprocal,sin,cos,tan,asin,acos,
//        atan,sinh,cosh,tanh,asinh,acosh,atanh,erf}.out(Tensor self, *, Tensor(a!) out)
//
// Floating math of one argument, std:: functions in float (double for f64); integer
// and bool inputs are promoted to float32, and out must be a floating dtype. Each has a
// load-time step (ew::prepare_unary_float): all-Float arguments run a float body.
#include "ops/elementwise/elementwise.h"

namespace pte {

#define PTE_UNARY_FLOAT(name, expr)                                                              \
  namespace {                                                                                    \
  struct name##_op {                                                                             \
    template <class C>                                                                           \
    C operator()(C x) const { return expr; }                                                     \
  };                                                                                             \
  }                                                                                              \
  bool name##_out(KernelContext& ctx, EValue** args) { return ew::unary_float(ctx, args[0], args[1], name##_op{}); } \
  KernelFn name##_out_prepare(KernelContext& ctx, EValue** args) {                               \
    if (!ew::prepare_unary_float(ctx, args)) return nullptr;                                     \
    return ew::all_f32({args[0], args[1]}) ? ew::unary_float_f32<name##_op> : name##_out;         \
  }

// args (each): self, out, return
PTE_UNARY_FLOAT(exp, std::exp(x))
PTE_UNARY_FLOAT(expm1, std::expm1(x))
PTE_UNARY_FLOAT(log, std::log(x))
PTE_UNARY_FLOAT(log1p, std::log1p(x))
PTE_UNARY_FLOAT(log2, std::log2(x))
PTE_UNARY_FLOAT(log10, std::log10(x))
PTE_UNARY_FLOAT(sqrt, std::sqrt(x))
PTE_UNARY_FLOAT(rsqrt, C(1) / std::sqrt(x))
PTE_UNARY_FLOAT(reciprocal, C(1) / x)
PTE_UNARY_FLOAT(sin, std::sin(x))
PTE_UNARY_FLOAT(cos, std::cos(x))
PTE_UNARY_FLOAT(tan, std::tan(x))
PTE_UNARY_FLOAT(asin, std::asin(x))
PTE_UNARY_FLOAT(acos, std::acos(x))
PTE_UNARY_FLOAT(atan, std::atan(x))
PTE_UNARY_FLOAT(sinh, std::sinh(x))
PTE_UNARY_FLOAT(cosh, std::cosh(x))
PTE_UNARY_FLOAT(tanh, std::tanh(x))
PTE_UNARY_FLOAT(asinh, std::asinh(x))
PTE_UNARY_FLOAT(acosh, std::acosh(x))
PTE_UNARY_FLOAT(atanh, std::atanh(x))
PTE_UNARY_FLOAT(erf, std::erf(x))

#undef PTE_UNARY_FLOAT

}  // namespace pte
