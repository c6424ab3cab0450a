// aten::pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out)
// aten::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out)
// aten::pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)
//
// Floats use std::pow, except the exponents torch special-cases for a Scalar
// exponent (0, 1, 2, 3, 0.5, -0.5, -1, -2), so x**2 is exactly x*x. Integers use
// exact integer powers (wrapping); a negative integer exponent gives 1 for base 1,
// +-1 for base -1 and 0 otherwise, except that a negative Scalar exponent with an
// integer tensor is an error, as in torch.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

int64_t powi(int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b & 1) ? -1 : 1;
    return 0;
  }
  int64_t r = 1;
  while (b) {
    if (b & 1) r = ew::wrap_mul(r, a);
    b >>= 1;
    if (b) a = ew::wrap_mul(a, a);
  }
  return r;
}

template <class C>
struct Pow {
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) return std::pow(a, b);
    else return powi(a, b);
  }
};

template <class C>
struct PowConst {  // x ** e for a fixed floating exponent
  C e;
  C operator()(C x) const { return std::pow(x, e); }
};
template <class C> struct PowZero { C operator()(C) const { return C(1); } };
template <class C> struct PowOne { C operator()(C x) const { return x; } };
template <class C> struct PowTwo { C operator()(C x) const { return x * x; } };
template <class C> struct PowThree { C operator()(C x) const { return x * x * x; } };
template <class C> struct PowHalf { C operator()(C x) const { return std::sqrt(x); } };
template <class C> struct PowMinusHalf { C operator()(C x) const { return C(1) / std::sqrt(x); } };
template <class C> struct PowMinusOne { C operator()(C x) const { return C(1) / x; } };
template <class C> struct PowMinusTwo { C operator()(C x) const { return C(1) / (x * x); } };

struct PowInt {
  int64_t e;
  int64_t operator()(int64_t x) const { return powi(x, e); }
};

template <class C>
bool pow_float_scalar(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[1], double e) {
  auto run = [&](auto op) { return ew::map<C>(ctx, out, in, op); };
  if (e == 0) return run(PowZero<C>{});
  if (e == 1) return run(PowOne<C>{});
  if (e == 2) return run(PowTwo<C>{});
  if (e == 3) return run(PowThree<C>{});
  if (e == 0.5) return run(PowHalf<C>{});
  if (e == -0.5) return run(PowMinusHalf<C>{});
  if (e == -1) return run(PowMinusOne<C>{});
  if (e == -2) return run(PowMinusTwo<C>{});
  return run(PowConst<C>{static_cast<C>(e)});
}

bool pow_binary(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[2], DType common) {
  if (!ew::check_cast(ctx, common, out)) return false;
  return ew::with_compute(ctx, common, [&](auto c) {
    Pow<decltype(c)> op;
    return ew::map<decltype(c)>(ctx, out, in, op);
  });
}

}  // namespace

// args: self, exponent, out, return
bool pow_tensor_tensor_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[2], out, a, b, common)) return false;
  const ew::Operand in[2] = {a, b};
  return pow_binary(ctx, *out, in, common);
}

// args: self, exponent (Scalar), out, return
bool pow_tensor_scalar_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  ew::ScalarBox box;
  if (!ew::setup_scalar(ctx, args[0], args[1], args[2], out, a, b, common, box)) return false;
  if (!ew::check_cast(ctx, common, *out)) return false;
  const EValue& exp = *args[1];
  const ew::Operand in[1] = {a};
  if (ew::is_floating(common)) {
    if (common == DType::Double) return pow_float_scalar<double>(ctx, *out, in, exp.to_double());
    return pow_float_scalar<float>(ctx, *out, in, exp.to_double());
  }
  const int64_t e = exp.to_int();
  if (e < 0) return ctx.fail("integers to negative integer powers are not allowed");
  PowInt op{e};
  return ew::map<int64_t>(ctx, *out, in, op);
}

// args: self (Scalar), exponent, out, return
bool pow_scalar_out(KernelContext& ctx, EValue** args) {
  if (!ew::scalar_arg(ctx, args[0], "self")) return false;
  Tensor* e = ew::tensor_arg(ctx, args[1], "exponent");
  Tensor* out = e ? ew::tensor_arg(ctx, args[2], "out") : nullptr;
  if (!out || !resize_output_like(ctx, *out, *e)) return false;
  ew::ResultType rt;
  rt.add(*e);
  rt.add_scalar(*args[0]);
  const DType common = rt.get();
  if (common == ew::kNoDType) return ctx.fail("unsupported dtype %s", dtype_name(e->dtype));
  ew::ScalarBox box;
  ew::Operand base;
  ew::scalar_operand_as(*args[0], common, box, base);
  const ew::Operand in[2] = {base, ew::operand(*e)};
  return pow_binary(ctx, *out, in, common);
}

}  // namespace pte
