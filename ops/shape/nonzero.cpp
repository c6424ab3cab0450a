// aten::nonzero.out(Tensor self, *, Tensor(a!) out)
//   out[k] = coordinates of the k-th non-zero element of self (row-major), shape
//   [count, self.dim], int64 (int32 accepted): the count depends on the data.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

template <class T>
static bool nonzero_value(T x) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return static_cast<float>(x) != 0.0f;
  else return x != T(0);
}

bool nonzero_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[1], "out", out)) return false;
  if (out->dtype != DType::Int64 && out->dtype != DType::Int32)
    return ctx.fail("nonzero: out must be int64 (or int32), got %s", dtype_name(out->dtype));
  const int64_t n = in->numel();
  int64_t count = 0;
  bool known = dispatch_dtype(in->dtype, [&](auto t) {
    using T = decltype(t);
    const T* p = static_cast<const T*>(in->data);
    const View v = view_of(*in);
    walk2(v, v, [&](int64_t o, int64_t, int64_t len, int64_t s, int64_t) {
      for (int64_t k = 0; k < len; ++k) count += nonzero_value(p[o + k * s]);
    });
  });
  if (!known) return ctx.fail("nonzero: unsupported dtype %s", dtype_name(in->dtype));
  const int64_t shape[2] = {count, in->dim};
  if (!resize_output(ctx, *out, shape, 2)) return false;
  if (count == 0 || n == 0) return true;
  const int64_t r0 = out->strides[0], r1 = out->strides[1];
  const bool i64 = out->dtype == DType::Int64;
  int64_t row = 0;
  dispatch_dtype(in->dtype, [&](auto t) {
    using T = decltype(t);
    const T* p = static_cast<const T*>(in->data);
    int64_t coord[kMaxDims] = {};
    int64_t off = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T x = p[off];
      if (nonzero_value(x)) {
        for (int d = 0; d < in->dim; ++d) {
          if (i64) static_cast<int64_t*>(out->data)[row * r0 + d * r1] = coord[d];
          else static_cast<int32_t*>(out->data)[row * r0 + d * r1] = static_cast<int32_t>(coord[d]);
        }
        ++row;
      }
      for (int d = in->dim - 1; d >= 0; --d) {
        off += in->strides[d];
        if (++coord[d] < in->sizes[d]) break;
        off -= in->strides[d] * in->sizes[d];
        coord[d] = 0;
      }
    }
  });
  return true;
}

}  // namespace pte
