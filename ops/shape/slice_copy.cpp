// aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None,
//                             SymInt step=1, *, Tensor(a!) out)
//   self[..., start:end:step, ...] along `dim`; bounds clamp like Python slicing.
// aten::slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None,
//                         SymInt? end=None, SymInt step=1, *, Tensor(a!) out)
//   out = self with out[..., start:end:step, ...] = src.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

// Reads dim/start/end/step (args[i0..i0+3]) and narrows `v` (a view of a tensor of rank
// `rank`) to the slice; `len` receives its length.
static bool slice_view(KernelContext& ctx, EValue** args, int i0, const Tensor& t, View& v, const char* op) {
  if (t.dim == 0) return ctx.fail("%s: cannot slice a 0-d tensor", op);
  int64_t dim, start = 0, end = INT64_MAX, step;
  bool has_start, has_end;
  if (!arg_dim(ctx, args[i0], "dim", t.dim, dim) || !arg_opt_int(ctx, args[i0 + 1], "start", start, has_start) ||
      !arg_opt_int(ctx, args[i0 + 2], "end", end, has_end) || !arg_int(ctx, args[i0 + 3], "step", step))
    return false;
  if (!has_start) start = 0;
  if (!has_end) end = INT64_MAX;
  if (step <= 0) return ctx.fail("%s: step must be positive, got %lld", op, static_cast<long long>(step));
  const int64_t len = slice_length(t.sizes[dim], start, end, step);
  v.offset += start * v.strides[dim];
  v.sizes[dim] = len;
  v.strides[dim] *= step;
  return true;
}

bool slice_copy_tensor_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[5], "out", out)) return false;
  View sv = view_of(*in);
  if (!slice_view(ctx, args, 1, *in, sv, "slice_copy")) return false;
  if (!resize_output(ctx, *out, sv.sizes, sv.dim)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

bool slice_scatter_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *src, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[1], "src", src) ||
      !arg_tensor(ctx, args[6], "out", out))
    return false;
  if (!resize_output_like(ctx, *out, *in) || !copy_tensor(ctx, *out, *in)) return false;
  View dv = view_of(*out);
  if (!slice_view(ctx, args, 2, *out, dv, "slice_scatter")) return false;
  bool same = src->dim == dv.dim;
  for (int d = 0; same && d < dv.dim; ++d) same = src->sizes[d] == dv.sizes[d];
  if (!same) {
    char b1[160], b2[160];
    return ctx.fail("slice_scatter: src %s must have the slice's shape %s", shape_string(src->sizes, src->dim, b1, sizeof b1),
                    shape_string(dv.sizes, dv.dim, b2, sizeof b2));
  }
  return copy_view(ctx, *out, dv, *src, view_of(*src));
}

}  // namespace pte
