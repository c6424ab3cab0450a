// aten::arange.out(Scalar end, *, Tensor(a!) out)
// aten::arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)
//
// out is resized to [ceil((end - start) / step)] and element i is start + i * step,
// computed in int64 for an int64 out (the size by integer division, as torch) and in
// double otherwise, then converted. step 0, or a step whose sign disagrees with
// end - start, is an error.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

bool scalar_arg(KernelContext& ctx, const EValue* v, const char* name) {
  if (v->tag == Tag::Int || v->tag == Tag::Double || v->tag == Tag::Bool) return true;
  return ctx.fail("arange: %s must be a number, got %s", name, tag_name(v->tag));
}

bool arange_common(KernelContext& ctx, const char* op, const EValue* startv, const EValue* endv,
                   const EValue* stepv, const EValue* outv) {
  if (!expect_tag(ctx, outv, Tag::Tensor, "out")) return false;
  if ((startv && !scalar_arg(ctx, startv, "start")) || !scalar_arg(ctx, endv, "end") ||
      (stepv && !scalar_arg(ctx, stepv, "step")))
    return false;
  Tensor& out = *outv->t;
  if (!is_real_dtype(out.dtype)) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  const double start = startv ? startv->to_double() : 0.0, end = endv->to_double(), step = stepv ? stepv->to_double() : 1.0;
  if (step == 0) return ctx.fail("%s: step must be nonzero", op);
  if (!std::isfinite(start) || !std::isfinite(end)) return ctx.fail("%s: unsupported range %g to %g", op, start, end);
  if ((step > 0 && end < start) || (step < 0 && end > start))
    return ctx.fail("%s: upper bound and larger bound inconsistent with step sign (start %g, end %g, step %g)", op,
                    start, end, step);
  int64_t n;
  const bool int64_path = out.dtype == DType::Int64;
  int64_t istart = 0, istep = 1;
  if (int64_path) {
    istart = startv ? startv->to_int() : 0;
    int64_t iend = endv->to_int();
    istep = stepv ? stepv->to_int() : 1;
    if (istep == 0) return ctx.fail("%s: step must be nonzero", op);
    const int64_t sgn = (istep > 0) - (istep < 0);
    n = (iend - istart + istep - sgn) / istep;
  } else {
    n = static_cast<int64_t>(std::ceil((end - start) / step));
  }
  if (n < 0) n = 0;
  if (!resize_output(ctx, out, &n, 1)) return false;
  if (int64_path) {
    int64_t* y = out.ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) y[i] = istart + i * istep;
    return true;
  }
  visit_real_dtype(out.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    O* y = out.ptr<O>();
    for (int64_t i = 0; i < n; ++i) y[i] = convert<O>(start + static_cast<double>(i) * step);
  });
  return true;
}

}  // namespace

bool arange_out(KernelContext& ctx, EValue** args) {
  return arange_common(ctx, "arange.out", nullptr, args[0], nullptr, args[1]);
}

bool arange_start_out(KernelContext& ctx, EValue** args) {
  return arange_common(ctx, "arange.start_out", args[0], args[1], args[2], args[3]);
}

}  // namespace pte
