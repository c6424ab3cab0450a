// fp32 -> qd8: per row, XNNPACK's asymmetric int8 parameters (the range always includes 0;
// multiplier q = 255 / (max - min), the zero point rounded from the nearer end),
// y = clamp(nearbyint(x * q) + zero_point, -128, 127), and *scale = 1 / q (the row's
// dequantization scale), exactly as the official runtime computes them.
#pragma once
#include <cstdint>

namespace pte::xnn {

void quantize_qd8_row_scalar(const float* x, int64_t k, int8_t* y, float* scale, int32_t* zp);
void quantize_qd8_row_avx512(const float* x, int64_t k, int8_t* y, float* scale, int32_t* zp);
#if defined(__aarch64__)
void quantize_qd8_row_neon(const float* x, int64_t k, int8_t* y, float* scale, int32_t* zp);
#endif
// rows of k: the AVX-512 (x86-64) or NEON (aarch64) variant where the CPU has it
void quantize_qd8_rows(const float* x, int64_t rows, int64_t k, int8_t* y, float* scale, int32_t* zp);

}  // namespace pte::xnn
