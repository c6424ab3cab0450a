// aten::var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor(a!) out)
// aten::var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor(a!) out)
// aten::std.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor(a!) out)
// aten::std.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor(a!) out)
// aten::var_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False,
//                               Tensor(a!) out0, Tensor(b!) out1)
// aten::std_mean.correction_out(same, out0 = std, out1 = mean)
//
// var = sum((x - mean)^2) / max(0, N - correction), two passes in double;
// correction defaults to 1 (unbiased). dim None or [] reduces everything. Floating
// dtypes only, as in torch.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// Two passes in double over converted chunks (four accumulators on a row, as
// sum_row_f64 / sq_dev_row_f64; one accumulator otherwise).
void var_run(const ReducePlan& p, const Tensor& in, Tensor& out, Tensor* mean_out, double correction, bool take_sqrt) {
  const double n = static_cast<double>(p.inner.numel);
  const double denom = n - correction > 0 ? n - correction : 0.0;
  const bool mean_contig = mean_out && mean_out->contiguous_order();
  int64_t k = 0;
  int64_t len = 0, s = 0;
  const bool row = inner_row(p.inner, &len, &s);
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    const double mean = row_sum(p.inner, in, a, row && s == 1, [](double v) { return v; }) / n;
    const double m2 = row_sum(p.inner, in, a, row, [mean](double v) {
      const double d = v - mean;
      return d * d;
    });
    double var = m2 / denom;
    store_f64(out, b, take_sqrt ? std::sqrt(var) : var);
    if (mean_out) store_f64(*mean_out, mean_contig ? k : strided_offset(*mean_out, k), mean);
    ++k;
  });
}

bool var_common(KernelContext& ctx, const char* op, EValue** args, double correction, bool take_sqrt,
                int keepdim_arg, int out_arg, bool with_mean) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[keepdim_arg], Tag::Bool, "keepdim") ||
      !expect_tag(ctx, args[out_arg], Tag::Tensor, "out"))
    return false;
  if (with_mean && !expect_tag(ctx, args[out_arg + 1], Tag::Tensor, "out1")) return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[out_arg]->t;
  Tensor* mean_out = with_mean ? args[out_arg + 1]->t : nullptr;
  if (!is_float_dtype(in.dtype) || !is_float_dtype(out.dtype) || (mean_out && !is_float_dtype(mean_out->dtype)))
    return ctx.fail("%s: only floating dtypes are supported, got %s -> %s", op, dtype_name(in.dtype),
                    dtype_name(out.dtype));
  bool mask[kMaxDims];
  if (!parse_dim_mask(ctx, op, args[1], in.dim, true, mask)) return false;
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, args[keepdim_arg]->b, out, p)) return false;
  if (mean_out && !resize_output(ctx, *mean_out, p.out_sizes, p.out_dim)) return false;
  var_run(p, in, out, mean_out, correction, take_sqrt);
  return true;
}

bool correction_arg(KernelContext& ctx, const char* op, const EValue* v, double* c) {
  if (v->is_none()) {
    *c = 1.0;
    return true;
  }
  if (v->tag != Tag::Int && v->tag != Tag::Double && v->tag != Tag::Bool)
    return ctx.fail("%s: correction must be a number or None, got %s", op, tag_name(v->tag));
  *c = v->to_double();
  return true;
}

bool var_correction(KernelContext& ctx, EValue** args, const char* op, bool take_sqrt, bool with_mean) {
  double c = 1.0;
  if (!correction_arg(ctx, op, args[2], &c)) return false;
  return var_common(ctx, op, args, c, take_sqrt, 3, 4, with_mean);
}

bool var_unbiased(KernelContext& ctx, EValue** args, const char* op, bool take_sqrt) {
  if (!expect_tag(ctx, args[2], Tag::Bool, "unbiased")) return false;
  return var_common(ctx, op, args, args[2]->b ? 1.0 : 0.0, take_sqrt, 3, 4, false);
}

}  // namespace

bool var_correction_out(KernelContext& ctx, EValue** args) {
  return var_correction(ctx, args, "var.correction_out", false, false);
}
bool std_correction_out(KernelContext& ctx, EValue** args) {
  return var_correction(ctx, args, "std.correction_out", true, false);
}
bool var_mean_correction_out(KernelContext& ctx, EValue** args) {
  return var_correction(ctx, args, "var_mean.correction_out", false, true);
}
bool std_mean_correction_out(KernelContext& ctx, EValue** args) {
  return var_correction(ctx, args, "std_mean.correction_out", true, true);
}
bool var_out(KernelContext& ctx, EValue** args) { return var_unbiased(ctx, args, "var.out", false); }
bool std_out(KernelContext& ctx, EValue** args) { return var_unbiased(ctx, args, "std.out", true); }

}  // namespace pte
