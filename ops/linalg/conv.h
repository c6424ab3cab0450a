// pte-run linalg: convolution internals shared by convolution.out and its tests.
// 1-D and 2-D convolutions are run as 3-D ones with leading spatial sizes of 1, so
// one geometry and one set of loops covers every rank. All tensors are addressed
// through their element strides (any dim order, e.g. channels-last).
#pragma once
#include <cstdint>

#include "ops/kernel.h"

namespace pte::linalg {

struct ConvGeom {
  bool transposed = false;
  int64_t N = 0, Cin = 0, Cout = 0, G = 1, icg = 0, ocg = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};
  // element strides: x (n, c, d, h, w); w (dim0, dim1, kd, kh, kw); y (n, c, d, h, w)
  int64_t xs[5] = {}, ws[5] = {}, ys[5] = {};
  int64_t bias_stride = 0;
  // weight dims 1.. form one dense block (dim 0 outermost): a row per dim-0 index
  bool weight_rows_dense = false;
};

// Direct loops (the reference), accumulating in Acc<T>; threaded over (n, out channel).
// bias may be null.
template <class T>
void conv_direct(pthreadpool* pool, const ConvGeom& g, const T* x, const T* w, const T* bias, T* y);

// f32 depthwise (non-transposed, one input channel per group): direct row sweeps.
void conv_depthwise_f32(pthreadpool* pool, const ConvGeom& g, const float* x, const float* w, const float* bias, float* y);

// f32 via im2col (or no copy for 1x1 convolutions) + the blocked GEMM, or
// GEMM + col2im for transposed convolutions. Uses ctx.scratch() for the column
// buffer, split into chunks of output positions to fit. False when the layout does
// not allow it or the scratch arena cannot hold even a small chunk (the caller
// then runs conv_direct).
bool conv_f32_gemm(KernelContext& ctx, const ConvGeom& g, const float* x, const float* w, const float* bias, float* y);

}  // namespace pte::linalg
