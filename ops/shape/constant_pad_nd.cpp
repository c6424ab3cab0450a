// aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
//   pad = [last_lo, last_hi, second_last_lo, second_last_hi, ...]; negative pads crop.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool constant_pad_nd_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  const int64_t* pad;
  size_t n;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "pad", pad, n) ||
      !arg_tensor(ctx, args[3], "out", out))
    return false;
  if (n % 2 != 0) return ctx.fail("constant_pad_nd: length of pad must be even, got %zu", n);
  if (static_cast<int64_t>(n / 2) > in->dim)
    return ctx.fail("constant_pad_nd: pad covers %zu dims but the input has %d", n / 2, in->dim);
  int64_t lo[kMaxDims] = {}, hi[kMaxDims] = {}, shape[kMaxDims];
  for (size_t k = 0; k < n / 2; ++k) {
    const int d = in->dim - 1 - static_cast<int>(k);
    lo[d] = pad[2 * k];
    hi[d] = pad[2 * k + 1];
  }
  for (int d = 0; d < in->dim; ++d) {
    shape[d] = in->sizes[d] + lo[d] + hi[d];
    if (shape[d] < 0)
      return ctx.fail("constant_pad_nd: resulting size %lld of dim %d is negative (input %lld, pad %lld, %lld)",
                      static_cast<long long>(shape[d]), d, static_cast<long long>(in->sizes[d]),
                      static_cast<long long>(lo[d]), static_cast<long long>(hi[d]));
  }
  uint8_t elem[8];
  if (!scalar_to_element(ctx, args[2], out->dtype, elem, "value")) return false;
  if (!resize_output(ctx, *out, shape, in->dim)) return false;
  // Fill only the border: for each dim, the slabs before and after the copied range
  // (restricted to the copied range in the dims already handled).
  View inner = view_of(*out);  // the part of out that receives self, narrowed dim by dim
  View sv = view_of(*in);
  for (int d = 0; d < in->dim; ++d) {
    const int64_t src0 = lo[d] < 0 ? -lo[d] : 0, dst0 = lo[d] > 0 ? lo[d] : 0;
    int64_t len = in->sizes[d] - src0 - (hi[d] < 0 ? -hi[d] : 0);
    if (len < 0) len = 0;
    View before = inner, after = inner;
    before.sizes[d] = dst0;
    after.offset += (dst0 + len) * out->strides[d];
    after.sizes[d] = shape[d] - dst0 - len;
    fill_view(*out, before, elem);
    fill_view(*out, after, elem);
    inner.offset += dst0 * out->strides[d];
    inner.sizes[d] = len;
    sv.offset += src0 * in->strides[d];
    sv.sizes[d] = len;
  }
  return copy_view(ctx, *out, inner, *in, sv);
}

}  // namespace pte
