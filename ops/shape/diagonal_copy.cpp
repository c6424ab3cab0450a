// aten::diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, Tensor(a!) out)
//   The diagonal of the (dim1, dim2) planes (offset > 0: above the main one), as a new
//   last dim; dim1 and dim2 are removed.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool diagonal_copy_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  int64_t offset, d1, d2;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[4], "out", out)) return false;
  if (in->dim < 2) return ctx.fail("diagonal_copy: needs a tensor with at least 2 dims, got %d", in->dim);
  if (!arg_int(ctx, args[1], "offset", offset) || !arg_dim(ctx, args[2], "dim1", in->dim, d1) ||
      !arg_dim(ctx, args[3], "dim2", in->dim, d2))
    return false;
  if (d1 == d2) return ctx.fail("diagonal_copy: dim1 and dim2 cannot be the same (%lld)", static_cast<long long>(d1));
  const int64_t s1 = in->sizes[d1], s2 = in->sizes[d2];
  int64_t n = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  if (n < 0) n = 0;
  View sv;
  sv.dim = 0;
  sv.offset = 0;
  if (n > 0) sv.offset = offset >= 0 ? offset * in->strides[d2] : -offset * in->strides[d1];
  for (int d = 0; d < in->dim; ++d) {
    if (d == d1 || d == d2) continue;
    sv.sizes[sv.dim] = in->sizes[d];
    sv.strides[sv.dim] = in->strides[d];
    ++sv.dim;
  }
  sv.sizes[sv.dim] = n;
  sv.strides[sv.dim] = in->strides[d1] + in->strides[d2];
  ++sv.dim;
  if (!resize_output(ctx, *out, sv.sizes, sv.dim)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

}  // namespace pte
