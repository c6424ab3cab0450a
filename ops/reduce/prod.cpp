// aten::prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
// aten::prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
//
// Product over one dim (int_out) or over everything (out, 0-d result). Floating
// outs multiply in double; integral and bool outs in int64 (wrapping, as torch). The
// product of an empty dim is 1.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// Product in double (floating out) or wrapping int64, over converted chunks.
void prod_run(const ReducePlan& p, const Tensor& in, Tensor& out, bool float_out) {
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    if (float_out) {
      double acc = 1;
      for_chunks<double>(in.dtype, in.data, p.inner, a, [&](const double* x, int64_t m, int64_t) {
        for (int64_t i = 0; i < m; ++i) acc *= x[i];
      });
      store_f64(out, b, acc);
    } else {
      uint64_t acc = 1;  // unsigned: wraps instead of overflowing
      for_chunks<int64_t>(in.dtype, in.data, p.inner, a, [&](const int64_t* x, int64_t m, int64_t) {
        for (int64_t i = 0; i < m; ++i) acc *= static_cast<uint64_t>(x[i]);
      });
      store_i64(out, b, static_cast<int64_t>(acc));
    }
  });
}

bool prod_common(KernelContext& ctx, const char* op, const Tensor& in, const bool* mask, bool keepdim,
                 const EValue* dtype, Tensor& out) {
  if (!check_dtype_arg(ctx, op, dtype, out)) return false;
  if (!is_any_dtype(out.dtype)) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, keepdim, out, p)) return false;
  bool float_out = is_float_dtype(out.dtype);
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported input dtype %s", op, dtype_name(in.dtype));
  prod_run(p, in, out, float_out);
  return true;
}

}  // namespace

bool prod_int_out(KernelContext& ctx, EValue** args) {
  const char* op = "prod.int_out";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Int, "dim") ||
      !expect_tag(ctx, args[2], Tag::Bool, "keepdim") || !expect_tag(ctx, args[4], Tag::Tensor, "out"))
    return false;
  const Tensor& in = *args[0]->t;
  bool mask[kMaxDims];
  if (!single_dim_mask(ctx, op, args[1]->i, in.dim, mask)) return false;
  return prod_common(ctx, op, in, mask, args[2]->b, args[3], *args[4]->t);
}

bool prod_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Tensor, "out")) return false;
  const Tensor& in = *args[0]->t;
  bool mask[kMaxDims];
  all_dims_mask(in.dim, mask);
  return prod_common(ctx, "prod.out", in, mask, false, args[1], *args[2]->t);
}

}  // namespace pte
