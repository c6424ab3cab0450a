// aten::{neg,abs,sign,floor,ceil,round,trunc}.out(Tensor self, *, Tensor(a!) out)
// aten::round.decimals_out(Tensor self, *, int decimals, Tensor(a!) out)
//
// Dtype-preserving math of one argument. Integers: floor/ceil/round/trunc are the
// identity, neg/abs wrap (abs(INT_MIN) == INT_MIN). round is half-to-even (2.5 -> 2).
// sign(nan) is 0. neg of a bool tensor is an error, as in torch.
#include "ops/elementwise/elementwise.h"
#include "ops/spectral/spectral.h"

namespace pte {
namespace {

struct Neg {
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) return -x;
    else return ew::wrap_sub(0, x);
  }
};

struct Abs {
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) return std::fabs(x);
    else return x < 0 ? ew::wrap_sub(0, x) : x;
  }
};

struct Sign {
  template <class C>
  C operator()(C x) const { return static_cast<C>((C(0) < x) - (x < C(0))); }
};

#define PTE_FLOAT_ONLY_OP(Name, fn)                       \
  struct Name {                                           \
    template <class C>                                    \
    C operator()(C x) const {                             \
      if constexpr (std::is_floating_point_v<C>) return fn(x); \
      else return x;                                      \
    }                                                     \
  };
PTE_FLOAT_ONLY_OP(Floor, std::floor)
PTE_FLOAT_ONLY_OP(Ceil, std::ceil)
PTE_FLOAT_ONLY_OP(Round, std::nearbyint)  // default rounding mode: half to even
PTE_FLOAT_ONLY_OP(Trunc, std::trunc)
#undef PTE_FLOAT_ONLY_OP

template <class C>
struct RoundDecimals {
  C scale;
  bool negative;  // decimals < 0: round to a multiple of 10^-decimals
  C operator()(C x) const {
    return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
  }
};

}  // namespace

// args (each): self, out, return
bool neg_out(KernelContext& ctx, EValue** args) {
  if (args[0]->tag == Tag::Tensor && args[0]->t && args[0]->t->dtype == DType::Bool)
    return ctx.fail("negation, the `-` operator, on a bool tensor is not supported (use logical_not)");
  return ew::unary_same(ctx, args[0], args[1], Neg{});
}
bool abs_out(KernelContext& ctx, EValue** args) {
  if (args[0]->tag == Tag::Tensor && args[0]->t && is_complex(args[0]->t->dtype)) return abs_complex_out(ctx, args);
  return ew::unary_same(ctx, args[0], args[1], Abs{});
}
bool sign_out(KernelContext& ctx, EValue** args) { return ew::unary_same(ctx, args[0], args[1], Sign{}); }
bool floor_out(KernelContext& ctx, EValue** args) { return ew::unary_same(ctx, args[0], args[1], Floor{}); }
bool ceil_out(KernelContext& ctx, EValue** args) { return ew::unary_same(ctx, args[0], args[1], Ceil{}); }
bool round_out(KernelContext& ctx, EValue** args) { return ew::unary_same(ctx, args[0], args[1], Round{}); }
bool trunc_out(KernelContext& ctx, EValue** args) { return ew::unary_same(ctx, args[0], args[1], Trunc{}); }

// args: self, decimals, out, return
bool round_decimals_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[1], Tag::Int, "decimals")) return false;
  Tensor* out;
  ew::Operand a;
  if (!ew::setup_unary(ctx, args[0], args[2], out, a)) return false;
  if (!ew::is_floating(a.dtype)) return ctx.fail("round with decimals is not supported for dtype %s", dtype_name(a.dtype));
  if (!ew::check_cast(ctx, a.dtype, *out)) return false;
  const int64_t d = args[1]->i;
  const ew::Operand in[1] = {a};
  const double scale = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));
  if (a.dtype == DType::Double) {
    RoundDecimals<double> op{scale, d < 0};
    return ew::map<double>(ctx, *out, in, op);
  }
  RoundDecimals<float> op{static_cast<float>(scale), d < 0};
  return ew::map<float>(ctx, *out, in, op);
}

}  // namespace pte
