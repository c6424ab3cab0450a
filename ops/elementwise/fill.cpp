// aten::fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out)
// aten::fill.Tensor_out(Tensor self, Tensor value, *, Tensor(a!) out)
// aten::full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None, Tensor(a!) out)
// aten::zeros_like.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
// aten::ones_like.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
//
// out (resized to self's shape) is filled with one value cast to out's dtype (an Int
// value keeps all 64 bits); self's data is not read. fill.Tensor takes the value
// from a zero-dim tensor.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class E>
void fill_elems(void* dst, const unsigned char* value, int64_t n) {
  E v;
  std::memcpy(&v, value, sizeof(E));
  E* d = static_cast<E*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = v;
}

// Fills out (given self's shape) with `value`.
bool fill_with(KernelContext& ctx, EValue* self, const EValue& value, EValue* out_arg) {
  Tensor* x = ew::tensor_arg(ctx, self, "self");
  Tensor* out = x ? ew::tensor_arg(ctx, out_arg, "out") : nullptr;
  if (!out || !resize_output_like(ctx, *out, *x)) return false;
  ew::ScalarBox box;
  if (!ew::write_scalar(value, out->dtype, box.bytes)) return ctx.fail("unsupported output dtype %s", dtype_name(out->dtype));
  const int64_t n = out->numel();
  if (n == 0) return true;
  if (!out->data) return ctx.fail("output tensor has no memory");
  // Any dim order of a dense tensor covers exactly its first numel elements.
  switch (dtype_size(out->dtype)) {
    case 1: fill_elems<uint8_t>(out->data, box.bytes, n); return true;
    case 2: fill_elems<uint16_t>(out->data, box.bytes, n); return true;
    case 4: fill_elems<uint32_t>(out->data, box.bytes, n); return true;
    case 8: fill_elems<uint64_t>(out->data, box.bytes, n); return true;
    default: return ctx.fail("unsupported output dtype %s", dtype_name(out->dtype));
  }
}

EValue int_scalar(int64_t v) {
  EValue e;
  e.tag = Tag::Int;
  e.i = v;
  return e;
}

}  // namespace

// args: self, value (Scalar), out, return
bool fill_scalar_out(KernelContext& ctx, EValue** args) {
  if (!ew::scalar_arg(ctx, args[1], "value")) return false;
  return fill_with(ctx, args[0], *args[1], args[2]);
}

// args: self, value (zero-dim Tensor), out, return
bool fill_tensor_out(KernelContext& ctx, EValue** args) {
  Tensor* v = ew::tensor_arg(ctx, args[1], "value");
  if (!v) return false;
  if (v->dim != 0 || !v->data || !ew::is_known(v->dtype))
    return ctx.fail("fill only supports a 0-dimension value tensor, got one with %d dimension(s)", v->dim);
  return fill_with(ctx, args[0], ew::element_scalar(*v), args[2]);
}

// args: self, fill_value, memory_format, out, return
bool full_like_out(KernelContext& ctx, EValue** args) {
  if (!ew::scalar_arg(ctx, args[1], "fill_value") || !ew::check_memory_format(ctx, args[2])) return false;
  return fill_with(ctx, args[0], *args[1], args[3]);
}

// args: self, memory_format, out, return
bool zeros_like_out(KernelContext& ctx, EValue** args) {
  if (!ew::check_memory_format(ctx, args[1])) return false;
  return fill_with(ctx, args[0], int_scalar(0), args[2]);
}

bool ones_like_out(KernelContext& ctx, EValue** args) {
  if (!ew::check_memory_format(ctx, args[1])) return false;
  return fill_with(ctx, args[0], int_scalar(1), args[2]);
}

}  // namespace pte
