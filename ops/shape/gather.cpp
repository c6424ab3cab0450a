// aten::gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out)
//   out[i][j][k] = self[index[i][j][k]][j][k] (dim 0; likewise for other dims).
//   out has index's shape; index.size(d) <= self.size(d) for d != dim; int64 (or int32) index.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

// Shared by gather and the scatter family: checks that index (and src) fit self along the
// other dims; 0-d tensors count as 1-d.
bool gather_scatter_check(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                          const char* op);

static int64_t size_or_1(const Tensor& t, int d) { return t.dim == 0 ? 1 : t.sizes[d]; }

bool gather_scatter_check(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                          const char* op) {
  if (!is_index_dtype(index.dtype)) return ctx.fail("%s: index must be int64 or int32, got %s", op, dtype_name(index.dtype));
  const int sd = self.dim ? self.dim : 1, id = index.dim ? index.dim : 1;
  if (index.numel() == 0) return true;
  if (sd != id) return ctx.fail("%s: index has %d dims but self has %d", op, index.dim, self.dim);
  for (int d = 0; d < id; ++d) {
    if (d != dim && size_or_1(index, d) > size_or_1(self, d))
      return ctx.fail("%s: size of index (%lld) exceeds size of self (%lld) at dim %d", op,
                      static_cast<long long>(size_or_1(index, d)), static_cast<long long>(size_or_1(self, d)), d);
    if (src && ((src->dim ? src->dim : 1) != id || size_or_1(index, d) > size_or_1(*src, d)))
      return ctx.fail("%s: index must fit within src at every dim (dim %d)", op, d);
  }
  return true;
}

bool gather_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *index, *out;
  int64_t dim;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "index", index) ||
      !arg_tensor(ctx, args[4], "out", out) || !arg_dim(ctx, args[1], "dim", in->dim, dim))
    return false;
  if (!gather_scatter_check(ctx, *in, dim, *index, nullptr, "gather")) return false;
  if (out->dtype != in->dtype)
    return ctx.fail("gather: out dtype %s must match self dtype %s", dtype_name(out->dtype), dtype_name(in->dtype));
  if (!resize_output(ctx, *out, index->sizes, index->dim)) return false;
  if (index->numel() == 0) return true;
  const int64_t limit = in->dim ? in->sizes[dim] : 1, dstride = in->dim ? in->strides[dim] : 0;
  View sv = view_of(*index);  // self over index's shape, without the gathered dim
  for (int d = 0; d < sv.dim; ++d) sv.strides[d] = d == dim ? 0 : in->strides[d];
  int64_t bad = 0;
  bool ok = true;
  dispatch_size(dtype_size(in->dtype), [&](auto u) {
    using U = decltype(u);
    U* o = static_cast<U*>(out->data);
    const U* s = static_cast<const U*>(in->data);
    ok = walk3(view_of(*out), view_of(*index), sv, [&](int64_t oo, int64_t oi, int64_t os, int64_t n, int64_t so, int64_t si, int64_t ss) {
      for (int64_t k = 0; k < n; ++k) {
        int64_t i = read_index(*index, oi + k * si);
        if (i < 0 || i >= limit) {  // torch does not wrap negative indices here
          bad = i;
          return false;
        }
        o[oo + k * so] = s[os + k * ss + i * dstride];
      }
      return true;
    });
  });
  if (!ok) return fail_index(ctx, "gather", bad, dim, limit);
  return true;
}

}  // namespace pte
