// aten::squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out)
// aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out)
// aten::squeeze_copy.out(Tensor self, *, Tensor(a!) out)
//   Drops the given (or every) size-1 dims; a listed dim whose size is not 1 is kept.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

// drop[d]: squeeze dim d if its size is 1.
static bool squeeze_impl(KernelContext& ctx, const Tensor& in, Tensor& out, const bool* drop) {
  View sv;
  sv.dim = 0;
  sv.offset = 0;
  for (int d = 0; d < in.dim; ++d) {
    if (drop[d] && in.sizes[d] == 1) continue;
    sv.sizes[sv.dim] = in.sizes[d];
    sv.strides[sv.dim] = in.strides[d];
    ++sv.dim;
  }
  if (!resize_output(ctx, out, sv.sizes, sv.dim)) return false;
  return copy_view(ctx, out, view_of(out), in, sv);
}

bool squeeze_copy_dim_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  int64_t dim;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "out", out) ||
      !arg_dim(ctx, args[1], "dim", in->dim, dim))
    return false;
  bool drop[kMaxDims] = {};
  if (in->dim > 0) drop[dim] = true;
  return squeeze_impl(ctx, *in, *out, drop);
}

bool squeeze_copy_dims_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  const int64_t* dims;
  size_t n;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "dim", dims, n) ||
      !arg_tensor(ctx, args[2], "out", out))
    return false;
  bool drop[kMaxDims] = {};
  for (size_t k = 0; k < n; ++k) {
    int64_t d = dims[k];
    if (!normalize_dim(d, in->dim))
      return ctx.fail("squeeze_copy: dim %lld out of range for a %d-d tensor", static_cast<long long>(dims[k]), in->dim);
    if (in->dim > 0) drop[d] = true;
  }
  return squeeze_impl(ctx, *in, *out, drop);
}

bool squeeze_copy_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[1], "out", out)) return false;
  bool drop[kMaxDims];
  for (int d = 0; d < kMaxDims; ++d) drop[d] = true;
  return squeeze_impl(ctx, *in, *out, drop);
}

}  // namespace pte
