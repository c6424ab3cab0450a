// pte-run linalg: f32 depthwise 2-D convolution on NHWC tensors (one filter per channel,
// channel multiplier 1), as the XNNPACK delegate stores them: input [N, H, W, C], filter
// [KH, KW, C] (the blob's [1, KH, KW, C], read in place), output [N, OH, OW, C], the
// node's clamp fused. Vectorized over channels: each output pixel sums its in-image taps
// in registers, channel tile by channel tile (no im2col, no per-tap bounds checks).
//
// Variants (dwconv_nhwc_f32_<isa>, one output row range each) are tested against the
// scalar reference (ops/linalg/dwconv_nhwc_test.cpp); dwconv_nhwc_f32 picks one by
// ops/isa.h and splits output rows over the claim pool.
#pragma once
#include <cstdint>

#include "ops/linalg/window_nhwc.h"

namespace pte::linalg {

using DwconvNhwc = WindowNhwc;  // (window_nhwc.h)

// Output rows [r0, r1) of the flattened N x OH rows. bias may be null.
void dwconv_nhwc_f32_scalar(const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                            int64_t r0, int64_t r1);
#if defined(__x86_64__)
void dwconv_nhwc_f32_avx2_fma(const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                              int64_t r0, int64_t r1);
void dwconv_nhwc_f32_avx512f(const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                             int64_t r0, int64_t r1);
#endif
#if defined(__aarch64__) || defined(__arm__)
void dwconv_nhwc_f32_neon(const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                          int64_t r0, int64_t r1);
#endif

enum class DwconvIsa { Auto, Scalar };

// The whole output on the calling thread and up to threads - 1 claim-pool helpers.
void dwconv_nhwc_f32(int threads, const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                     DwconvIsa isa = DwconvIsa::Auto);

}  // namespace pte::linalg
