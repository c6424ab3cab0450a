// aten::unfold_copy.out(Tensor self, int dimension, int size, int step, *, Tensor(a!) out)
//   Sliding windows of `size` elements every `step` along `dimension`: that dim becomes the
//   number of windows and a new last dim of `size` is appended.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool unfold_copy_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  int64_t d, size, step;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[4], "out", out) ||
      !arg_dim(ctx, args[1], "dimension", in->dim, d) || !arg_int(ctx, args[2], "size", size) ||
      !arg_int(ctx, args[3], "step", step))
    return false;
  const int64_t len = in->dim ? in->sizes[d] : 1, st = in->dim ? in->strides[d] : 1;
  if (size < 0 || size > len)
    return ctx.fail("unfold_copy: maximum size for dimension %lld is %lld but size is %lld", static_cast<long long>(d),
                    static_cast<long long>(len), static_cast<long long>(size));
  if (step <= 0) return ctx.fail("unfold_copy: step is %lld but must be > 0", static_cast<long long>(step));
  if (in->dim + 1 > kMaxDims) return ctx.fail("unfold_copy: result would have more than %d dims", kMaxDims);
  View sv = view_of(*in);
  if (in->dim > 0) {
    sv.sizes[d] = (len - size) / step + 1;
    sv.strides[d] = st * step;
  }
  sv.sizes[sv.dim] = size;
  sv.strides[sv.dim] = st;
  ++sv.dim;
  if (!resize_output(ctx, *out, sv.sizes, sv.dim)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

}  // namespace pte
