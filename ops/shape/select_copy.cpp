// aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)
//   self[..., index, ...] along dim (the dim disappears); negative index wraps.
// aten::select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out)
//   out = self with out[..., index, ...] = src.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

// Drops `dim` from v after moving its offset to `index` (checked and wrapped).
static bool select_view(KernelContext& ctx, const EValue* dim_arg, const EValue* index_arg, const Tensor& t, View& v,
                        const char* op) {
  if (t.dim == 0) return ctx.fail("%s: cannot select from a 0-d tensor", op);
  int64_t dim, index;
  if (!arg_dim(ctx, dim_arg, "dim", t.dim, dim) || !arg_int(ctx, index_arg, "index", index)) return false;
  int64_t i = index;
  if (!wrap_index(i, t.sizes[dim])) return fail_index(ctx, op, index, dim, t.sizes[dim]);
  v.offset += i * v.strides[dim];
  for (int d = static_cast<int>(dim); d + 1 < v.dim; ++d) {
    v.sizes[d] = v.sizes[d + 1];
    v.strides[d] = v.strides[d + 1];
  }
  --v.dim;
  return true;
}

bool select_copy_int_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[3], "out", out)) return false;
  View sv = view_of(*in);
  if (!select_view(ctx, args[1], args[2], *in, sv, "select_copy")) return false;
  if (!resize_output(ctx, *out, sv.sizes, sv.dim)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

bool select_scatter_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *src, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[1], "src", src) ||
      !arg_tensor(ctx, args[4], "out", out))
    return false;
  if (!resize_output_like(ctx, *out, *in) || !copy_tensor(ctx, *out, *in)) return false;
  View dv = view_of(*out);
  if (!select_view(ctx, args[2], args[3], *out, dv, "select_scatter")) return false;
  bool same = src->dim == dv.dim;
  for (int d = 0; same && d < dv.dim; ++d) same = src->sizes[d] == dv.sizes[d];
  if (!same) {
    char b1[160], b2[160];
    return ctx.fail("select_scatter: src %s must have the selected shape %s",
                    shape_string(src->sizes, src->dim, b1, sizeof b1), shape_string(dv.sizes, dv.dim, b2, sizeof b2));
  }
  return copy_view(ctx, *out, dv, *src, view_of(*src));
}

}  // namespace pte
