// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
//   Concatenates along dim. Like torch, 1-d empty tensors (shape [0]) are skipped
//   whatever the others' rank; inputs may have other dtypes than out (converted).
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

static bool skipped(const Tensor& t) { return t.dim == 1 && t.sizes[0] == 0; }

bool cat_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  if (!expect_tag(ctx, args[0], Tag::TensorList, "tensors") || !arg_tensor(ctx, args[2], "out", out)) return false;
  const size_t n = args[0]->tlist.size;
  EValue* const* items = args[0]->tlist.items;
  if (n == 0) return ctx.fail("cat: expected a non-empty list of tensors");
  const Tensor* ref = nullptr;  // first tensor that is not skipped
  for (size_t k = 0; k < n; ++k) {
    if (!items[k] || items[k]->tag != Tag::Tensor) return ctx.fail("cat: list item %zu is not a tensor", k);
    if (!ref && !skipped(*items[k]->t)) ref = items[k]->t;
  }
  if (!ref) {  // everything empty: torch returns an empty 1-d tensor
    int64_t zero = 0;
    return resize_output(ctx, *out, &zero, 1);
  }
  if (ref->dim == 0) return ctx.fail("cat: zero-dimensional tensor cannot be concatenated");
  int64_t dim;
  if (!arg_dim(ctx, args[1], "dim", ref->dim, dim)) return false;
  int64_t shape[kMaxDims];
  for (int d = 0; d < ref->dim; ++d) shape[d] = ref->sizes[d];
  shape[dim] = 0;
  for (size_t k = 0; k < n; ++k) {
    const Tensor& t = *items[k]->t;
    if (skipped(t)) continue;
    if (t.dim != ref->dim) return ctx.fail("cat: tensor %zu has %d dims, expected %d", k, t.dim, ref->dim);
    for (int d = 0; d < t.dim; ++d)
      if (d != dim && t.sizes[d] != ref->sizes[d])
        return ctx.fail("cat: sizes must match except in dimension %lld; tensor %zu has size %lld at dim %d, expected %lld",
                        static_cast<long long>(dim), k, static_cast<long long>(t.sizes[d]), d,
                        static_cast<long long>(ref->sizes[d]));
    shape[dim] += t.sizes[dim];
  }
  if (!resize_output(ctx, *out, shape, ref->dim)) return false;
  View dv = view_of(*out);
  for (size_t k = 0; k < n; ++k) {
    const Tensor& t = *items[k]->t;
    if (skipped(t) || t.sizes[dim] == 0) continue;
    dv.sizes[dim] = t.sizes[dim];
    if (!copy_view(ctx, *out, dv, t, view_of(t))) return false;
    dv.offset += t.sizes[dim] * out->strides[dim];
  }
  return true;
}

}  // namespace pte
