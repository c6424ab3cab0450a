// pte-run linalg: small helpers shared by the matrix, convolution, pooling and
// resize kernels (argument reading, accumulator types).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/util.h"

namespace pte::linalg {

// The type a kernel accumulates T in: float for f32/f16/bf16, double for f64,
// int64 for integers (torch's "opmath"/accumulate types on CPU).
template <class T>
struct AccOf {
  using type = int64_t;
};
template <>
struct AccOf<float> {
  using type = float;
};
template <>
struct AccOf<double> {
  using type = double;
};
template <>
struct AccOf<Half> {
  using type = float;
};
template <>
struct AccOf<BFloat16> {
  using type = float;
};
template <class T>
using Acc = typename AccOf<T>::type;

template <class T>
constexpr bool is_float_like() {
  return std::is_same_v<Acc<T>, float> || std::is_same_v<Acc<T>, double>;
}

// Reads an int list argument of 1..max_n items into out[0..max_n). When it has one
// item and `expand` is set, the item is repeated to max_n (torch's
// expand_param_if_needed); when it is empty, `dflt` (if not null) fills it.
// Fails the context with a message naming `what`.
bool read_int_list(KernelContext& ctx, const EValue* v, const char* what, int64_t* out, size_t max_n, bool expand,
                   const int64_t* dflt = nullptr);

// A tensor argument or null for None (fails if neither).
bool optional_tensor(KernelContext& ctx, const EValue* v, const char* what, const Tensor** out);

// The load-time step of the matmul kernels (KernelPrepareFn, ops/kernel.h): arguments
// `idx` (n of them, named `names`) are tensors of one dtype that run_matmul computes, and
// the first two have ranks rank_a (-1: >= 1) and rank_b; false after failing the context.
bool prepare_matmul(KernelContext& ctx, EValue** args, const int* idx, const char* const* names, int n, int rank_a,
                    int rank_b, const char* op);

// Strided element access by coordinates of a rank-4 (n, c, h, w) view of `t`,
// whatever its dim order (rank 3 tensors are (c, h, w) with n = 1).
struct View4 {
  int64_t n, c, h, w;           // sizes
  int64_t sn, sc, sh, sw;       // element strides
};
inline View4 view4(const Tensor& t) {
  View4 v{};
  if (t.dim == 4) {
    v = {t.sizes[0], t.sizes[1], t.sizes[2], t.sizes[3], t.strides[0], t.strides[1], t.strides[2], t.strides[3]};
  } else {  // rank 3
    v = {1, t.sizes[0], t.sizes[1], t.sizes[2], 0, t.strides[0], t.strides[1], t.strides[2]};
  }
  return v;
}

// Output size of a pooling window along one dim (torch pooling_output_shape).
inline int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace pte::linalg
