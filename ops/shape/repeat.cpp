// aten::repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
//   Tiles self: out.size(i) = repeats[i] * self.size(i) (self padded with leading 1s).
//   One strided copy over a 2n-dim view: (tile index, position in tile) per dim.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool repeat_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  const int64_t* reps;
  size_t n;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "repeats", reps, n) ||
      !arg_tensor(ctx, args[2], "out", out))
    return false;
  const int32_t nd = static_cast<int32_t>(n);
  if (nd < in->dim)
    return ctx.fail("repeat: number of repeat dims (%d) can not be smaller than the tensor's dims (%d)", nd, in->dim);
  if (nd > kMaxDims) return ctx.fail("repeat: %d dims is more than %d", nd, kMaxDims);
  const int lead = nd - in->dim;
  int64_t shape[kMaxDims];
  for (int k = 0; k < nd; ++k) {
    if (reps[k] < 0) return ctx.fail("repeat: repeats can not be negative (%lld)", static_cast<long long>(reps[k]));
    shape[k] = reps[k] * (k < lead ? 1 : in->sizes[k - lead]);
  }
  if (!resize_output(ctx, *out, shape, nd)) return false;
  View dv, sv;
  dv.dim = sv.dim = 2 * nd;
  dv.offset = sv.offset = 0;
  for (int k = 0; k < nd; ++k) {
    const int64_t s = k < lead ? 1 : in->sizes[k - lead];
    const int64_t st = k < lead ? 0 : in->strides[k - lead];
    dv.sizes[2 * k] = sv.sizes[2 * k] = reps[k];
    dv.sizes[2 * k + 1] = sv.sizes[2 * k + 1] = s;
    dv.strides[2 * k] = s * out->strides[k];
    dv.strides[2 * k + 1] = out->strides[k];
    sv.strides[2 * k] = 0;
    sv.strides[2 * k + 1] = st;
  }
  return copy_view(ctx, *out, dv, *in, sv);
}

}  // namespace pte
