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
#include "ops/reduce/softmax_rows.h"

namespace pte {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PTE_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PTE_AVX2_CLONES
#endif

PTE_AVX2_CLONES void softmax_row_f32_autovec(const float* x, float* y, int64_t n) {
  softmax_row_f32_body<false>(x, y, n);
}
PTE_AVX2_CLONES void log_softmax_row_f32_autovec(const float* x, float* y, int64_t n) {
  softmax_row_f32_body<true>(x, y, n);
}

namespace {

template <class T, class O, bool Log>
void softmax_typed(KernelContext& ctx, const ReducePlan& p, const Tensor& in, Tensor& out) {
  using C = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<O, double>, double, float>;
  const T* x = in.ptr<T>();
  O* y = out.ptr<O>();
  int64_t len = 0, sa = 0, sb = 0;
  inner_row(p.inner, &len, &sa, &sb);  // a single dim: always one row
  if constexpr (std::is_same_v<T, float> && std::is_same_v<O, float>) {
    if (sa == 1 && sb == 1 && len > 0) {
      parallel_for_each(ctx, p.outer, p.outer.numel * len * 4, [&](int64_t a, int64_t b, int64_t) {
        if constexpr (Log)
          log_softmax_row_f32_autovec(x + a, y + b, len);
        else
          softmax_row_f32_autovec(x + a, y + b, len);
      });
      return;
    }
  }
  parallel_for_each(ctx, p.outer, p.outer.numel * len * 8, [&](int64_t a, int64_t b, int64_t) {
    softmax_row<T, O, C, Log>(x + a, sa, y + b, sb, len);
  });
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
      softmax_typed<typename decltype(ti)::type, typename decltype(to)::type, Log>(ctx, p, in, out);
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
