// aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
// aten::clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
// aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
//
// out = min(max(self, min), max): when min > max every element becomes max. NaN in
// self propagates; in clamp.Tensor a NaN bound gives NaN too. The result type
// includes the bounds (int tensor clamped to 0.5 gives float), except for hardtanh,
// which keeps self's dtype.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct ClampScalar {
  C lo, hi;
  bool has_lo, has_hi;
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      if (x != x) return x;
    if (has_lo && x < lo) x = lo;
    if (has_hi && hi < x) x = hi;
    return x;
  }
};

template <class C>
struct ClampMin {  // torch.maximum(x, lo)
  C operator()(C x, C lo) const {
    if constexpr (std::is_floating_point_v<C>)
      if (x != x || lo != lo) return x != x ? x : lo;
    return x < lo ? lo : x;
  }
};

template <class C>
struct ClampMax {  // torch.minimum(x, hi)
  C operator()(C x, C hi) const {
    if constexpr (std::is_floating_point_v<C>)
      if (x != x || hi != hi) return x != x ? x : hi;
    return hi < x ? hi : x;
  }
};

template <class C>
struct ClampBoth {
  C operator()(C x, C lo, C hi) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (lo != lo) return lo;
      if (hi != hi) return hi;
      if (x != x) return x;
    }
    if (x < lo) x = lo;
    if (hi < x) x = hi;
    return x;
  }
};

bool clamp_scalars(KernelContext& ctx, Tensor& out, const ew::Operand (&in)[1], DType common, const EValue* lo,
                   const EValue* hi) {
  if (!ew::check_cast(ctx, common, out)) return false;
  const bool has_lo = lo->tag != Tag::None, has_hi = hi->tag != Tag::None;
  return ew::with_compute(ctx, common, [&](auto c) {
    using C = decltype(c);
    ClampScalar<C> op{has_lo ? ew::scalar_in<C>(*lo, common) : C(0), has_hi ? ew::scalar_in<C>(*hi, common) : C(0),
                      has_lo, has_hi};
    return ew::map<C>(ctx, out, in, op);
  });
}

bool optional_scalar(KernelContext& ctx, const EValue* v, const char* name) {
  return (v && v->tag == Tag::None) || ew::scalar_arg(ctx, v, name);
}

}  // namespace

// args: self, min (Scalar?), max (Scalar?), out, return
bool clamp_out(KernelContext& ctx, EValue** args) {
  if (!optional_scalar(ctx, args[1], "min") || !optional_scalar(ctx, args[2], "max")) return false;
  if (args[1]->tag == Tag::None && args[2]->tag == Tag::None)
    return ctx.fail("clamp: at least one of 'min' or 'max' must not be None");
  Tensor* out;
  ew::Operand a;
  if (!ew::setup_unary(ctx, args[0], args[3], out, a)) return false;
  ew::ResultType rt;
  rt.add(*args[0]->t);
  if (args[1]->tag != Tag::None) rt.add_scalar(*args[1]);
  if (args[2]->tag != Tag::None) rt.add_scalar(*args[2]);
  const ew::Operand in[1] = {a};
  return clamp_scalars(ctx, *out, in, rt.get(), args[1], args[2]);
}

// args: self, min_val (Scalar), max_val (Scalar), out, return
bool hardtanh_out(KernelContext& ctx, EValue** args) {
  if (!ew::scalar_arg(ctx, args[1], "min_val") || !ew::scalar_arg(ctx, args[2], "max_val")) return false;
  Tensor* out;
  ew::Operand a;
  if (!ew::setup_unary(ctx, args[0], args[3], out, a)) return false;
  if (a.dtype == DType::Bool) return ctx.fail("hardtanh is not supported for bool tensors");
  const ew::Operand in[1] = {a};
  return clamp_scalars(ctx, *out, in, a.dtype, args[1], args[2]);
}

// args: self, min (Tensor?), max (Tensor?), out, return
bool clamp_tensor_out(KernelContext& ctx, EValue** args) {
  Tensor* x = ew::tensor_arg(ctx, args[0], "self");
  if (!x) return false;
  Tensor* lo = nullptr;
  Tensor* hi = nullptr;
  if (args[1]->tag != Tag::None && !(lo = ew::tensor_arg(ctx, args[1], "min"))) return false;
  if (args[2]->tag != Tag::None && !(hi = ew::tensor_arg(ctx, args[2], "max"))) return false;
  if (!lo && !hi) return ctx.fail("clamp: at least one of 'min' or 'max' must not be None");
  Tensor* out = ew::tensor_arg(ctx, args[3], "out");
  if (!out) return false;
  const Tensor* ts[3];
  int n = 0;
  ts[n++] = x;
  if (lo) ts[n++] = lo;
  if (hi) ts[n++] = hi;
  int64_t sizes[kMaxDims];
  int32_t dim;
  if (!ew::broadcast_all(ctx, ts, n, sizes, &dim) || !resize_output(ctx, *out, sizes, dim)) return false;
  ew::ResultType rt;
  for (int j = 0; j < n; ++j) rt.add(*ts[j]);
  const DType common = rt.get();
  if (common == ew::kNoDType) return ctx.fail("unsupported dtype");
  if (!ew::check_cast(ctx, common, *out)) return false;
  return ew::with_compute(ctx, common, [&](auto c) {
    using C = decltype(c);
    if (lo && hi) {
      const ew::Operand in[3] = {ew::operand(*x), ew::operand(*lo), ew::operand(*hi)};
      ClampBoth<C> op;
      return ew::map<C>(ctx, *out, in, op);
    }
    if (lo) {
      const ew::Operand in[2] = {ew::operand(*x), ew::operand(*lo)};
      ClampMin<C> op;
      return ew::map<C>(ctx, *out, in, op);
    }
    const ew::Operand in[2] = {ew::operand(*x), ew::operand(*hi)};
    ClampMax<C> op;
    return ew::map<C>(ctx, *out, in, op);
  });
}

}  // namespace pte
