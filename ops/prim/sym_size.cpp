// aten::sym_size.int(Tensor self, int dim) -> SymInt
// aten::sym_numel(Tensor self) -> SymInt
// aten::_local_scalar_dense(Tensor self) -> Scalar
//
// Symbolic sizes at run time: read a tensor's (current, possibly resized) shape or
// its first element, and write the result EValue into the return slot (the last arg).
#include "ops/util.h"

namespace pte {

// args: self, dim, return
bool sym_size_int(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Int, "dim")) return false;
  const Tensor& t = *args[0]->t;
  int64_t d = args[1]->i;
  if (t.dim == 0 || d < -t.dim || d >= t.dim)
    return ctx.fail("dim %lld is out of range for a tensor of rank %d", static_cast<long long>(args[1]->i), t.dim);
  if (d < 0) d += t.dim;
  args[2]->tag = Tag::Int;
  args[2]->i = t.sizes[d];
  return true;
}

// args: self, return
bool sym_numel(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self")) return false;
  args[1]->tag = Tag::Int;
  args[1]->i = args[0]->t->numel();
  return true;
}

// args: self, return
bool local_scalar_dense(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self")) return false;
  const Tensor& t = *args[0]->t;
  if (t.numel() < 1) return ctx.fail("expected a tensor with at least one element, got %s with none", dtype_name(t.dtype));
  if (!t.data) return ctx.fail("the tensor has no data");
  EValue& out = *args[1];
  switch (t.dtype) {
    PTE_FLOAT_CASES(out.tag = Tag::Double; out.d = convert<double>(t.ptr<T>()[0]))
    PTE_INT_CASES(out.tag = Tag::Int; out.i = static_cast<int64_t>(t.ptr<T>()[0]))
    PTE_BOOL_CASES(out.tag = Tag::Bool; static_assert(sizeof(T) == 1); out.b = t.ptr<uint8_t>()[0] != 0)
    default: return ctx.fail("unsupported dtype %s", dtype_name(t.dtype));
  }
  return true;
}

}  // namespace pte
