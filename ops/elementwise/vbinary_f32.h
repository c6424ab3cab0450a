// pte-run: f32 add / multiply of one row (XNNPACK's f32-vadd / f32-vmul), for the XNNPACK
// delegate's binary nodes: y[j] = a[j * ia] op b[j * ib], j < n. The scalar reference and
// the ISA variants give the same bits (one rounding per element either way).
#pragma once
#include <cstdint>

namespace pte::ew {

using VRowF32 = void (*)(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n);

void vadd_row_f32_scalar(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n);
void vmul_row_f32_scalar(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n);
#if defined(__x86_64__)
void vadd_row_f32_avx512(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n);
void vmul_row_f32_avx512(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n);
#endif
#if defined(__aarch64__)
void vadd_row_f32_neon(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n);
void vmul_row_f32_neon(float* y, const float* a, int64_t ia, const float* b, int64_t ib, int64_t n);
#endif

// The vector form for this CPU (multiply or add), or null where there is none (then the
// caller's own loop runs).
VRowF32 vaddmul_row_f32_simd(bool mul);

}  // namespace pte::ew
