// aten::clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
// aten::alias_copy.out(Tensor self, *, Tensor(a!) out)
// aten::detach_copy.out(Tensor self, *, Tensor(a!) out)
// aten::lift_fresh_copy.out(Tensor self, *, Tensor(a!) out)
//
// Copies self into out (resized to self's shape), written in out's own dim order; a
// different out dtype is converted to.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

bool copy_self(KernelContext& ctx, EValue* self, EValue* out_arg) {
  Tensor* x = ew::tensor_arg(ctx, self, "self");
  Tensor* out = x ? ew::tensor_arg(ctx, out_arg, "out") : nullptr;
  if (!out || !resize_output_like(ctx, *out, *x)) return false;
  return ew::copy_into(ctx, *out, ew::operand(*x));
}

}  // namespace

// args: self, memory_format, out, return
bool clone_out(KernelContext& ctx, EValue** args) {
  if (!ew::check_memory_format(ctx, args[1])) return false;
  return copy_self(ctx, args[0], args[2]);
}

// args (each): self, out, return
bool alias_copy_out(KernelContext& ctx, EValue** args) { return copy_self(ctx, args[0], args[1]); }
bool detach_copy_out(KernelContext& ctx, EValue** args) { return copy_self(ctx, args[0], args[1]); }
bool lift_fresh_copy_out(KernelContext& ctx, EValue** args) { return copy_self(ctx, args[0], args[1]); }

}  // namespace pte
