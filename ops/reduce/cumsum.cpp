// aten::cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)
// aten::cumprod.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)
//
// Running sum / product along dim; out has self's shape. Floating outs accumulate in
// double (torch's CPU acc type), integral and bool ones in int64 (wrapping). When the
// dtypes differ (e.g. int32 -> int64, torch's default for integral cumsum) elements
// go through a per-element converting path.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// Running sum or product along the inner space, in double (floating out) or in
// wrapping int64 (integral / bool out), over chunks converted from any input dtype.
template <bool Prod>
void cum_run(const ReducePlan& p, const Tensor& in, Tensor& out) {
  const bool float_out = is_float_dtype(out.dtype);
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    if (float_out) {
      double acc = Prod ? 1.0 : 0.0;
      for_chunks<double>(in.dtype, in.data, p.inner, a, [&](const double* x, int64_t m, int64_t i0) {
        double y[kChunk];
        for (int64_t i = 0; i < m; ++i) y[i] = acc = Prod ? acc * x[i] : acc + x[i];
        scatter(out, p.inner, b, i0, m, y);
      });
    } else {
      uint64_t acc = Prod ? 1 : 0;
      for_chunks<int64_t>(in.dtype, in.data, p.inner, a, [&](const int64_t* x, int64_t m, int64_t i0) {
        int64_t y[kChunk];
        for (int64_t i = 0; i < m; ++i) {
          const uint64_t v = static_cast<uint64_t>(x[i]);
          acc = Prod ? acc * v : acc + v;
          y[i] = static_cast<int64_t>(acc);
        }
        scatter(out, p.inner, b, i0, m, y);
      });
    }
  });
}

template <bool Prod>
bool cum_common(KernelContext& ctx, EValue** args, const char* op) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Int, "dim") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "out"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[3]->t;
  if (!check_dtype_arg(ctx, op, args[2], out)) return false;
  if (!is_any_dtype(in.dtype) || !is_any_dtype(out.dtype))
    return ctx.fail("%s: unsupported dtypes %s -> %s", op, dtype_name(in.dtype), dtype_name(out.dtype));
  if (is_float_dtype(in.dtype) && !is_float_dtype(out.dtype) && args[2]->is_none())
    return ctx.fail("%s: floating input %s needs a floating out, got %s", op, dtype_name(in.dtype),
                    dtype_name(out.dtype));
  bool mask[kMaxDims];
  if (!single_dim_mask(ctx, op, args[1]->i, in.dim, mask)) return false;
  ReducePlan p;
  if (!plan_same_shape(ctx, in, mask, out, p)) return false;
  cum_run<Prod>(p, in, out);
  return true;
}

}  // namespace

bool cumsum_out(KernelContext& ctx, EValue** args) { return cum_common<false>(ctx, args, "cumsum.out"); }
bool cumprod_out(KernelContext& ctx, EValue** args) { return cum_common<true>(ctx, args, "cumprod.out"); }

}  // namespace pte
