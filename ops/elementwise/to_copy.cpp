// aten::_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None, Tensor(a!) out)
// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, Tensor(a!) out)
// dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, Tensor(a!) out)
//
// Copies self into out (resized to self's shape), converting to out's dtype the way
// torch casts (float -> int truncates, anything -> bool is != 0), and writing in
// out's own dim order. A dim_order argument must match out's dim order; _clone_dim_order
// keeps the dtype.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

bool check_dim_order(KernelContext& ctx, const EValue* v, const Tensor& out) {
  if (v->tag == Tag::None) return true;
  if (v->tag != Tag::IntList) return ctx.fail("argument dim_order: expected an int list or None, got %s", tag_name(v->tag));
  size_t n;
  const int64_t* order = v->int_list(&n);
  if (static_cast<int64_t>(n) != out.dim)
    return ctx.fail("dim_order has %zu entries for a %d-d output", n, out.dim);
  for (size_t i = 0; i < n; ++i)
    if (order[i] != out.dim_order[i]) return ctx.fail("dim_order argument does not match the output tensor's dim order");
  return true;
}

bool copy_like(KernelContext& ctx, EValue* self, EValue* out_arg) {
  Tensor* x = ew::tensor_arg(ctx, self, "self");
  Tensor* out = x ? ew::tensor_arg(ctx, out_arg, "out") : nullptr;
  if (!out || !resize_output_like(ctx, *out, *x)) return false;
  return ew::copy_into(ctx, *out, ew::operand(*x));
}

}  // namespace

// args: self, non_blocking, memory_format, out, return
bool to_copy_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[1], Tag::Bool, "non_blocking") || !ew::check_memory_format(ctx, args[2])) return false;
  return copy_like(ctx, args[0], args[3]);
}

// args: self, non_blocking, dim_order, out, return
bool to_dim_order_copy_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[1], Tag::Bool, "non_blocking")) return false;
  Tensor* out = ew::tensor_arg(ctx, args[3], "out");
  if (!out || !check_dim_order(ctx, args[2], *out)) return false;
  return copy_like(ctx, args[0], args[3]);
}

// args: self, non_blocking, dim_order, out, return
bool clone_dim_order_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[1], Tag::Bool, "non_blocking")) return false;
  Tensor* x = ew::tensor_arg(ctx, args[0], "self");
  Tensor* out = x ? ew::tensor_arg(ctx, args[3], "out") : nullptr;
  if (!out || !check_dim_order(ctx, args[2], *out)) return false;
  if (x->dtype != out->dtype)
    return ctx.fail("_clone_dim_order: output dtype %s differs from input dtype %s", dtype_name(out->dtype),
                    dtype_name(x->dtype));
  return copy_like(ctx, args[0], args[3]);
}

}  // namespace pte
