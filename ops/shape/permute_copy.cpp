// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
//   out[i0, .., in] = self[i_dims^-1...]: out.size(k) = self.size(dims[k]).
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool permute_copy_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  const int64_t* dims;
  size_t n;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "dims", dims, n) ||
      !arg_tensor(ctx, args[2], "out", out))
    return false;
  if (static_cast<int64_t>(n) != in->dim)
    return ctx.fail("permute_copy: %zu dims given for a %d-d tensor", n, in->dim);
  bool seen[kMaxDims] = {};
  View sv;
  sv.dim = in->dim;
  sv.offset = 0;
  int64_t shape[kMaxDims];
  for (size_t k = 0; k < n; ++k) {
    int64_t d = dims[k];
    if (!normalize_dim(d, in->dim) || (in->dim == 0 && d != 0))
      return ctx.fail("permute_copy: dim %lld out of range for a %d-d tensor", static_cast<long long>(dims[k]), in->dim);
    if (seen[d]) return ctx.fail("permute_copy: dim %lld repeated", static_cast<long long>(d));
    seen[d] = true;
    shape[k] = in->sizes[d];
    sv.sizes[k] = in->sizes[d];
    sv.strides[k] = in->strides[d];
  }
  if (!resize_output(ctx, *out, shape, in->dim)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

}  // namespace pte
