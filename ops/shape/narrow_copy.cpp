// aten::narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out)
//   self[..., start:start+length, ...]; start may be negative (wraps once), the range must fit.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool narrow_copy_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  int64_t dim, start, length;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[4], "out", out)) return false;
  if (in->dim == 0) return ctx.fail("narrow_copy: cannot narrow a 0-d tensor");
  if (!arg_dim(ctx, args[1], "dim", in->dim, dim) || !arg_int(ctx, args[2], "start", start) ||
      !arg_int(ctx, args[3], "length", length))
    return false;
  const int64_t size = in->sizes[dim];
  if (start < -size || start > size)
    return ctx.fail("narrow_copy: start %lld out of range for dimension %lld of size %lld", static_cast<long long>(start),
                    static_cast<long long>(dim), static_cast<long long>(size));
  if (start < 0) start += size;
  if (length < 0 || start + length > size)
    return ctx.fail("narrow_copy: start (%lld) + length (%lld) exceeds dimension size (%lld)", static_cast<long long>(start),
                    static_cast<long long>(length), static_cast<long long>(size));
  View sv = view_of(*in);
  sv.offset = start * sv.strides[dim];
  sv.sizes[dim] = length;
  if (!resize_output(ctx, *out, sv.sizes, sv.dim)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

}  // namespace pte
