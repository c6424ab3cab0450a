// aten::nonzero.out(Tensor self, *, Tensor(a!) out)
//   out[k] = coordinates of the k-th non-zero element of self (row-major), shape
//   [count, self.dim], int64 (int32 accepted): the count depends on the data.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

// x != 0 on the element's bits: any bit but the sign for floating dtypes (+0 and -0
// are zero, NaN is not), any bit for integers and bool. U: unsigned of the element size.
template <class U>
void nonzero_run(const Tensor& in, Tensor& out, U mask, int64_t* count_out, bool write) {
  const U* p = static_cast<const U*>(in.data);
  const int64_t n = in.numel();
  if (!write) {
    int64_t count = 0;
    const View v = view_of(in);
    walk2(v, v, [&](int64_t o, int64_t, int64_t len, int64_t s, int64_t) {
      for (int64_t k = 0; k < len; ++k) count += (p[o + k * s] & mask) != 0;
    });
    *count_out = count;
    return;
  }
  const int64_t r0 = out.strides[0], r1 = out.strides[1];
  const bool i64 = out.dtype == DType::Int64;
  int64_t row = 0;
  int64_t coord[kMaxDims] = {};
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    if ((p[off] & mask) != 0) {
      for (int d = 0; d < in.dim; ++d) {
        if (i64) static_cast<int64_t*>(out.data)[row * r0 + d * r1] = coord[d];
        else static_cast<int32_t*>(out.data)[row * r0 + d * r1] = static_cast<int32_t>(coord[d]);
      }
      ++row;
    }
    for (int d = in.dim - 1; d >= 0; --d) {
      off += in.strides[d];
      if (++coord[d] < in.sizes[d]) break;
      off -= in.strides[d] * in.sizes[d];
      coord[d] = 0;
    }
  }
}

bool nonzero_pass(const Tensor& in, Tensor& out, int64_t* count, bool write) {
  const bool fl = in.dtype == DType::Float || in.dtype == DType::Double || in.dtype == DType::Half ||
                  in.dtype == DType::BFloat16;
  switch (dtype_size(in.dtype)) {
    case 1: nonzero_run<uint8_t>(in, out, 0xffu, count, write); return true;
    case 2: nonzero_run<uint16_t>(in, out, fl ? 0x7fffu : 0xffffu, count, write); return true;
    case 4: nonzero_run<uint32_t>(in, out, fl ? 0x7fffffffu : 0xffffffffu, count, write); return true;
    case 8: nonzero_run<uint64_t>(in, out, fl ? 0x7fffffffffffffffull : ~0ull, count, write); return true;
    default: return false;
  }
}

bool nonzero_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[1], "out", out)) return false;
  if (out->dtype != DType::Int64 && out->dtype != DType::Int32)
    return ctx.fail("nonzero: out must be int64 (or int32), got %s", dtype_name(out->dtype));
  const int64_t n = in->numel();
  int64_t count = 0;
  if (!dispatch_dtype(in->dtype, [](auto) {}) || !nonzero_pass(*in, *out, &count, false))
    return ctx.fail("nonzero: unsupported dtype %s", dtype_name(in->dtype));
  const int64_t shape[2] = {count, in->dim};
  if (!resize_output(ctx, *out, shape, 2)) return false;
  if (count == 0 || n == 0) return true;
  nonzero_pass(*in, *out, &count, true);
  return true;
}

}  // namespace pte
