// aten::unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out)
//   Inserts a size-1 dim at `dim` (in [-self.dim-1, self.dim]).
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool unsqueeze_copy_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  int64_t dim;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "out", out) ||
      !arg_dim(ctx, args[1], "dim", in->dim + 1, dim))
    return false;
  if (in->dim + 1 > kMaxDims) return ctx.fail("unsqueeze_copy: result would have more than %d dims", kMaxDims);
  View sv;
  sv.dim = in->dim + 1;
  sv.offset = 0;
  for (int d = 0, s = 0; d < sv.dim; ++d) {
    if (d == dim) {
      sv.sizes[d] = 1;
      sv.strides[d] = 1;
    } else {
      sv.sizes[d] = in->sizes[s];
      sv.strides[d] = in->strides[s];
      ++s;
    }
  }
  if (!resize_output(ctx, *out, sv.sizes, sv.dim)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

}  // namespace pte
