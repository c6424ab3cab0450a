// pte-run linalg: f32 2-D max pooling on NHWC tensors (the XNNPACK delegate's
// XNNMaxPooling2d): input [N, H, W, C], output [N, OH, OW, C], taps in the padding left out,
// the node's clamp fused. Each output pixel takes the maximum over its in-image taps,
// channels vectorized (AVX-512F), output rows split over the claim pool.
//
// NaN: a tap's NaN is left out (the maximum starts at -inf and keeps the running value when
// the comparison fails), as the plain loops it replaced did; both variants agree bit for bit.
#pragma once
#include <cstdint>

#include "ops/linalg/window_nhwc.h"

namespace pte::linalg {

using MaxPoolNhwc = WindowNhwc;  // (window_nhwc.h)

// Output rows [r0, r1) of the flattened N x OH rows.
void maxpool_nhwc_f32_scalar(const MaxPoolNhwc& p, const float* x, float* y, int64_t r0, int64_t r1);
#if defined(__x86_64__)
void maxpool_nhwc_f32_avx512f(const MaxPoolNhwc& p, const float* x, float* y, int64_t r0, int64_t r1);
#endif

enum class MaxPoolIsa { Auto, Scalar };

// The whole output on the calling thread and up to threads - 1 claim-pool helpers.
void maxpool_nhwc_f32(int threads, const MaxPoolNhwc& p, const float* x, float* y, MaxPoolIsa isa = MaxPoolIsa::Auto);

}  // namespace pte::linalg
