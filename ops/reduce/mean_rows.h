// pte-run kernels in ops/reduce: the float32 mean of contiguous rows (RMSNorm's mean of
// squares), each row summed element by element in index order from +0 and divided by the
// count in float, as the official portable kernel does (programs that quantize
// activations afterwards need its bits; see mean.cpp).
//   mean_rows_f32_ref      the scalar reference
//   mean_rows_f32_avx512   16 rows at a time, one per lane (16 x 16 blocks transposed):
//                          the same additions in the same order; x86-64 with AVX-512F
//                          (callers check the CPU), other builds do not declare it
#pragma once
#include <cstdint>

namespace pte {

// out[r * out_stride] = (x[r * row_stride + 0] + ... + x[r * row_stride + len - 1]) / count
inline void mean_rows_f32_ref(const float* x, int64_t rows, int64_t row_stride, int64_t len, float* out,
                              int64_t out_stride, float count) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * row_stride;
    float acc = 0.0f;
    for (int64_t i = 0; i < len; ++i) acc += xr[i];
    out[r * out_stride] = acc / count;
  }
}

#if defined(__x86_64__)
void mean_rows_f32_avx512(const float* x, int64_t rows, int64_t row_stride, int64_t len, float* out,
                          int64_t out_stride, float count);
#endif

}  // namespace pte
