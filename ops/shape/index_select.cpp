// aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
//   out = self with dim `dim` replaced by the slices self[..., index[k], ...];
//   index is 1-d (or 0-d), int64 or int32, each in [0, size) (torch does not wrap here).
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool index_select_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *index, *out;
  int64_t dim;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "index", index) ||
      !arg_tensor(ctx, args[3], "out", out) || !arg_dim(ctx, args[1], "dim", in->dim, dim))
    return false;
  if (!is_index_dtype(index->dtype))
    return ctx.fail("index_select: index must be int64 or int32, got %s", dtype_name(index->dtype));
  if (index->dim > 1) return ctx.fail("index_select: index must be 0-d or 1-d, got %d dims", index->dim);
  const int64_t n = index->numel();
  const int64_t istride = index->dim ? index->strides[0] : 0;
  if (in->dim == 0) {  // a 0-d self: index must be a single 0 (or -1)
    if (n != 1) return ctx.fail("index_select: a 0-d self takes exactly one index, got %lld", static_cast<long long>(n));
    const int64_t i = read_index(*index, 0);
    if (i != 0) return fail_index(ctx, "index_select", i, 0, 1);
    return resize_output(ctx, *out, in->sizes, 0) && copy_tensor(ctx, *out, *in);
  }
  int64_t shape[kMaxDims];
  for (int d = 0; d < in->dim; ++d) shape[d] = d == dim ? n : in->sizes[d];
  if (!resize_output(ctx, *out, shape, in->dim)) return false;
  const int64_t size = in->sizes[dim];
  View sv = view_of(*in), dv = view_of(*out);
  sv.sizes[dim] = dv.sizes[dim] = 1;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = read_index(*index, k * istride);
    if (i < 0 || i >= size) return fail_index(ctx, "index_select", i, dim, size);  // torch does not wrap here
    sv.offset = i * in->strides[dim];
    dv.offset = k * out->strides[dim];
    if (!copy_view(ctx, *out, dv, *in, sv)) return false;
  }
  return true;
}

}  // namespace pte
