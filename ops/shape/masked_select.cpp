// aten::masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out)
//   The elements of self (broadcast with mask) where mask is true, in row-major order, as
//   a 1-d tensor: its length depends on the data (out must be dynamic with room for it).
// aten::masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out)
//   out = self (broadcast with mask); the positions where mask is true take source's
//   elements one after another (row-major).
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

static bool mask_dtype(DType t) { return t == DType::Bool || t == DType::UInt8; }

// Broadcast shape of self and mask into shape/dim; fails with a message.
static bool mask_broadcast(KernelContext& ctx, const Tensor& self, const Tensor& mask, int64_t* shape, int32_t* dim,
                           const char* op) {
  if (!mask_dtype(mask.dtype)) return ctx.fail("%s: mask must be bool, got %s", op, dtype_name(mask.dtype));
  if (!broadcast_shape(self, mask, shape, dim)) {
    char b1[160], b2[160];
    return ctx.fail("%s: mask %s does not broadcast with self %s", op, shape_string(mask.sizes, mask.dim, b1, sizeof b1),
                    shape_string(self.sizes, self.dim, b2, sizeof b2));
  }
  return true;
}

bool masked_select_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *mask, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[1], "mask", mask) ||
      !arg_tensor(ctx, args[2], "out", out))
    return false;
  int64_t shape[kMaxDims];
  int32_t dim;
  if (!mask_broadcast(ctx, *in, *mask, shape, &dim, "masked_select")) return false;
  if (out->dtype != in->dtype)
    return ctx.fail("masked_select: out dtype %s must match self dtype %s", dtype_name(out->dtype), dtype_name(in->dtype));
  const View mv = broadcast_view(*mask, shape, dim), sv = broadcast_view(*in, shape, dim);
  const uint8_t* m = static_cast<const uint8_t*>(mask->data);
  int64_t nnz = 0;
  walk2(mv, mv, [&](int64_t om, int64_t, int64_t n, int64_t sm, int64_t) {
    for (int64_t k = 0; k < n; ++k) nnz += m[om + k * sm] != 0;
  });
  if (!resize_output(ctx, *out, &nnz, 1)) return false;
  int64_t w = 0;
  const int64_t ostride = out->strides[0];
  dispatch_size(dtype_size(in->dtype), [&](auto u) {
    using U = decltype(u);
    const U* s = static_cast<const U*>(in->data);
    U* o = static_cast<U*>(out->data);
    walk2(sv, mv, [&](int64_t os, int64_t om, int64_t n, int64_t ss, int64_t sm) {
      for (int64_t k = 0; k < n; ++k)
        if (m[om + k * sm]) o[(w++) * ostride] = s[os + k * ss];
    }, /*logical_order=*/true);
  });
  return true;
}

bool masked_scatter_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *mask, *src, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[1], "mask", mask) ||
      !arg_tensor(ctx, args[2], "source", src) || !arg_tensor(ctx, args[3], "out", out))
    return false;
  int64_t shape[kMaxDims];
  int32_t dim;
  if (!mask_broadcast(ctx, *in, *mask, shape, &dim, "masked_scatter")) return false;
  if (out->dtype != in->dtype || src->dtype != in->dtype)
    return ctx.fail("masked_scatter: self, source and out must have one dtype");
  if (!resize_output(ctx, *out, shape, dim)) return false;
  if (!copy_view(ctx, *out, view_of(*out), *in, broadcast_view(*in, shape, dim))) return false;
  const View mv = broadcast_view(*mask, shape, dim);
  const uint8_t* m = static_cast<const uint8_t*>(mask->data);
  const int64_t avail = src->numel();
  const bool src_contig = src->contiguous_order();
  int64_t r = 0;
  bool ok = true;
  dispatch_size(dtype_size(in->dtype), [&](auto u) {
    using U = decltype(u);
    const U* s = static_cast<const U*>(src->data);
    U* o = static_cast<U*>(out->data);
    ok = walk2(view_of(*out), mv, [&](int64_t oo, int64_t om, int64_t n, int64_t so, int64_t sm) {
      for (int64_t k = 0; k < n; ++k) {
        if (!m[om + k * sm]) continue;
        if (r >= avail) return false;
        o[oo + k * so] = s[src_contig ? r : strided_offset(*src, r)];
        ++r;
      }
      return true;
    }, /*logical_order=*/true);
  });
  if (!ok)
    return ctx.fail("masked_scatter: the mask has more true elements than source has elements (%lld)", static_cast<long long>(avail));
  return true;
}

}  // namespace pte
