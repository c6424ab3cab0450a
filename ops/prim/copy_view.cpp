// Copies the loader turns into views (MethodImpl's fold_copy_views, interpreter/passes/copy_views.cpp):
// unsqueeze_copy, clone, alias_copy and an expand_copy to the input's own sizes write the
// input's bytes in the same order, so when nothing overwrites the input while the copy is
// read, `out` can take the input's memory instead, as et_view does. Same checks and
// output shape as the kernels they replace; no data moves.
#include "ops/prim/copy_view.h"

#include "ops/util.h"

namespace pte {

bool view_of_self(KernelContext& ctx, const Tensor& self, Tensor& out, const int64_t* sizes, int32_t dim) {
  if (self.dtype != out.dtype) return ctx.fail("self is %s but out is %s", dtype_name(self.dtype), dtype_name(out.dtype));
  if (!self.contiguous_order()) return ctx.fail("self is not contiguous (dim order is not the identity)");
  void* saved = out.data;
  out.data = nullptr;  // self's memory, so out's own capacity does not apply
  if (!resize_output(ctx, out, sizes, dim)) {
    out.data = saved;
    return false;
  }
  if (out.numel() != self.numel()) {
    out.data = saved;
    return ctx.fail("a view of %lld elements as %lld", static_cast<long long>(self.numel()),
                    static_cast<long long>(out.numel()));
  }
  out.data = self.data;
  out.capacity = self.capacity > out.nbytes() ? self.capacity : out.nbytes();
  return true;
}

namespace {

// out = self's bytes under self's sizes; args: self, ..., out at args[out_arg]
bool same_shape_as_view(KernelContext& ctx, EValue** args, int out_arg) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[out_arg], Tag::Tensor, "out")) return false;
  const Tensor& self = *args[0]->t;
  return view_of_self(ctx, self, *args[out_arg]->t, self.sizes, self.dim);
}

}  // namespace

// clone(self, memory_format, out)
bool clone_as_view(KernelContext& ctx, EValue** args) { return same_shape_as_view(ctx, args, 2); }
// alias_copy(self, out)
bool alias_copy_as_view(KernelContext& ctx, EValue** args) { return same_shape_as_view(ctx, args, 1); }
// expand_copy(self, size, implicit, out), the loader having proved size == self's sizes
bool expand_copy_as_view(KernelContext& ctx, EValue** args) { return same_shape_as_view(ctx, args, 3); }

// args: self, dim, out
bool unsqueeze_as_view(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Int, "dim") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "out"))
    return false;
  const Tensor& self = *args[0]->t;
  if (self.dim + 1 > kMaxDims) return ctx.fail("unsqueeze_copy: result would have more than %d dims", kMaxDims);
  int64_t d = args[1]->i;
  if (d < 0) d += self.dim + 1;
  if (d < 0 || d > self.dim) return ctx.fail("dim %lld out of range for a %d-d result", static_cast<long long>(args[1]->i), self.dim + 1);
  int64_t sizes[kMaxDims];
  for (int k = 0, s = 0; k <= self.dim; ++k) sizes[k] = k == d ? 1 : self.sizes[s++];
  return view_of_self(ctx, self, *args[2]->t, sizes, self.dim + 1);
}

}  // namespace pte
