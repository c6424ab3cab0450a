// aten::amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
// aten::amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
//
// dim [] reduces every dim. NaN propagates. out has the input dtype. Reducing a
// zero-size dim is an error (there is no identity), as in torch.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

template <bool IsMax>
void amax_run(const ReducePlan& p, const Tensor& in, Tensor& out) {
  int64_t len = 0, s = 0;
  const bool row = inner_row(p.inner, &len, &s);
  if (in.dtype == DType::Float && row) {  // f32 rows
    const float* x = in.ptr<float>();
    float* y = out.ptr<float>();
    for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) { y[b] = minmax_row<IsMax>(x + a, len, s); });
    return;
  }
  // Any dtype: the value at the first extreme; a NaN in a row gives the quiet NaN
  // (minmax_row's result), elsewhere the first NaN itself.
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    const int64_t off = iter_offset(p.inner, a, arg_extreme(in, p.inner, a, IsMax));
    if (row && is_nan_at(in, off))
      store_f64(out, b, std::numeric_limits<double>::quiet_NaN());
    else
      copy_element(in, off, out, b);
  });
}

template <bool IsMax>
bool amax_common(KernelContext& ctx, EValue** args, const char* op) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Bool, "keepdim") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "out"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[3]->t;
  if (out.dtype != in.dtype)
    return ctx.fail("%s: out dtype %s must match input dtype %s", op, dtype_name(out.dtype), dtype_name(in.dtype));
  bool mask[kMaxDims];
  if (!parse_dim_mask(ctx, op, args[1], in.dim, true, mask)) return false;
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, args[2]->b, out, p)) return false;
  if (p.inner.numel == 0 && p.outer.numel > 0)
    return ctx.fail("%s: cannot reduce over a zero-size dim (no identity)", op);
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  amax_run<IsMax>(p, in, out);
  return true;
}

}  // namespace

bool amax_out(KernelContext& ctx, EValue** args) { return amax_common<true>(ctx, args, "amax.out"); }
bool amin_out(KernelContext& ctx, EValue** args) { return amax_common<false>(ctx, args, "amin.out"); }

}  // namespace pte
