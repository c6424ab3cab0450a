// aten::full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)
// aten::zeros.out(SymInt[] size, *, Tensor(a!) out)
// aten::ones.out(SymInt[] size, *, Tensor(a!) out)
// aten::empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out)
// aten::scalar_tensor.out(Scalar s, *, Tensor(a!) out)
//
// out is resized to `size` (scalar_tensor: 0-d) and filled with the value converted
// to its dtype (float -> int truncates, -> bool is != 0). empty.out only resizes.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// Fills every element of t (all of its memory: the value is the same everywhere, so
// the dim order does not matter) with the Scalar v.
bool fill_scalar(KernelContext& ctx, const char* op, Tensor& t, const EValue* v) {
  if (v->tag != Tag::Int && v->tag != Tag::Double && v->tag != Tag::Bool)
    return ctx.fail("%s: fill value must be a Scalar (Int, Double or Bool), got %s", op, tag_name(v->tag));
  const int64_t n = t.numel();
  bool ok = visit_any_dtype(t.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    O value;
    if (v->tag == Tag::Int)
      value = convert<O>(v->i);
    else if (v->tag == Tag::Double)
      value = convert<O>(v->d);
    else
      value = convert<O>(v->b);
    O* p = t.ptr<O>();
    for (int64_t i = 0; i < n; ++i) p[i] = value;
  });
  if (!ok) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(t.dtype));
  return true;
}

bool resize_to_list(KernelContext& ctx, const char* op, Tensor& out, const EValue* size) {
  if (!expect_tag(ctx, size, Tag::IntList, "size")) return false;
  size_t n = 0;
  const int64_t* s = size->int_list(&n);
  if (n > static_cast<size_t>(kMaxDims)) return ctx.fail("%s: %zu dims exceed the maximum %d", op, n, kMaxDims);
  for (size_t i = 0; i < n; ++i)
    if (s[i] < 0) return ctx.fail("%s: negative size %lld", op, static_cast<long long>(s[i]));
  return resize_output(ctx, out, s, static_cast<int32_t>(n));
}

bool fill_common(KernelContext& ctx, const char* op, const EValue* size, const EValue* value, const EValue* outv) {
  if (!expect_tag(ctx, outv, Tag::Tensor, "out")) return false;
  Tensor& out = *outv->t;
  if (!resize_to_list(ctx, op, out, size)) return false;
  return fill_scalar(ctx, op, out, value);
}

}  // namespace

bool full_out(KernelContext& ctx, EValue** args) { return fill_common(ctx, "full.out", args[0], args[1], args[2]); }

bool zeros_out(KernelContext& ctx, EValue** args) {
  EValue zero;
  zero.tag = Tag::Int;
  zero.i = 0;
  return fill_common(ctx, "zeros.out", args[0], &zero, args[1]);
}

bool ones_out(KernelContext& ctx, EValue** args) {
  EValue one;
  one.tag = Tag::Int;
  one.i = 1;
  return fill_common(ctx, "ones.out", args[0], &one, args[1]);
}

bool empty_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[2], Tag::Tensor, "out")) return false;
  if (!args[1]->is_none() && args[1]->tag != Tag::Int)
    return ctx.fail("empty.out: memory_format must be an int or None, got %s", tag_name(args[1]->tag));
  return resize_to_list(ctx, "empty.out", *args[2]->t, args[0]);
}

bool scalar_tensor_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[1], Tag::Tensor, "out")) return false;
  Tensor& out = *args[1]->t;
  if (!resize_output(ctx, out, nullptr, 0)) return false;
  return fill_scalar(ctx, "scalar_tensor.out", out, args[0]);
}

}  // namespace pte
