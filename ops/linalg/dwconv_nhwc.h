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

namespace pte::linalg {

struct DwconvNhwc {
  int64_t N = 0, H = 0, W = 0, C = 0;  // input (and output channels)
  int64_t OH = 0, OW = 0;              // output rows and columns (the caller's conv arithmetic)
  int64_t KH = 1, KW = 1;
  int64_t sh = 1, sw = 1, pad_top = 0, pad_left = 0, dh = 1, dw = 1;
  float out_min = -__builtin_inff(), out_max = __builtin_inff();
};

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

namespace detail {
// Taps of one window that fall inside the input: the first k with start + k * d >= 0, and
// one past the last k with start + k * d < size (k0 == k1 when none). Shared by the variants.
inline void dw_tap_range(int64_t start, int64_t d, int64_t k, int64_t size, int64_t* k0, int64_t* k1) {
  const int64_t first = start >= 0 ? 0 : (-start + d - 1) / d;
  *k0 = first < k ? first : k;
  const int64_t last = size - 1 - start;  // start + k * d <= last
  *k1 = last < 0 ? 0 : (last / d + 1 < k ? last / d + 1 : k);
  if (*k1 < *k0) *k1 = *k0;
}
}  // namespace detail

// The whole output on the calling thread and up to threads - 1 claim-pool helpers.
void dwconv_nhwc_f32(int threads, const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                     DwconvIsa isa = DwconvIsa::Auto);

}  // namespace pte::linalg
