// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
//   Broadcasts self to `size`: new leading dims, or size-1 dims repeated; -1 keeps a dim.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool expand_copy_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  const int64_t* size;
  size_t n;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "size", size, n) ||
      !arg_tensor(ctx, args[3], "out", out))
    return false;
  const int32_t nd = static_cast<int32_t>(n);
  if (nd < in->dim || nd > kMaxDims)
    return ctx.fail("expand_copy: the number of sizes (%d) must be >= the tensor's dims (%d) and <= %d", nd, in->dim, kMaxDims);
  View sv;
  sv.dim = nd;
  sv.offset = 0;
  const int lead = nd - in->dim;
  for (int k = 0; k < nd; ++k) {
    const int64_t want = size[k];
    if (k < lead) {
      if (want < 0) return ctx.fail("expand_copy: -1 is not allowed for a new leading dimension (%d)", k);
      sv.sizes[k] = want;
      sv.strides[k] = 0;
      continue;
    }
    const int64_t have = in->sizes[k - lead];
    if (want == -1 || want == have) {
      sv.sizes[k] = have;
      sv.strides[k] = in->strides[k - lead];
    } else if (have == 1 && want >= 0) {
      sv.sizes[k] = want;
      sv.strides[k] = 0;
    } else {
      return ctx.fail("expand_copy: the expanded size %lld must match the existing size %lld at dim %d",
                      static_cast<long long>(want), static_cast<long long>(have), k);
    }
  }
  if (!resize_output(ctx, *out, sv.sizes, nd)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

}  // namespace pte
