// aten::linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out)
//
// out is resized to [steps]; with step = (end - start) / (steps - 1), element i is
// start + i * step for the first half and end - (steps - 1 - i) * step for the
// second (torch's symmetric form, exact at both ends). steps == 1 gives [start].
// Floating outs compute in their compute type, integral ones in double (truncated).
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

template <class O>
void linspace_typed(Tensor& out, double start_d, double end_d, int64_t steps) {
  using S = std::conditional_t<is_floating_v<O>, compute_t<O>, double>;
  O* y = out.ptr<O>();
  if (steps == 1) {
    y[0] = convert<O>(start_d);
    return;
  }
  // torch casts start/end to the out type first
  const S start = static_cast<S>(convert<compute_t<O>>(convert<O>(start_d)));
  const S end = static_cast<S>(convert<compute_t<O>>(convert<O>(end_d)));
  const S step = (end - start) / static_cast<S>(steps - 1);
  const int64_t half = steps / 2;
  for (int64_t i = 0; i < steps; ++i) {
    S v = i < half ? start + step * static_cast<S>(i) : end - step * static_cast<S>(steps - i - 1);
    y[i] = convert<O>(v);
  }
}

}  // namespace

bool linspace_out(KernelContext& ctx, EValue** args) {
  const char* op = "linspace.out";
  if (!expect_tag(ctx, args[2], Tag::Int, "steps") || !expect_tag(ctx, args[3], Tag::Tensor, "out")) return false;
  for (int i = 0; i < 2; ++i)
    if (args[i]->tag != Tag::Int && args[i]->tag != Tag::Double && args[i]->tag != Tag::Bool)
      return ctx.fail("%s: start/end must be numbers, got %s", op, tag_name(args[i]->tag));
  const int64_t steps = args[2]->i;
  if (steps < 0) return ctx.fail("%s: number of steps must be non-negative, got %lld", op, static_cast<long long>(steps));
  Tensor& out = *args[3]->t;
  if (!is_real_dtype(out.dtype)) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  if (!resize_output(ctx, out, &steps, 1)) return false;
  if (steps == 0) return true;
  const double start = args[0]->to_double(), end = args[1]->to_double();
  visit_real_dtype(out.dtype, [&](auto tag) { linspace_typed<typename decltype(tag)::type>(out, start, end, steps); });
  return true;
}

}  // namespace pte
