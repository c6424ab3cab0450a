// aten::roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out)
//   out[(i + shift) mod n] = self[i] along each dim; with no dims the tensor is rolled
//   as if flattened (row-major).
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

// Flattened roll: element i of self (row-major) goes to (i + shift) mod numel.
static bool roll_flat(KernelContext& ctx, const Tensor& in, Tensor& out, int64_t shift) {
  const int64_t n = in.numel();
  if (n == 0) return true;
  shift = ((shift % n) + n) % n;
  if (in.contiguous_order() && out.contiguous_order()) {  // two block copies
    int64_t a = n - shift;
    View s1 = contiguous_view(&a, 1, 0), d1 = contiguous_view(&a, 1, shift);
    View s2 = contiguous_view(&shift, 1, a), d2 = contiguous_view(&shift, 1, 0);
    return copy_view(ctx, out, d1, in, s1) && copy_view(ctx, out, d2, in, s2);
  }
  if (in.dtype != out.dtype) return ctx.fail("roll: a non-contiguous flattened roll needs one dtype");
  const size_t es = dtype_size(in.dtype);
  for (int64_t i = 0; i < n; ++i) {
    int64_t j = i + shift;
    if (j >= n) j -= n;
    std::memcpy(static_cast<uint8_t*>(out.data) + strided_offset(out, j) * es,
                static_cast<const uint8_t*>(in.data) + strided_offset(in, i) * es, es);
  }
  return true;
}

bool roll_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  const int64_t *shifts, *dims;
  size_t ns, nd;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "shifts", shifts, ns) ||
      !arg_int_list(ctx, args[2], "dims", dims, nd) || !arg_tensor(ctx, args[3], "out", out))
    return false;
  if (!resize_output_like(ctx, *out, *in)) return false;
  if (nd == 0) {
    if (ns != 1) return ctx.fail("roll: shifts must have one entry when dims is empty, got %zu", ns);
    return roll_flat(ctx, *in, *out, shifts[0]);
  }
  if (ns != nd) return ctx.fail("roll: shifts and dimensions must align (%zu shifts, %zu dims)", ns, nd);
  int64_t shift[kMaxDims] = {};  // net shift per dim, in [0, size)
  for (size_t k = 0; k < nd; ++k) {
    int64_t d = dims[k];
    if (!normalize_dim(d, in->dim))
      return ctx.fail("roll: dim %lld out of range for a %d-d tensor", static_cast<long long>(dims[k]), in->dim);
    if (in->dim == 0) continue;
    const int64_t size = in->sizes[d];
    if (size == 0) continue;
    shift[d] = (shift[d] + ((shifts[k] % size) + size) % size) % size;
  }
  int rolled[kMaxDims], nr = 0;
  for (int d = 0; d < in->dim; ++d)
    if (shift[d] != 0) rolled[nr++] = d;
  // Each rolled dim splits into two blocks: [0, n-s) -> [s, n) and [n-s, n) -> [0, s).
  for (int mask = 0; mask < (1 << nr); ++mask) {
    View sv = view_of(*in), dv = view_of(*out);
    for (int r = 0; r < nr; ++r) {
      const int d = rolled[r];
      const int64_t n = in->sizes[d], s = shift[d];
      if (mask & (1 << r)) {  // the tail wraps to the front
        sv.offset += (n - s) * in->strides[d];
        sv.sizes[d] = dv.sizes[d] = s;
      } else {
        dv.offset += s * out->strides[d];
        sv.sizes[d] = dv.sizes[d] = n - s;
      }
    }
    if (!copy_view(ctx, *out, dv, *in, sv)) return false;
  }
  return true;
}

}  // namespace pte
