// aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
// aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
// aten::softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out)
// aten::log_softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out)
//
// Stable form: m = max of the row, e = exp(x - m), softmax = e / sum(e),
// log_softmax = x - m - log(sum(e)). Arithmetic in float (double when a side is
// double), the sum in double. A row that is all -inf, or holds a NaN, gives NaN as in
// torch. half_to_float: a Half/BFloat16 input writes a Float out (torch's CPU kernel
// refuses it; we allow it). Floating dtypes only.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

template <class T, class O, class C, bool Log>
void softmax_row(const T* x, int64_t sx, O* y, int64_t sy, int64_t n) {
  C m = -std::numeric_limits<C>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    C v = static_cast<C>(x[i * sx]);
    if (v > m) m = v;  // a NaN is skipped here but poisons the sum below
  }
  double s = 0;
  if constexpr (Log) {
    for (int64_t i = 0; i < n; ++i) s += std::exp(static_cast<C>(x[i * sx]) - m);
    const C logs = static_cast<C>(std::log(s));
    for (int64_t i = 0; i < n; ++i) y[i * sy] = convert<O>(static_cast<C>(x[i * sx]) - m - logs);
  } else if constexpr (std::is_same_v<O, C>) {
    for (int64_t i = 0; i < n; ++i) {
      C e = std::exp(static_cast<C>(x[i * sx]) - m);
      y[i * sy] = e;
      s += e;
    }
    const C r = static_cast<C>(1.0 / s);
    for (int64_t i = 0; i < n; ++i) y[i * sy] *= r;
  } else {  // a 16-bit out: keep the exponentials in C, round once
    for (int64_t i = 0; i < n; ++i) s += std::exp(static_cast<C>(x[i * sx]) - m);
    const C r = static_cast<C>(1.0 / s);
    for (int64_t i = 0; i < n; ++i) y[i * sy] = convert<O>(std::exp(static_cast<C>(x[i * sx]) - m) * r);
  }
}

template <class T, class O, bool Log>
void softmax_typed(const ReducePlan& p, const Tensor& in, Tensor& out) {
  using C = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<O, double>, double, float>;
  const T* x = in.ptr<T>();
  O* y = out.ptr<O>();
  int64_t len = 0, sa = 0, sb = 0;
  inner_row(p.inner, &len, &sa, &sb);  // a single dim: always one row
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) { softmax_row<T, O, C, Log>(x + a, sa, y + b, sb, len); });
}

template <bool Log>
bool softmax_common(KernelContext& ctx, const char* op, EValue** args, bool half_to_float_form) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Int, "dim") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "out"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[3]->t;
  if (!is_float_dtype(in.dtype) || !is_float_dtype(out.dtype))
    return ctx.fail("%s: only floating dtypes are supported, got %s -> %s", op, dtype_name(in.dtype),
                    dtype_name(out.dtype));
  if (half_to_float_form) {
    if (!expect_tag(ctx, args[2], Tag::Bool, "half_to_float")) return false;
    DType want = in.dtype;
    if (args[2]->b && (in.dtype == DType::Half || in.dtype == DType::BFloat16)) want = DType::Float;
    if (out.dtype != want)
      return ctx.fail("%s: out dtype %s, expected %s (input %s, half_to_float=%d)", op, dtype_name(out.dtype),
                      dtype_name(want), dtype_name(in.dtype), args[2]->b ? 1 : 0);
  } else {
    if (!check_dtype_arg(ctx, op, args[2], out)) return false;
    if (args[2]->is_none() && out.dtype != in.dtype)
      return ctx.fail("%s: out dtype %s must match input dtype %s", op, dtype_name(out.dtype), dtype_name(in.dtype));
  }
  bool mask[kMaxDims];
  if (!single_dim_mask(ctx, op, args[1]->i, in.dim, mask)) return false;
  ReducePlan p;
  if (!plan_same_shape(ctx, in, mask, out, p)) return false;
  visit_float_dtype(in.dtype, [&](auto ti) {
    visit_float_dtype(out.dtype, [&](auto to) {
      softmax_typed<typename decltype(ti)::type, typename decltype(to)::type, Log>(p, in, out);
    });
  });
  return true;
}

}  // namespace

bool softmax_out(KernelContext& ctx, EValue** args) { return softmax_common<false>(ctx, "_softmax.out", args, true); }
bool log_softmax_out(KernelContext& ctx, EValue** args) {
  return softmax_common<true>(ctx, "_log_softmax.out", args, true);
}
bool softmax_int_out(KernelContext& ctx, EValue** args) {
  return softmax_common<false>(ctx, "softmax.int_out", args, false);
}
bool log_softmax_int_out(KernelContext& ctx, EValue** args) {
  return softmax_common<true>(ctx, "log_softmax.int_out", args, false);
}

}  // namespace pte
