// aten::copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out)
// aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
//
// copy.out: out (resized to self's shape) = src broadcast to self's shape, converted
// to out's dtype. copy_: the same, written into self itself (the write-back of a
// mutated buffer); its return slot is self.
#include <algorithm>
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

bool check_src(KernelContext& ctx, const Tensor& src, const Tensor& self) {
  if (ew::broadcasts_to(src, self.sizes, self.dim)) return true;
  char a[160], b[160];
  return ctx.fail("copy: source shape %s does not broadcast to %s", ew::shape_str(a, sizeof a, src.sizes, src.dim),
                  ew::shape_str(b, sizeof b, self.sizes, self.dim));
}

}  // namespace

// args: self, src, non_blocking, out, return
bool copy_out(KernelContext& ctx, EValue** args) {
  Tensor* self = ew::tensor_arg(ctx, args[0], "self");
  Tensor* src = self ? ew::tensor_arg(ctx, args[1], "src") : nullptr;
  if (!src || !expect_tag(ctx, args[2], Tag::Bool, "non_blocking")) return false;
  Tensor* out = ew::tensor_arg(ctx, args[3], "out");
  if (!out || !check_src(ctx, *src, *self) || !resize_output_like(ctx, *out, *self)) return false;
  return ew::copy_into(ctx, *out, ew::operand(*src));
}

// args: self, src, non_blocking, return (self)
bool copy_inplace(KernelContext& ctx, EValue** args) {
  Tensor* self = ew::tensor_arg(ctx, args[0], "self");
  Tensor* src = self ? ew::tensor_arg(ctx, args[1], "src") : nullptr;
  if (!src || !expect_tag(ctx, args[2], Tag::Bool, "non_blocking")) return false;
  if (!check_src(ctx, *src, *self)) return false;
  // src is self's own memory in self's layout (a KV-cache write-back the loader made in
  // place): nothing to copy
  if (src->data == self->data && src->dtype == self->dtype && src->dim == self->dim &&
      std::equal(self->sizes, self->sizes + self->dim, src->sizes) &&
      std::equal(self->strides, self->strides + self->dim, src->strides))
    return true;
  return ew::copy_into(ctx, *self, ew::operand(*src));
}

}  // namespace pte
