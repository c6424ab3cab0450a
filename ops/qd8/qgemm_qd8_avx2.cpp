// qd8 GEMM, AVX2 (see qgemm_qd8.h).
//
// U4 (packed at load): 8 columns (half of a packed group) x up to 4 rows per tile. One
// 32-byte vector holds 8 k of 8 columns, a dword per column; vpmaddubsw multiplies its
// low / high nibbles (0..15, unsigned) by the activation dword of k 0 2 4 6 / 1 3 5 7
// (signed, broadcast; pair sums <= 3840, exact), vpmaddwd by ones sums into dwords:
// sum u x per column, no reduction; the same of (low + high) by ones gives sum u. Per block:
//   sum (x - x_zp)(u - 8) = sum u x - x_zp sum u - 8 (sum x - x_zp block)   (last: prepared).
// I8: per output, sign-extended int16 products (vpmaddwd; int8 x int8 cannot use
// vpmaddubsw exactly), one horizontal sum per block.
// The float epilogue is qd8_block_step / qd8_output (lane-wise, never fused).
// GCC 12: false
// -Wmaybe-uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#if defined(__x86_64__)  // x86 only: other ISAs take the scalar reference
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "ops/qd8/qgemm_qd8.h"

// clang (the fuzz build) has no GCC target pragma: the same target as a function attribute.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#pragma GCC optimize("fp-contract=off")
#endif

#define PTE_QD8_OPS256
#include "ops/qd8/qgemm_qd8_epilogue.h"

namespace pte::xnn {

namespace {

inline __m128i ld16(const void* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

inline __m256i bcast32(const uint8_t* p) {
  int32_t v;
  __builtin_memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

// rows [m, m + R) x the 8 columns n = 16 g + 8 h .. (nv of them valid)
template <int R>
void tile_u4(const QGemm& q, const uint8_t* xp, const int32_t* xcorr, int64_t m, int64_t g, int h, int64_t nv) {
  const int64_t K = q.K, nb = K / q.block, spb = q.block / 8, bb = qd8_u4_block_bytes(q.block, q.wp_bf16);
  const int64_t n = g * 16 + h * 8;
  const uint8_t* wb = q.wp + g * nb * bb;  // this group's first block; this half at + 32 h
  const uint8_t* x0 = xp + m * K;
  const __m256i m4 = _mm256_set1_epi8(0x0F), ones8 = _mm256_set1_epi8(1), ones = _mm256_set1_epi16(1);
  const __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(nv)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256 ks = q.ksum ? _mm256_maskload_ps(q.ksum + n, keep) : _mm256_setzero_ps();
  const __m256 bias = q.bias ? _mm256_maskload_ps(q.bias + n, keep) : _mm256_setzero_ps();
  __m256 vacc[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) vacc[r] = q.ksum ? qd8_acc_init<Qd8Ops256>(ks, q.x_zp[m + r]) : _mm256_setzero_ps();
  const uint8_t* xs = x0;
  for (int64_t b = 0; b < nb; ++b, wb += bb) {
    __m256i acc[R], usum = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_si256();
    for (int64_t s = 0; s < spb; ++s, xs += 8) {
      const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wb + s * 64 + h * 32));
      const __m256i lo = _mm256_and_si256(w, m4), hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), m4);
      usum = _mm256_add_epi32(usum, _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_add_epi8(lo, hi), ones8), ones));
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(lo, bcast32(xs + r * K)),
                                           _mm256_maddubs_epi16(hi, bcast32(xs + r * K + 4)));
        acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(p, ones));
      }
    }
    const uint8_t* meta = wb + spb * 64;
    const __m256 sc = q.wp_bf16 ? _mm256_castsi256_ps(_mm256_slli_epi32(
                                      _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(meta + h * 16))), 16))
                                : _mm256_loadu_ps(reinterpret_cast<const float*>(meta + h * 32));
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      __m256i dot = _mm256_sub_epi32(acc[r], _mm256_mullo_epi32(_mm256_set1_epi32(qd8_dot_zp(q, m + r)), usum));
      dot = _mm256_sub_epi32(dot, _mm256_set1_epi32(xcorr[(m + r) * nb + b]));
      vacc[r] = q.ksum ? qd8_block_step<Qd8Ops256>(vacc[r], dot, sc)
                       : qd8_output_channel<Qd8Ops256>(dot, _mm256_set1_ps(q.x_scale[m + r]), sc, bias);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
    _mm256_maskstore_ps(q.y + (m + r) * q.N + n, keep,
                        q.ksum ? qd8_output<Qd8Ops256>(vacc[r], _mm256_set1_ps(q.x_scale[m + r]), bias) : vacc[r]);
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
      const float bias = q.bias ? q.bias[n] : 0.0f;
      float acc = q.ksum ? qd8_acc_init<Qd8Ops1>(q.ksum[n], q.x_zp[m]) : 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        const int32_t dot = dot_i8(x + b * q.block, w + b * q.block, q.block) - qd8_dot_zp(q, m) * qd8_wsum(q, b, n);
        acc = q.ksum ? qd8_block_step<Qd8Ops1>(acc, dot, qd8_scale(q, b, n))
                     : qd8_output_channel<Qd8Ops1>(dot, q.x_scale[m], qd8_scale(q, b, n), bias);
      }
      q.y[m * q.N + n] = q.ksum ? qd8_output<Qd8Ops1>(acc, q.x_scale[m], bias) : acc;
    }
  }
}

}  // namespace

// Needs qd8_simd_supported(q). U4: columns [n0, n1) (a first partial group of 8 on the
// scalar reference).
void qgemm_qd8_avx2(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (q.wkind == QWeights::I8) return run_i8(q, m0, m1, n0, n1);
  const int64_t a = (n0 + 7) / 8 * 8 < n1 ? (n0 + 7) / 8 * 8 : n1;
  if (a > n0) qgemm_qd8_scalar(q, m0, m1, n0, a);
  const int32_t* xcorr = qd8_prepared_xcorr(q, xp);
  for (int64_t n = a; n < n1; n += 8) {
    const int64_t g = n / 16, nv = n1 - n < 8 ? n1 - n : 8;
    const int h = static_cast<int>((n / 8) % 2);
    int64_t m = m0;
    for (; m + 4 <= m1; m += 4) tile_u4<4>(q, xp, xcorr, m, g, h, nv);
    switch (m1 - m) {
      case 3: tile_u4<3>(q, xp, xcorr, m, g, h, nv); break;
      case 2: tile_u4<2>(q, xp, xcorr, m, g, h, nv); break;
      case 1: tile_u4<1>(q, xp, xcorr, m, g, h, nv); break;
      default: break;
    }
  }
}

}  // namespace pte::xnn

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif  // defined(__x86_64__)
