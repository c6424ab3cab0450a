// aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
//   Reverses the order of elements along each listed dim (a view with negative strides).
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool flip_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  const int64_t* dims;
  size_t n;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "dims", dims, n) ||
      !arg_tensor(ctx, args[2], "out", out))
    return false;
  View sv = view_of(*in);
  bool seen[kMaxDims] = {};
  for (size_t k = 0; k < n; ++k) {
    int64_t d = dims[k];
    if (!normalize_dim(d, in->dim))
      return ctx.fail("flip: dim %lld out of range for a %d-d tensor", static_cast<long long>(dims[k]), in->dim);
    if (seen[d]) return ctx.fail("flip: dim %lld appears multiple times in the list of dims", static_cast<long long>(d));
    seen[d] = true;
    if (in->dim == 0 || in->sizes[d] == 0) continue;
    sv.offset += (in->sizes[d] - 1) * in->strides[d];
    sv.strides[d] = -in->strides[d];
  }
  if (!resize_output_like(ctx, *out, *in)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

}  // namespace pte
