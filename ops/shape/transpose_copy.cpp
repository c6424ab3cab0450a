// aten::transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out)
// aten::t_copy.out(Tensor self, *, Tensor(a!) out): transpose of a <= 2-d tensor.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

static bool transpose_impl(KernelContext& ctx, const Tensor& in, Tensor& out, int64_t d0, int64_t d1) {
  View sv = view_of(in);
  if (in.dim > 0) {
    std::swap(sv.sizes[d0], sv.sizes[d1]);
    std::swap(sv.strides[d0], sv.strides[d1]);
  }
  if (!resize_output(ctx, out, sv.sizes, in.dim)) return false;
  return copy_view(ctx, out, view_of(out), in, sv);
}

bool transpose_copy_int_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[3], "out", out)) return false;
  int64_t d0, d1;
  if (!arg_dim(ctx, args[1], "dim0", in->dim, d0) || !arg_dim(ctx, args[2], "dim1", in->dim, d1)) return false;
  return transpose_impl(ctx, *in, *out, d0, d1);
}

bool t_copy_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[1], "out", out)) return false;
  if (in->dim > 2) return ctx.fail("t_copy: expects a tensor with <= 2 dims, got %d", in->dim);
  return transpose_impl(ctx, *in, *out, 0, in->dim == 2 ? 1 : 0);
}

}  // namespace pte
