// qd8 GEMM, AVX2 (see qgemm_qd8.h).
//
// U4: 8 columns x up to 2 rows per tile. Register j (0..3) holds, in its 128-bit lane l,
// the 16 weight bytes (32 k) of column n + 4l + j, read in place. vpmaddubsw multiplies the
// unsigned activation bytes (x + 128) by the signed nibbles (-8..7: pair sums stay far
// inside int16, so exact), vpmaddwd by ones sums each 4 products into a dword; after a
// block the four registers reduce to one dword per column (natural order):
//   sum (x + 128) w - (128 + x_zp) wsum  ==  sum (x - x_zp) w.
// I8: per output, sign-extended int16 products (vpmaddwd; int8 x int8 cannot use
// vpmaddubsw exactly), one horizontal sum per block.
// The float epilogue is qd8_block_step / qd8_output (lane-wise, never fused).
// GCC 12: -Wpsabi notes on the epilogue templates (internal linkage) and false
// -Wmaybe-uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "interpreter/xnnpack/qgemm_qd8.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#pragma GCC optimize("fp-contract=off")

namespace pte::xnn {

namespace {

struct Ops256 {
  using F = __m256;
  using I = __m256i;
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F to_float(I v) { return _mm256_cvtepi32_ps(v); }
};
struct Ops1 {
  using F = float;
  using I = int32_t;
  static F add(F a, F b) { return a + b; }
  static F mul(F a, F b) { return a * b; }
  static F to_float(I v) { return static_cast<F>(v); }
};

inline __m128i ld16(const void* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

inline __m256i reduce4(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i ab = _mm256_add_epi32(_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
  const __m256i cd = _mm256_add_epi32(_mm256_unpacklo_epi32(c, d), _mm256_unpackhi_epi32(c, d));
  return _mm256_add_epi32(_mm256_unpacklo_epi64(ab, cd), _mm256_unpackhi_epi64(ab, cd));
}

inline __m256 load_scales(const QGemm& q, int64_t i) {
  if (q.w_scale) return _mm256_loadu_ps(q.w_scale + i);
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q.w_scale_bf16 + i));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
inline __m256i load_wsum(const QGemm& q, int64_t i) {
  if (q.wsum) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.wsum + i));
  return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q.wsum16 + i)));
}

template <int R>
void tile_u4(const QGemm& q, const uint8_t* xp, int64_t m, int64_t n) {
  const int64_t K = q.K, N = q.N, nb = K / q.block, cpb = q.block / 32;
  const uint8_t* wr[4][2];
  for (int j = 0; j < 4; ++j)
    for (int l = 0; l < 2; ++l) wr[j][l] = q.w + (n + 4 * l + j) * q.w_row_bytes;
  const uint8_t* xr[R];
  __m256 vacc[R];
  for (int r = 0; r < R; ++r) xr[r] = xp + (m + r) * K, vacc[r] = _mm256_setzero_ps();
  const __m256i m4 = _mm256_set1_epi8(0x0F), eight = _mm256_set1_epi8(8), ones = _mm256_set1_epi16(1);
  for (int64_t b = 0; b < nb; ++b) {
    __m256i acc[R][4];
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < 4; ++j) acc[r][j] = _mm256_setzero_si256();
    for (int64_t c = b * cpb; c < (b + 1) * cpb; ++c) {
      const int64_t wo = c * 16;
      for (int j = 0; j < 4; ++j) {
        const __m256i w = _mm256_inserti128_si256(_mm256_castsi128_si256(ld16(wr[j][0] + wo)), ld16(wr[j][1] + wo), 1);
        const __m256i lo = _mm256_sub_epi8(_mm256_and_si256(w, m4), eight);
        const __m256i hi = _mm256_sub_epi8(_mm256_and_si256(_mm256_srli_epi16(w, 4), m4), eight);
        for (int r = 0; r < R; ++r) {
          const __m256i xl = _mm256_broadcastsi128_si256(ld16(xr[r] + c * 32));
          const __m256i xh = _mm256_broadcastsi128_si256(ld16(xr[r] + c * 32 + 16));
          const __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(xl, lo), _mm256_maddubs_epi16(xh, hi));
          acc[r][j] = _mm256_add_epi32(acc[r][j], _mm256_madd_epi16(p, ones));
        }
      }
    }
    const __m256i ws = load_wsum(q, b * N + n);
    const __m256 sc = load_scales(q, b * N + n);
    for (int r = 0; r < R; ++r) {
      __m256i dot = reduce4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
      dot = _mm256_sub_epi32(dot, _mm256_mullo_epi32(_mm256_set1_epi32(128 + q.x_zp[m + r]), ws));
      vacc[r] = qd8_block_step<Ops256>(vacc[r], dot, sc);
    }
  }
  const __m256 bias = q.bias ? _mm256_loadu_ps(q.bias + n) : _mm256_setzero_ps();
  for (int r = 0; r < R; ++r)
    _mm256_storeu_ps(q.y + (m + r) * N + n, qd8_output<Ops256>(vacc[r], _mm256_set1_ps(q.x_scale[m + r]), bias));
}

inline int32_t dot_i8(const int8_t* a, const int8_t* b, int64_t k) {  // k % 16 == 0
  __m256i acc = _mm256_setzero_si256();
  for (int64_t i = 0; i < k; i += 16)
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_cvtepi8_epi16(ld16(a + i)), _mm256_cvtepi8_epi16(ld16(b + i))));
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

void run_i8(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  const int64_t nb = q.K / q.block;
  for (int64_t m = m0; m < m1; ++m) {
    const int8_t* x = q.x + m * q.K;
    for (int64_t n = n0; n < n1; ++n) {
      const int8_t* w = reinterpret_cast<const int8_t*>(q.w + n * q.w_row_bytes);
      float acc = 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        const int32_t dot = dot_i8(x + b * q.block, w + b * q.block, q.block) - q.x_zp[m] * qd8_wsum(q, b * q.N + n);
        acc = qd8_block_step<Ops1>(acc, dot, qd8_scale(q, b * q.N + n));
      }
      q.y[m * q.N + n] = qd8_output<Ops1>(acc, q.x_scale[m], q.bias ? q.bias[n] : 0.0f);
    }
  }
}

}  // namespace

// Needs qd8_simd_supported(q). U4: columns [n0, n0 + 8 k) here, the rest on the scalar reference.
void qgemm_qd8_avx2(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (q.wkind == QWeights::I8) return run_i8(q, m0, m1, n0, n1);
  const int64_t n8 = n0 + (n1 - n0) / 8 * 8;
  for (int64_t n = n0; n < n8; n += 8) {
    int64_t m = m0;
    for (; m + 2 <= m1; m += 2) tile_u4<2>(q, xp, m, n);
    if (m < m1) tile_u4<1>(q, xp, m, n);
  }
  if (n8 < n1) qgemm_qd8_scalar(q, m0, m1, n8, n1);
}

}  // namespace pte::xnn

#pragma GCC pop_options
