// aten::embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1,
//                     bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out)
//   out[..., :] = weight[indices[...], :]: out has indices' shape plus weight's row size.
//   padding_idx / scale_grad_by_freq / sparse only matter for gradients.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool embedding_out(KernelContext& ctx, EValue** args) {
  Tensor *w, *idx, *out;
  if (!arg_tensor(ctx, args[0], "weight", w) || !arg_tensor(ctx, args[1], "indices", idx) ||
      !arg_tensor(ctx, args[5], "out", out))
    return false;
  if (w->dim != 2) return ctx.fail("embedding: weight must be 2-d, got %d dims", w->dim);
  if (!is_index_dtype(idx->dtype)) return ctx.fail("embedding: indices must be int64 or int32, got %s", dtype_name(idx->dtype));
  if (idx->dim + 1 > kMaxDims) return ctx.fail("embedding: indices have too many dims");
  if (out->dtype != w->dtype)
    return ctx.fail("embedding: out dtype %s must match weight dtype %s", dtype_name(out->dtype), dtype_name(w->dtype));
  int64_t shape[kMaxDims];
  for (int d = 0; d < idx->dim; ++d) shape[d] = idx->sizes[d];
  const int64_t V = w->sizes[0], D = w->sizes[1];
  shape[idx->dim] = D;
  if (!resize_output(ctx, *out, shape, idx->dim + 1)) return false;
  const size_t es = dtype_size(w->dtype);
  const int64_t ws0 = w->strides[0], ws1 = w->strides[1], os1 = out->strides[idx->dim];
  const bool rows_contiguous = ws1 == 1 && os1 == 1;
  View rows = view_of(*out);  // out without its last dim, walked with the indices
  rows.dim = idx->dim;
  View wrow, orow;  // one row, for the strided case
  wrow.dim = orow.dim = 1;
  wrow.sizes[0] = orow.sizes[0] = D;
  wrow.strides[0] = ws1;
  orow.strides[0] = os1;
  int64_t bad = 0;
  auto* o = static_cast<uint8_t*>(out->data);
  const auto* src = static_cast<const uint8_t*>(w->data);
  bool ok = walk2(rows, view_of(*idx), [&](int64_t oo, int64_t oi, int64_t n, int64_t so, int64_t si) {
    for (int64_t k = 0; k < n; ++k) {
      int64_t i = read_index(*idx, oi + k * si);
      if (i < 0 || i >= V) {  // torch's embedding does not wrap negative indices
        bad = i;
        return false;
      }
      if (rows_contiguous) {
        std::memcpy(o + (oo + k * so) * es, src + i * ws0 * es, static_cast<size_t>(D) * es);
      } else {
        wrow.offset = i * ws0;
        orow.offset = oo + k * so;
        copy_view(ctx, *out, orow, *w, wrow);
      }
    }
    return true;
  });
  if (!ok) return ctx.fail("embedding: index %lld is out of range for %lld rows", static_cast<long long>(bad), static_cast<long long>(V));
  return true;
}

}  // namespace pte
