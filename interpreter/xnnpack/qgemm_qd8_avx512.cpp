// qd8 GEMM, AVX-512 VNNI (see qgemm_qd8.h). The float epilogue is qd8_block_step /
// qd8_output (lane-wise, never fused); every integer below is exact.
//
// U4 (packed at load): 16 columns x up to 8 rows per tile. One 64-byte vector holds 8 k of
// 16 columns, a dword per column; its low / high nibbles u (0..15, unsigned) times the
// activation dword of k 0 2 4 6 / 1 3 5 7 (signed, broadcast) summed by vpdpbusd give
// sum u x per column, no reduction; vpdpbusd of (low + high) by ones gives sum u. Per block:
//   sum (x - x_zp)(u - 8) = sum u x - x_zp sum u - 8 (sum x - x_zp block)   (last: prepared).
// I8 (in place): 16 columns x up to 4 rows. Register j holds, in its 128-bit lane l,
// 16 weight bytes of column n + 4l + j read from four filter rows; vpdpbusd multiplies the
// unsigned activations (x + 128, broadcast per lane) by the signed weights; after a block
// the four registers reduce to one dword per column:
//   sum (x + 128) w - (128 + x_zp) wsum  ==  sum (x - x_zp) w.
// GCC 12: false
// -Wmaybe-uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "interpreter/xnnpack/qgemm_qd8.h"

// clang (the fuzz build) has no GCC target pragma: the same target as a function attribute.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vnni")
#pragma GCC optimize("fp-contract=off")
#endif

#include "interpreter/xnnpack/qgemm_qd8_epilogue.h"

namespace pte::xnn {

namespace {

struct Ops512 {
  using F = __m512;
  using I = __m512i;
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F fma(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static F splat(float v) { return _mm512_set1_ps(v); }
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
inline __m512i bcast32(const uint8_t* p) {
  int32_t v;
  __builtin_memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

// U4, packed: rows [m, m + R) x the 16 columns of group g (nv of them valid).
template <int R>
void tile_u4(const QGemm& q, const uint8_t* xp, const int32_t* xcorr, int64_t m, int64_t g, int64_t nv) {
  const int64_t K = q.K, nb = K / q.block, spb = q.block / 8, bb = qd8_u4_block_bytes(q.block, q.wp_bf16), n = g * 16;
  const uint8_t* wb = q.wp + g * nb * bb;  // this group's first block
  const uint8_t* x0 = xp + m * K;
  const __m512i m4 = _mm512_set1_epi8(0x0F), ones = _mm512_set1_epi8(1);
  const __mmask16 keep = static_cast<__mmask16>(nv >= 16 ? 0xFFFF : (1u << nv) - 1);
  const __m512 ks = q.ksum ? _mm512_maskz_loadu_ps(keep, q.ksum + n) : _mm512_setzero_ps();
  __m512 vacc[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) vacc[r] = q.ksum ? qd8_acc_init<Ops512>(ks, q.x_zp[m + r]) : _mm512_setzero_ps();
  const uint8_t* xs = x0;
  for (int64_t b = 0; b < nb; ++b, wb += bb) {
    __m512i acc[R], usum = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_si512();
    for (int64_t s = 0; s < spb; ++s, xs += 8) {
      const __m512i w = _mm512_loadu_si512(wb + s * 64);
      const __m512i lo = _mm512_and_si512(w, m4), hi = _mm512_and_si512(_mm512_srli_epi16(w, 4), m4);
      usum = _mm512_dpbusd_epi32(usum, _mm512_add_epi8(lo, hi), ones);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        acc[r] = _mm512_dpbusd_epi32(acc[r], lo, bcast32(xs + r * K));
        acc[r] = _mm512_dpbusd_epi32(acc[r], hi, bcast32(xs + r * K + 4));
      }
    }
    const uint8_t* meta = wb + spb * 64;
    const __m512 sc = q.wp_bf16 ? _mm512_castsi512_ps(_mm512_slli_epi32(
                                      _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(meta))), 16))
                                : _mm512_loadu_ps(meta);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      __m512i dot = _mm512_sub_epi32(acc[r], _mm512_mullo_epi32(_mm512_set1_epi32(qd8_dot_zp(q, m + r)), usum));
      dot = _mm512_sub_epi32(dot, _mm512_set1_epi32(xcorr[(m + r) * nb + b]));
      if (q.ksum) {
        vacc[r] = qd8_block_step<Ops512>(vacc[r], dot, sc);
      } else {  // per channel (one block): the output itself
        const __m512 bias = q.bias ? _mm512_maskz_loadu_ps(keep, q.bias + n) : _mm512_setzero_ps();
        vacc[r] = qd8_output_channel<Ops512>(dot, _mm512_set1_ps(q.x_scale[m + r]), sc, bias);
      }
    }
  }
  const __m512 bias = q.bias ? _mm512_maskz_loadu_ps(keep, q.bias + n) : _mm512_setzero_ps();
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    _mm512_mask_storeu_ps(q.y + (m + r) * q.N + n, keep,
                          q.ksum ? qd8_output<Ops512>(vacc[r], _mm512_set1_ps(q.x_scale[m + r]), bias) : vacc[r]);
}

void run_u4(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  const int32_t* xcorr = qd8_prepared_xcorr(q, xp);
  for (int64_t g = n0 / 16; g * 16 < n1; ++g) {
    const int64_t nv = n1 - g * 16 < 16 ? n1 - g * 16 : 16;
    int64_t m = m0;
    for (; m + 8 <= m1; m += 8) tile_u4<8>(q, xp, xcorr, m, g, nv);
    switch (m1 - m) {
      case 7: tile_u4<7>(q, xp, xcorr, m, g, nv); break;
      case 6: tile_u4<6>(q, xp, xcorr, m, g, nv); break;
      case 5: tile_u4<5>(q, xp, xcorr, m, g, nv); break;
      case 4: tile_u4<4>(q, xp, xcorr, m, g, nv); break;
      case 3: tile_u4<3>(q, xp, xcorr, m, g, nv); break;
      case 2: tile_u4<2>(q, xp, xcorr, m, g, nv); break;
      case 1: tile_u4<1>(q, xp, xcorr, m, g, nv); break;
      default: break;
    }
  }
}

// I8, in place: rows [m, m + R) x columns [n, n + 16).
template <int R>
void tile_i8(const QGemm& q, const uint8_t* xp, int64_t m, int64_t n) {
  const int64_t K = q.K, N = q.N, S = qd8_meta_stride(q), nb = K / q.block, rb = q.w_row_bytes, s4 = 4 * rb;
  (void)N;
  const int64_t cpb = q.block / 16;  // 16-byte weight chunks per block
  const uint8_t* w0 = q.w + n * rb;  // column n; register j lane l: + (j + 4 l) rb
  const uint8_t* x0 = xp + m * K;    // row m; row m + r: + r K
  const __m512 ks = q.ksum ? _mm512_loadu_ps(q.ksum + n) : _mm512_setzero_ps();
  const __m512 bias = q.bias ? _mm512_loadu_ps(q.bias + n) : _mm512_setzero_ps();
  __m512 vacc[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) vacc[r] = q.ksum ? qd8_acc_init<Ops512>(ks, q.x_zp[m + r]) : _mm512_setzero_ps();
  int64_t c = 0;
  for (int64_t b = 0; b < nb; ++b) {
    __m512i acc[R][4];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_setzero_si512();
    for (const int64_t ce = c + cpb; c < ce; ++c) {
      const uint8_t* wc = w0 + c * 16;
      const uint8_t* xc = x0 + c * 16;
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const uint8_t* p = wc + j * rb;
        const __m512i w = load4(p, p + s4, p + 2 * s4, p + 3 * s4);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], _mm512_broadcast_i32x4(ld16(xc + r * K)), w);
      }
    }
    const __m512i ws = load_wsum(q, b * S + n);
    const __m512 sc = load_scales(q, b * S + n);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      __m512i dot = reduce4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
      dot = _mm512_sub_epi32(dot, _mm512_mullo_epi32(_mm512_set1_epi32(128 + qd8_dot_zp(q, m + r)), ws));
      vacc[r] = q.ksum ? qd8_block_step<Ops512>(vacc[r], dot, sc)
                       : qd8_output_channel<Ops512>(dot, _mm512_set1_ps(q.x_scale[m + r]), sc, bias);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
    _mm512_storeu_ps(q.y + (m + r) * N + n,
                     q.ksum ? qd8_output<Ops512>(vacc[r], _mm512_set1_ps(q.x_scale[m + r]), bias) : vacc[r]);
}

void run_i8(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; n += 16) {
    int64_t m = m0;
    for (; m + 4 <= m1; m += 4) tile_i8<4>(q, xp, m, n);
    switch (m1 - m) {
      case 3: tile_i8<3>(q, xp, m, n); break;
      case 2: tile_i8<2>(q, xp, m, n); break;
      case 1: tile_i8<1>(q, xp, m, n); break;
      default: break;
    }
  }
}

}  // namespace

// Packing (load): per group of 16 columns, one dword gather per 8 k, one gather of the
// 16 scales per block; the block sums of the nibbles by vpdpbusd with ones.
void qd8_pack_u4_avx512(const uint8_t* w, const float* scales, bool bf16, int64_t N, int64_t K, int64_t block, int64_t S,
                        uint8_t* out, int32_t* wsum32, int16_t* wsum16) {
  const int64_t rb = K / 2, nb = K / block, spb = block / 8;
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i idx = _mm512_mullo_epi32(lane, _mm512_set1_epi32(static_cast<int32_t>(rb)));
  const __m512i sidx = _mm512_mullo_epi32(lane, _mm512_set1_epi32(static_cast<int32_t>(nb)));
  const __m512i pad = _mm512_set1_epi32(static_cast<int32_t>(0x88888888u)), m4 = _mm512_set1_epi8(0x0F);
  const __m512i ones = _mm512_set1_epi8(1), bias = _mm512_set1_epi32(static_cast<int32_t>(8 * block));
  for (int64_t g = 0; g * 16 < N; ++g) {
    const int64_t nv = N - g * 16 < 16 ? N - g * 16 : 16;
    const __mmask16 keep = static_cast<__mmask16>(nv >= 16 ? 0xFFFF : (1u << nv) - 1);
    const uint8_t* base = w + g * 16 * rb;
    const float* sbase = scales + g * 16 * nb;
    for (int64_t b = 0; b < nb; ++b) {
      __m512i acc = _mm512_setzero_si512();
      for (int64_t s = b * spb; s < (b + 1) * spb; ++s, out += 64) {
        const __m512i v = _mm512_mask_i32gather_epi32(pad, keep, idx, base + s * 4, 1);
        _mm512_storeu_si512(out, v);
        acc = _mm512_dpbusd_epi32(acc, _mm512_and_si512(v, m4), ones);
        acc = _mm512_dpbusd_epi32(acc, _mm512_and_si512(_mm512_srli_epi16(v, 4), m4), ones);
      }
      const __m512i sc = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), keep, sidx, sbase + b, 4);
      if (bf16) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_cvtepi32_epi16(_mm512_srli_epi32(sc, 16)));
        out += 32;
      } else {
        _mm512_storeu_si512(out, sc);
        out += 64;
      }
      acc = _mm512_sub_epi32(acc, bias);
      if (wsum32) _mm512_storeu_si512(wsum32 + b * S + g * 16, acc);
      if (wsum16) _mm256_storeu_si256(reinterpret_cast<__m256i*>(wsum16 + b * S + g * 16), _mm512_cvtepi32_epi16(acc));
    }
  }
  for (int64_t b = 0; b < nb; ++b)  // padding columns beyond the last group of 16
    for (int64_t n = (N + 15) / 16 * 16; n < S; ++n) {
      if (wsum32) wsum32[b * S + n] = 0;
      if (wsum16) wsum16[b * S + n] = 0;
    }
}

// Needs qd8_simd_supported(q). U4: columns [n0, n1) (a first partial group of 16 on the
// scalar reference); I8: columns
// [n0, n0 + 16 k) here, the rest on the scalar reference.
void qgemm_qd8_avx512(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (q.wkind == QWeights::U4) {
    const int64_t a = (n0 + 15) / 16 * 16 < n1 ? (n0 + 15) / 16 * 16 : n1;
    if (a > n0) qgemm_qd8_scalar(q, m0, m1, n0, a);
    return run_u4(q, xp, m0, m1, a, n1);
  }
  const int64_t n16 = n0 + (n1 - n0) / 16 * 16;
  run_i8(q, xp, m0, m1, n0, n16);
  if (n16 < n1) qgemm_qd8_scalar(q, m0, m1, n16, n1);
}

}  // namespace pte::xnn

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
