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

// Any floating dtypes: softmax_row's passes over chunks converted to C (double when
// a side is double, float otherwise), with the same arithmetic in the same order.
template <class C, bool Log>
void softmax_any(KernelContext& ctx, const ReducePlan& p, const Tensor& in, Tensor& out) {
  const int64_t len = p.inner.numel;
  const bool same = (out.dtype == DType::Double) == std::is_same_v<C, double> && out.dtype != DType::Half &&
                    out.dtype != DType::BFloat16;  // O == C: exponentials stored, then scaled in place
  DimIter out_it = p.inner;  // the out's strides in stream a, to read the exponentials back
  for (int d = 0; d < out_it.n; ++d) out_it.sa[d] = out_it.sb[d];
  parallel_for_each(ctx, p.outer, p.outer.numel * len * 8, [&](int64_t a, int64_t b, int64_t) {
    C m = -std::numeric_limits<C>::infinity();
    for_chunks<C>(in.dtype, in.data, p.inner, a, [&](const C* x, int64_t n, int64_t) {
      for (int64_t i = 0; i < n; ++i)
        if (x[i] > m) m = x[i];  // a NaN is skipped here but poisons the sum below
    });
    double s = 0;
    C y[kChunk];
    for_chunks<C>(in.dtype, in.data, p.inner, a, [&](const C* x, int64_t n, int64_t i0) {
      for (int64_t i = 0; i < n; ++i) {
        y[i] = std::exp(x[i] - m);
        s += y[i];
      }
      if (!Log && same) scatter(out, p.inner, b, i0, n, y);
    });
    if constexpr (Log) {
      const C logs = static_cast<C>(std::log(s));
      for_chunks<C>(in.dtype, in.data, p.inner, a, [&](const C* x, int64_t n, int64_t i0) {
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] - m - logs;
        scatter(out, p.inner, b, i0, n, y);
      });
    } else {
      const C r = static_cast<C>(1.0 / s);
      if (same) {
        for_chunks<C>(out.dtype, out.data, out_it, b, [&](const C* e, int64_t n, int64_t i0) {
          for (int64_t i = 0; i < n; ++i) y[i] = e[i] * r;
          scatter(out, p.inner, b, i0, n, y);
        });
      } else {  // a 16-bit out: keep the exponentials in C, round once
        for_chunks<C>(in.dtype, in.data, p.inner, a, [&](const C* x, int64_t n, int64_t i0) {
          for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i] - m) * r;
          scatter(out, p.inner, b, i0, n, y);
        });
      }
    }
  });
}

template <bool Log>
void softmax_run(KernelContext& ctx, const ReducePlan& p, const Tensor& in, Tensor& out) {
  int64_t len = 0, sa = 0, sb = 0;
  inner_row(p.inner, &len, &sa, &sb);  // a single dim: always one row
  if (in.dtype == DType::Float && out.dtype == DType::Float && sa == 1 && sb == 1 && len > 0) {
    const float* x = in.ptr<float>();
    float* y = out.ptr<float>();
    parallel_for_each(ctx, p.outer, p.outer.numel * len * 4, [&](int64_t a, int64_t b, int64_t) {
      if constexpr (Log)
        log_softmax_row_f32_autovec(x + a, y + b, len);
      else
        softmax_row_f32_autovec(x + a, y + b, len);
    });
    return;
  }
  if (in.dtype == DType::Double || out.dtype == DType::Double)
    softmax_any<double, Log>(ctx, p, in, out);
  else
    softmax_any<float, Log>(ctx, p, in, out);
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
  softmax_run<Log>(ctx, p, in, out);
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
