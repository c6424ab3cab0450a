// executorch_prim::et_view.default(Tensor self, int[] size) -> Tensor
//
// A dynamic view: resizes `out` to `size` (one entry may be -1, inferred from self's
// element count) and points its data at self's. Emitted instead of view_copy when
// the shape is only known at run time; `out` has no planned memory of its own.
#include "ops/prim/copy_view.h"
#include "ops/util.h"

namespace pte {

// args: self, size, out (the return slot)
bool et_view_default(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::IntList, "size") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "out"))
    return false;
  const Tensor& self = *args[0]->t;
  Tensor& out = *args[2]->t;
  if (self.dtype != out.dtype)
    return ctx.fail("self is %s but out is %s", dtype_name(self.dtype), dtype_name(out.dtype));
  if (!self.contiguous_order()) return ctx.fail("self is not contiguous (dim order is not the identity)");
  size_t n = 0;
  const int64_t* size = args[1]->int_list(&n);
  if (n > static_cast<size_t>(kMaxDims)) return ctx.fail("size has %zu entries (at most %d)", n, kMaxDims);
  if (static_cast<int32_t>(n) != out.dim) return ctx.fail("size has %zu entries but out has rank %d", n, out.dim);
  int64_t sizes[kMaxDims];
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < n; ++i) {
    if (size[i] == -1) {
      if (infer >= 0) return ctx.fail("at most one size may be -1");
      infer = static_cast<int>(i);
      continue;
    }
    if (size[i] < 0) return ctx.fail("size %lld is negative", static_cast<long long>(size[i]));
    sizes[i] = size[i];
    known *= size[i];
  }
  const int64_t numel = self.numel();
  if (infer >= 0) {
    if (known == 0) return ctx.fail("cannot infer the -1 size when another size is 0");
    if (numel % known != 0) return ctx.fail("cannot view %lld elements with -1 and the other sizes' product %lld",
                                            static_cast<long long>(numel), static_cast<long long>(known));
    sizes[infer] = numel / known;
    known *= sizes[infer];
  }
  if (known != numel)
    return ctx.fail("cannot view %lld elements as %lld", static_cast<long long>(numel), static_cast<long long>(known));
  return view_of_self(ctx, self, out, sizes, static_cast<int32_t>(n));
}

}  // namespace pte
