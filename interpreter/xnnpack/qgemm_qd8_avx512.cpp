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

template <int R, bool W4>
void tile(const QGemm& q, const uint8_t* xp, int64_t m, int64_t n) {
  const int64_t K = q.K, N = q.N, nb = K / q.block;
  const int64_t cpb = q.block / (W4 ? 32 : 16);  // 16-byte weight chunks per block
  const uint8_t* wr[4][4];
  for (int j = 0; j < 4; ++j)
    for (int l = 0; l < 4; ++l) wr[j][l] = q.w + (n + 4 * l + j) * q.w_row_bytes;
  const uint8_t* xr[R];
  __m512 vacc[R];
  for (int r = 0; r < R; ++r) xr[r] = xp + (m + r) * K, vacc[r] = _mm512_setzero_ps();
  const __m512i m4 = _mm512_set1_epi8(0x0F), eight = _mm512_set1_epi8(8);
  for (int64_t b = 0; b < nb; ++b) {
    __m512i acc[R][4];
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_setzero_si512();
    for (int64_t c = b * cpb; c < (b + 1) * cpb; ++c) {
      const int64_t wo = c * 16;
      for (int j = 0; j < 4; ++j) {
        const __m512i w = load4(wr[j][0] + wo, wr[j][1] + wo, wr[j][2] + wo, wr[j][3] + wo);
        if constexpr (W4) {
          const __m512i lo = _mm512_sub_epi8(_mm512_and_si512(w, m4), eight);
          const __m512i hi = _mm512_sub_epi8(_mm512_and_si512(_mm512_srli_epi16(w, 4), m4), eight);
          for (int r = 0; r < R; ++r) {
            acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], _mm512_broadcast_i32x4(ld16(xr[r] + c * 32)), lo);
            acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], _mm512_broadcast_i32x4(ld16(xr[r] + c * 32 + 16)), hi);
          }
        } else {
          for (int r = 0; r < R; ++r) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], _mm512_broadcast_i32x4(ld16(xr[r] + c * 16)), w);
        }
      }
    }
    const __m512i ws = _mm512_loadu_si512(q.wsum + b * N + n);
    const __m512 sc = _mm512_loadu_ps(q.w_scale + b * N + n);
    for (int r = 0; r < R; ++r) {
      __m512i dot = reduce4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
      dot = _mm512_sub_epi32(dot, _mm512_mullo_epi32(_mm512_set1_epi32(128 + q.x_zp[m + r]), ws));
      vacc[r] = qd8_block_step<Ops512>(vacc[r], dot, sc);
    }
  }
  const __m512 bias = q.bias ? _mm512_loadu_ps(q.bias + n) : _mm512_setzero_ps();
  for (int r = 0; r < R; ++r)
    _mm512_storeu_ps(q.y + (m + r) * N + n, qd8_output<Ops512>(vacc[r], _mm512_set1_ps(q.x_scale[m + r]), bias));
}

template <bool W4>
void run(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; n += 16) {
    int64_t m = m0;
    for (; m + 4 <= m1; m += 4) tile<4, W4>(q, xp, m, n);
    switch (m1 - m) {
      case 3: tile<3, W4>(q, xp, m, n); break;
      case 2: tile<2, W4>(q, xp, m, n); break;
      case 1: tile<1, W4>(q, xp, m, n); break;
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
