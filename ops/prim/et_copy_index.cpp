// executorch_prim::et_copy_index.tensor(Tensor(a!) copy_to, Tensor copy_from, int index) -> ()
//
// Used by the emitted loop of torch.map / scan: writes iteration `index`'s result into
// row `index` of the stacked output, growing copy_to's first dimension to index + 1.
// No return slot (three arguments).
#include <cstring>

#include "ops/util.h"

namespace pte {

// args: copy_to, copy_from, index
bool et_copy_index_tensor(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "copy_to") || !expect_tag(ctx, args[1], Tag::Tensor, "copy_from") ||
      !expect_tag(ctx, args[2], Tag::Int, "index"))
    return false;
  Tensor& to = *args[0]->t;
  const Tensor& from = *args[1]->t;
  int64_t index = args[2]->i;
  if (index < 0) return ctx.fail("index %lld is negative", static_cast<long long>(index));
  if (to.dtype != from.dtype) return ctx.fail("copy_to is %s but copy_from is %s", dtype_name(to.dtype), dtype_name(from.dtype));
  if (to.dim != from.dim + 1) return ctx.fail("copy_to has rank %d, copy_from rank %d (must differ by one)", to.dim, from.dim);
  if (!to.contiguous_order() || !from.contiguous_order()) return ctx.fail("tensors must be contiguous");
  int64_t sizes[kMaxDims];
  sizes[0] = index + 1;
  for (int i = 0; i < from.dim; ++i) {
    if (to.sizes[i + 1] != from.sizes[i]) return ctx.fail("copy_to's inner sizes differ from copy_from's in dim %d", i);
    sizes[i + 1] = from.sizes[i];
  }
  if (!resize_output(ctx, to, sizes, to.dim)) return false;
  size_t row = from.nbytes();
  if (row == 0) return true;
  if (!to.data || !from.data) return ctx.fail("tensor without data");
  if (static_cast<uint64_t>(index) > (to.capacity / row) - 1) return ctx.fail("index %lld is past copy_to's capacity", static_cast<long long>(index));
  std::memcpy(static_cast<uint8_t*>(to.data) + static_cast<size_t>(index) * row, from.data, row);
  return true;
}

}  // namespace pte
