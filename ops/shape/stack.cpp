// aten::stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
//   Stacks same-shaped tensors along a new dim (in [-rank-1, rank]); inputs are
//   converted to out's dtype.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool stack_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  if (!expect_tag(ctx, args[0], Tag::TensorList, "tensors") || !arg_tensor(ctx, args[2], "out", out)) return false;
  const size_t n = args[0]->tlist.size;
  EValue* const* items = args[0]->tlist.items;
  if (n == 0) return ctx.fail("stack: expects a non-empty list of tensors");
  for (size_t k = 0; k < n; ++k)
    if (!items[k] || items[k]->tag != Tag::Tensor) return ctx.fail("stack: list item %zu is not a tensor", k);
  const Tensor& ref = *items[0]->t;
  if (ref.dim + 1 > kMaxDims) return ctx.fail("stack: result would have more than %d dims", kMaxDims);
  int64_t dim;
  if (!arg_dim(ctx, args[1], "dim", ref.dim + 1, dim)) return false;
  for (size_t k = 1; k < n; ++k) {
    const Tensor& t = *items[k]->t;
    bool same = t.dim == ref.dim;
    for (int d = 0; same && d < t.dim; ++d) same = t.sizes[d] == ref.sizes[d];
    if (!same) {
      char b1[160], b2[160];
      return ctx.fail("stack: expects each tensor to be equal size, but got %s at entry 0 and %s at entry %zu",
                      shape_string(ref.sizes, ref.dim, b1, sizeof b1), shape_string(t.sizes, t.dim, b2, sizeof b2), k);
    }
  }
  int64_t shape[kMaxDims];
  for (int d = 0, s = 0; d <= ref.dim; ++d) shape[d] = d == dim ? static_cast<int64_t>(n) : ref.sizes[s++];
  if (!resize_output(ctx, *out, shape, ref.dim + 1)) return false;
  // Destination window for entry k: out with `dim` removed, offset k * stride(dim).
  View dv;
  dv.dim = ref.dim;
  for (int d = 0, s = 0; d <= ref.dim; ++d) {
    if (d == dim) continue;
    dv.sizes[s] = out->sizes[d];
    dv.strides[s] = out->strides[d];
    ++s;
  }
  for (size_t k = 0; k < n; ++k) {
    const Tensor& t = *items[k]->t;
    dv.offset = static_cast<int64_t>(k) * out->strides[dim];
    if (!copy_view(ctx, *out, dv, t, view_of(t))) return false;
  }
  return true;
}

}  // namespace pte
