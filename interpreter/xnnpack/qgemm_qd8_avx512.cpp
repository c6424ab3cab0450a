// qd8 GEMM, AVX-512 VNNI (see qgemm_qd8.h): 16 columns x up to 4 rows per tile.
//
// Register j (0..3) holds, in its 128-bit lane l, 16 weight bytes of column n + 4l + j
// (one 16-byte chunk: 32 k of U4, 16 k of I8), read in place from four filter rows.
// vpdpbusd multiplies the unsigned activation bytes (x + 128, broadcast per lane) by the
// signed weights and sums each 4 products into a dword; after a block the four registers
// reduce to one dword per column (in natural column order), the exact int32 block dot:
//   sum (x + 128) w - (128 + x_zp) wsum  ==  sum (x - x_zp) w.
// The float epilogue is qd8_block_step / qd8_output (lane-wise, never fused).
// GCC 12: -Wpsabi notes on the epilogue templates (internal linkage) and false
// -Wmaybe-uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "interpreter/xnnpack/qgemm_qd8.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vnni")
#pragma GCC optimize("fp-contract=off")

namespace pte::xnn {

namespace {

struct Ops512 {
  using F = __m512;
  using I = __m512i;
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F to_float(I v) { return _mm512_cvtepi32_ps(v); }
};

inline __m128i ld16(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

inline __m512i load4(const uint8_t* a, const uint8_t* b, const uint8_t* c, const uint8_t* d) {
  __m512i v = _mm512_castsi128_si512(ld16(a));
  v = _mm512_inserti32x4(v, ld16(b), 1);
  v = _mm512_inserti32x4(v, ld16(c), 2);
  return _mm512_inserti32x4(v, ld16(d), 3);
}

// per 128-bit lane: [sum of a's 4 dwords, b's, c's, d's]
inline __m512i reduce4(__m512i a, __m512i b, __m512i c, __m512i d) {
  const __m512i ab = _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
  const __m512i cd = _mm512_add_epi32(_mm512_unpacklo_epi32(c, d), _mm512_unpackhi_epi32(c, d));
  return _mm512_add_epi32(_mm512_unpacklo_epi64(ab, cd), _mm512_unpackhi_epi64(ab, cd));
}

// Per-block metadata: fp32 scales + int32 weight sums, or (blockwise) bf16 + int16.
inline __m512 load_scales(const QGemm& q, int64_t i) {
  if (q.w_scale) return _mm512_loadu_ps(q.w_scale + i);
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.w_scale_bf16 + i));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
inline __m512i load_wsum(const QGemm& q, int64_t i) {
  if (q.wsum) return _mm512_loadu_si512(q.wsum + i);
  return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.wsum16 + i)));
}

template <int R, bool W4>
void tile(const QGemm& q, const uint8_t* xp, int64_t m, int64_t n, bool prefetch) {
  const int64_t K = q.K, N = q.N, nb = K / q.block, rb = q.w_row_bytes, s4 = 4 * rb;
  const int64_t cpb = q.block / (W4 ? 32 : 16);  // 16-byte weight chunks per block
  const uint8_t* w0 = q.w + n * rb;              // column n; register j lane l: + (j + 4 l) rb
  const uint8_t* x0 = xp + m * K;                // row m; row m + r: + r K
  __m512 vacc[R];
  #pragma GCC unroll 4
  for (int r = 0; r < R; ++r) vacc[r] = _mm512_setzero_ps();
  const __m512i m4 = _mm512_set1_epi8(0x0F), eight = _mm512_set1_epi8(8);
  // The 16 rows of a group are contiguous: prefetch the next group's over this one's blocks.
  const uint8_t* pf = w0 + 16 * rb;
  const int64_t pf_step = prefetch ? ((16 * rb + nb - 1) / nb + 63) / 64 * 64 : 0;
  int64_t c = 0;
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t o = 0; o < pf_step; o += 64) _mm_prefetch(reinterpret_cast<const char*>(pf + o), _MM_HINT_T0);
    pf += pf_step;
    __m512i acc[R][4];
    #pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      #pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_setzero_si512();
    for (const int64_t ce = c + cpb; c < ce; ++c) {
      const uint8_t* wc = w0 + c * 16;
      const uint8_t* xc = x0 + c * (W4 ? 32 : 16);
      #pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const uint8_t* p = wc + j * rb;
        const __m512i w = load4(p, p + s4, p + 2 * s4, p + 3 * s4);
        if constexpr (W4) {
          const __m512i lo = _mm512_sub_epi8(_mm512_and_si512(w, m4), eight);
          const __m512i hi = _mm512_sub_epi8(_mm512_and_si512(_mm512_srli_epi16(w, 4), m4), eight);
          #pragma GCC unroll 4
          for (int r = 0; r < R; ++r) {
            acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], _mm512_broadcast_i32x4(ld16(xc + r * K)), lo);
            acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], _mm512_broadcast_i32x4(ld16(xc + r * K + 16)), hi);
          }
        } else {
          #pragma GCC unroll 4
          for (int r = 0; r < R; ++r) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], _mm512_broadcast_i32x4(ld16(xc + r * K)), w);
        }
      }
    }
    const __m512i ws = load_wsum(q, b * N + n);
    const __m512 sc = load_scales(q, b * N + n);
    #pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      __m512i dot = reduce4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
      dot = _mm512_sub_epi32(dot, _mm512_mullo_epi32(_mm512_set1_epi32(128 + q.x_zp[m + r]), ws));
      vacc[r] = qd8_block_step<Ops512>(vacc[r], dot, sc);
    }
  }
  const __m512 bias = q.bias ? _mm512_loadu_ps(q.bias + n) : _mm512_setzero_ps();
  #pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
    _mm512_storeu_ps(q.y + (m + r) * N + n, qd8_output<Ops512>(vacc[r], _mm512_set1_ps(q.x_scale[m + r]), bias));
}

// Rows in tiles of 3 (4-bit: 12 accumulators, 6 activation vectors and the weights fit
// the 32 registers) or 4 (8-bit).
template <bool W4>
void run(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  constexpr int RT = W4 ? 3 : 4;
  for (int64_t n = n0; n < n1; n += 16) {
    int64_t m = m0;
    for (; m + RT <= m1; m += RT) tile<RT, W4>(q, xp, m, n, m == m0);
    switch (m1 - m) {
      case 3: tile<3, W4>(q, xp, m, n, m == m0); break;
      case 2: tile<2, W4>(q, xp, m, n, m == m0); break;
      case 1: tile<1, W4>(q, xp, m, n, m == m0); break;
      default: break;
    }
  }
}

}  // namespace

// Columns [n0, n0 + 16 k) here, the rest on the scalar reference. Needs qd8_simd_supported(q).
void qgemm_qd8_avx512(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  const int64_t n16 = n0 + (n1 - n0) / 16 * 16;
  if (q.wkind == QWeights::U4)
    run<true>(q, xp, m0, m1, n0, n16);
  else
    run<false>(q, xp, m0, m1, n0, n16);
  if (n16 < n1) qgemm_qd8_scalar(q, m0, m1, n16, n1);
}

}  // namespace pte::xnn

#pragma GCC pop_options
