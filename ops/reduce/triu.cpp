// aten::triu.out(Tensor self, int diagonal=0, *, Tensor(a!) out)
// aten::tril.out(Tensor self, int diagonal=0, *, Tensor(a!) out)
//
// Over the last two dims (rows r, cols c) of a tensor with at least 2 dims: triu
// keeps the elements with c - r >= diagonal, tril those with c - r <= diagonal; the
// others become 0. Leading dims are batch dims. Any dtype; out has self's dtype.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// T: an unsigned integer of the element's size (the op only copies or zeroes).
template <class T>
void tri_typed(const Tensor& in, Tensor& out, int64_t diag, bool upper) {
  const T* x = in.ptr<T>();
  T* y = out.ptr<T>();
  DimIter batch;
  for (int d = 0; d < in.dim - 2; ++d) batch.push(in.sizes[d], in.strides[d], out.strides[d]);
  batch.simplify();
  const int64_t R = in.sizes[in.dim - 2], C = in.sizes[in.dim - 1];
  const int64_t rs_in = in.strides[in.dim - 2], cs_in = in.strides[in.dim - 1];
  const int64_t rs_out = out.strides[out.dim - 2], cs_out = out.strides[out.dim - 1];
  for_each(batch, 0, 0, [&](int64_t a, int64_t b) {
    for (int64_t r = 0; r < R; ++r) {
      const T* xr = x + a + r * rs_in;
      T* yr = y + b + r * rs_out;
      // kept columns: [r + diag, C) for triu, [0, r + diag] for tril
      const int64_t edge = r + diag;
      const int64_t k0 = upper ? (edge < 0 ? 0 : edge > C ? C : edge) : 0;
      const int64_t k1 = upper ? C : (edge + 1 < 0 ? 0 : edge + 1 > C ? C : edge + 1);
      for (int64_t c = 0; c < C; ++c) yr[c * cs_out] = c >= k0 && c < k1 ? xr[c * cs_in] : T(0);
    }
  });
}

template <bool Upper>
bool tri_common(KernelContext& ctx, EValue** args, const char* op) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Int, "diagonal") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "out"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[2]->t;
  if (in.dim < 2) return ctx.fail("%s: input must have at least 2 dims, got %d", op, in.dim);
  if (out.dtype != in.dtype)
    return ctx.fail("%s: out dtype %s must match input dtype %s", op, dtype_name(out.dtype), dtype_name(in.dtype));
  if (!resize_output_like(ctx, out, in)) return false;
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  switch (dtype_size(in.dtype)) {  // zero is all-zero bits in every dtype
    case 1: tri_typed<uint8_t>(in, out, args[1]->i, Upper); break;
    case 2: tri_typed<uint16_t>(in, out, args[1]->i, Upper); break;
    case 4: tri_typed<uint32_t>(in, out, args[1]->i, Upper); break;
    default: tri_typed<uint64_t>(in, out, args[1]->i, Upper); break;
  }
  return true;
}

}  // namespace

bool triu_out(KernelContext& ctx, EValue** args) { return tri_common<true>(ctx, args, "triu.out"); }
bool tril_out(KernelContext& ctx, EValue** args) { return tri_common<false>(ctx, args, "tril.out"); }

}  // namespace pte
