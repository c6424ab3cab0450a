// aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out)
// aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
// aten::div.Scalar_mode_out(Tensor self, Scalar other, *, str? rounding_mode, Tensor(a!) out)
// aten::floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out)
//
// rounding_mode None: true division; integer inputs are promoted to float32, x/0 gives
// inf or nan. "trunc": rounds toward zero, "floor": toward -inf (floor_divide is
// div with "floor"); these keep the result type, and an integer division by zero is
// an error, as in torch.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

enum class Mode { True, Trunc, Floor };

bool parse_mode(KernelContext& ctx, const EValue* v, Mode& m) {
  if (!v || v->tag == Tag::None) {
    m = Mode::True;
    return true;
  }
  if (v->tag != Tag::String) return ctx.fail("argument rounding_mode: expected a string or None, got %s", tag_name(v->tag));
  std::string_view s = v->string();
  if (s == "trunc") m = Mode::Trunc;
  else if (s == "floor") m = Mode::Floor;
  else return ctx.fail("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%.*s'",
                       static_cast<int>(s.size()), s.data());
  return true;
}

template <class C>
struct TrueDiv {
  C operator()(C a, C b) const { return a / b; }
};

template <class C>
struct TruncDiv {
  std::atomic<bool>* by_zero;
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::trunc(a / b);
    } else {
      if (b == 0) {
        by_zero->store(true, std::memory_order_relaxed);
        return 0;
      }
      if (b == -1) return ew::wrap_sub(0, a);  // INT64_MIN / -1 would trap
      return a / b;
    }
  }
};

template <class C>
struct FloorDiv {
  std::atomic<bool>* by_zero;
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      // torch's div_floor_floating: exact for representable quotients, never off by one
      if (b == 0) return a / b;
      C mod = std::fmod(a, b);
      C div = (a - mod) / b;
      if (mod != 0 && (b < 0) != (mod < 0)) div -= C(1);
      if (div == 0) return std::copysign(C(0), a / b);
      C floordiv = std::floor(div);
      if (div - floordiv > C(0.5)) floordiv += C(1);
      return floordiv;
    } else {
      if (b == 0) {
        by_zero->store(true, std::memory_order_relaxed);
        return 0;
      }
      if (b == -1) return ew::wrap_sub(0, a);
      C q = a / b, r = a % b;
      if (r != 0 && ((a < 0) != (b < 0))) --q;
      return q;
    }
  }
};

bool div_common(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[2], DType common, Mode mode) {
  if (mode == Mode::True) {
    // integer and bool inputs divide in float32 (torch's default dtype)
    DType result = ew::is_floating(common) ? common : DType::Float;
    if (!ew::check_cast(ctx, result, out)) return false;
    if (result == DType::Double) {
      TrueDiv<double> op;
      return ew::map<double>(ctx, out, in, op);
    }
    TrueDiv<float> op;
    return ew::map<float>(ctx, out, in, op);
  }
  if (!ew::check_cast(ctx, common, out)) return false;
  std::atomic<bool> by_zero{false};
  bool ok = ew::with_compute(ctx, common, [&](auto c) {
    using C = decltype(c);
    if (mode == Mode::Trunc) {
      TruncDiv<C> op{&by_zero};
      return ew::map<C>(ctx, out, in, op);
    }
    FloorDiv<C> op{&by_zero};
    return ew::map<C>(ctx, out, in, op);
  });
  if (ok && by_zero.load()) return ctx.fail("ZeroDivisionError: integer division by zero");
  return ok;
}

bool div_tensor(KernelContext& ctx, EValue* self, EValue* other, EValue* out_arg, Mode mode) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, self, other, out_arg, out, a, b, common)) return false;
  const ew::Operand in[2] = {a, b};
  return div_common(ctx, *out, in, common, mode);
}

bool div_scalar(KernelContext& ctx, EValue* self, EValue* other, EValue* out_arg, Mode mode) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  ew::ScalarBox box;
  if (!ew::setup_scalar(ctx, self, other, out_arg, out, a, b, common, box)) return false;
  const ew::Operand in[2] = {a, b};
  return div_common(ctx, *out, in, common, mode);
}

}  // namespace

// args: self, other, out, return
bool div_out(KernelContext& ctx, EValue** args) { return div_tensor(ctx, args[0], args[1], args[2], Mode::True); }

// args: self, other, rounding_mode, out, return
bool div_out_mode(KernelContext& ctx, EValue** args) {
  Mode mode = Mode::True;
  if (!parse_mode(ctx, args[2], mode)) return false;
  return div_tensor(ctx, args[0], args[1], args[3], mode);
}

// args: self, other (Scalar), out, return
bool div_scalar_out(KernelContext& ctx, EValue** args) { return div_scalar(ctx, args[0], args[1], args[2], Mode::True); }

// args: self, other (Scalar), rounding_mode, out, return
bool div_scalar_mode_out(KernelContext& ctx, EValue** args) {
  Mode mode = Mode::True;
  if (!parse_mode(ctx, args[2], mode)) return false;
  return div_scalar(ctx, args[0], args[1], args[3], mode);
}

// args: self, other, out, return
bool floor_divide_out(KernelContext& ctx, EValue** args) {
  return div_tensor(ctx, args[0], args[1], args[2], Mode::Floor);
}

// Load-time steps (see add.cpp): true division computes in float32 for integer and bool
// inputs, so out must hold at least that.
static bool div_f32_out(KernelContext& ctx, EValue** args) {
  TrueDiv<float> op;
  return ew::binary_f32(ctx, args, 2, op);
}

static bool div_scalar_f32_out(KernelContext& ctx, EValue** args) {
  TrueDiv<float> op;
  return ew::binary_scalar_f32(ctx, args, 2, op);
}

static bool div_prepare_common(KernelContext& ctx, EValue** args, bool scalar_other) {
  const DType common = ew::prepare_binary(ctx, args, 2, scalar_other, nullptr);
  return common != ew::kNoDType && ew::check_cast(ctx, ew::is_floating(common) ? common : DType::Float, *args[2]->t);
}

KernelFn div_out_prepare(KernelContext& ctx, EValue** args) {
  if (!div_prepare_common(ctx, args, false)) return nullptr;
  return ew::all_f32({args[0], args[1], args[2]}) ? div_f32_out : div_out;
}

KernelFn div_scalar_out_prepare(KernelContext& ctx, EValue** args) {
  if (!div_prepare_common(ctx, args, true)) return nullptr;
  return ew::all_f32({args[0], args[2]}) ? div_scalar_f32_out : div_scalar_out;
}

}  // namespace pte
