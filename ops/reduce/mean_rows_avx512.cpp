// pte-run kernels in ops/reduce: mean_rows_f32_avx512 (see mean_rows.h).
#include "ops/reduce/mean_rows.h"

#if defined(__x86_64__)
#include "ops/transpose16_avx512.h"

namespace pte {

__attribute__((target("avx512f"))) void mean_rows_f32_avx512(const float* x, int64_t rows, int64_t row_stride, int64_t len,
                                                            float* out, int64_t out_stride, float count) {
  int64_t r0 = 0;
  for (; r0 + 16 <= rows; r0 += 16) {
    const float* base = x + r0 * row_stride;
    __m512 acc = _mm512_setzero_ps();  // lane l: row r0 + l, in index order
    for (int64_t i0 = 0; i0 < len; i0 += 16) {
      const int64_t n = len - i0 < 16 ? len - i0 : 16;
      const __mmask16 m = static_cast<__mmask16>((1u << n) - 1);
      __m512 v[16];
#pragma GCC unroll 16
      for (int l = 0; l < 16; ++l) v[l] = _mm512_maskz_loadu_ps(m, base + l * row_stride + i0);
      transpose16_avx512(v);
      for (int64_t i = 0; i < n; ++i) acc = _mm512_add_ps(acc, v[i]);
    }
    acc = _mm512_div_ps(acc, _mm512_set1_ps(count));
    if (out_stride == 1) {
      _mm512_storeu_ps(out + r0, acc);
    } else {
      alignas(64) float t[16];
      _mm512_store_ps(t, acc);
      for (int l = 0; l < 16; ++l) out[(r0 + l) * out_stride] = t[l];
    }
  }
  mean_rows_f32_ref(x + r0 * row_stride, rows - r0, row_stride, len, out + r0 * out_stride, out_stride, count);
}

}  // namespace pte
#endif  // defined(__x86_64__)
