// pte-run kernels: an in-register transpose of 16 x 16 floats (AVX-512F), shared by the
// kernels that turn rows into lanes (attention's key slabs, row means). x86-64 only;
// callers check the CPU (isa.h) before calling.
#pragma once
#if defined(__x86_64__)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace pte {

// r[i] = column i of the rows r[0..15] (unpack, then two 128-bit shuffles).
__attribute__((target("avx512f"))) inline void transpose16_avx512(__m512 r[16]) {
  __m512 t[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 2) t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]), t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44), r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44), r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
#pragma GCC unroll 2
  for (int h = 0; h < 16; h += 8)
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
      t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + 4 + i], 0x88), t[h + 4 + i] = _mm512_shuffle_f32x4(r[h + i], r[h + 4 + i], 0xDD);
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) r[i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0x88), r[8 + i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0xDD);
}

}  // namespace pte

#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif  // defined(__x86_64__)
