// qd8 GEMM, AVX-512 VNNI (see qgemm_qd8.h). The float epilogue is qd8_block_step /
// qd8_output (lane-wise, never fused); every integer below is exact.
//
// U4 (packed at load): 16 columns x up to 8 rows per tile (64 columns x 1 row for decode).
// One 64-byte vector holds 8 k of 16 columns, a dword per column; vpdpbusd multiplies the
// activations x + 128 of k 0 2 4 6 / 1 3 5 7 (unsigned, broadcast) by 16 (u - 8) of the
// low / high nibbles (signed) and sums per column, no reduction (details at tile_u4).
// I8 (in place): 16 columns x up to 4 rows. Register j holds, in its 128-bit lane l,
// 16 weight bytes of column n + 4l + j read from four filter rows; vpdpbusd multiplies the
// unsigned activations (x + 128, broadcast per lane) by the signed weights; after a block
// the four registers reduce to one dword per column:
//   sum (x + 128) w - (128 + x_zp) wsum  ==  sum (x - x_zp) w.
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
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vnni,bmi2")
#pragma GCC optimize("fp-contract=off")
#endif

#define PTE_QD8_OPS512
#include "ops/qd8/qgemm_qd8_epilogue.h"

namespace pte::xnn {

namespace {

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

// U4, packed: rows [m, m + R) x the G groups of 16 columns from g0 (columns < n1 valid).
// The packed bytes are the file's nibbles u; (byte ^ 0x88) & 0xF0 and ((byte << 4) ^ 0x88)
// & 0xF0 are, as signed bytes, 16 (u - 8) of the high and the low nibble (one vpternlogd
// each), so vpdpbusd of the unsigned activations x + 128 (broadcast, prepared) by them sums
// 16 (x + 128)(u - 8): exact in int32, divided by 16 exactly (an arithmetic shift).
// Blockwise that is the block's dot itself (the zero-point term is ksum); per channel
// (one block) the kernel subtracts (128 + x_zp) sum (u - 8), the latter by vpdpbusd of ones.
// Short tiles (R <= 2) keep the low and high products in separate accumulators (more
// independent vpdpbusd chains: decode is latency- and memory-bound).
// (GCC 12 keeps the intrinsic's accumulator out of place: register copies and spilled
// broadcasts around every vpdpbusd in these loops. In place, as the instruction is.)
inline __m512i dpbusd(__m512i acc, __m512i u8, __m512i s8) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u8), "v"(s8));
  return acc;
}

// Prefetch in each group's stream: to L2 far ahead and to L1 near (a prefetch to L1 holds
// a fill buffer for the whole memory latency, ~16 of them per core: the far one to L2 keeps
// more lines in flight; measured ~10% over one T0 prefetch 1 KiB ahead on decode).
constexpr int64_t kPrefetchL1 = 512, kPrefetchL2 = 2048;
constexpr int64_t kStreamHead = 1024;  // qgemm_qd8_avx512_u4_quarters
// Groups g0 + j gstep for j < G (columns 16 g .. 16 g + 15 of each, those below n1).
template <int R, int G, bool chan>  // chan: per channel (q.ksum null)
void tile_u4(const QGemm& q, const uint8_t* xp, int64_t m, int64_t g0, int64_t n1, int64_t gstep = 1) {
  constexpr int A = R <= 2 ? 2 : 1;
  const int64_t K = q.K, nb = K / q.block, spb = q.block / 8, bb = qd8_u4_block_bytes(q.block, q.wp_bf16);
  const int64_t gs = nb * bb * gstep;  // bytes from one group of the tile to the next
  const uint8_t* wb = q.wp + g0 * nb * bb;  // block b of group g0 + j gstep: wb + j gs (+ b bb)
  const __m512i c88 = _mm512_set1_epi8(static_cast<char>(0x88)), cf0 = _mm512_set1_epi8(static_cast<char>(0xF0));
  const __m512i ones = _mm512_set1_epi8(1);
  __mmask16 keep[G];
  __m512 vacc[R][G];
#pragma GCC unroll 4
  for (int j = 0; j < G; ++j) {
    const int64_t nv = n1 - (g0 + j * gstep) * 16;
    keep[j] = static_cast<__mmask16>(nv >= 16 ? 0xFFFF : (1u << nv) - 1);
    const __m512 ks = q.ksum ? _mm512_maskz_loadu_ps(keep[j], q.ksum + (g0 + j * gstep) * 16) : _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) vacc[r][j] = q.ksum ? qd8_acc_init<Qd8Ops512>(ks, q.x_zp[m + r]) : _mm512_setzero_ps();
  }
  const uint8_t* xs = xp + m * K;
  for (int64_t b = 0; b < nb; ++b, wb += bb) {
    __m512i acc[R][G][A], vs[G];
#pragma GCC unroll 4
    for (int j = 0; j < G; ++j) {
      vs[j] = _mm512_setzero_si512();
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int a = 0; a < A; ++a) acc[r][j][a] = _mm512_setzero_si512();
    }
    for (int64_t s = 0; s < spb; ++s, xs += 8) {
      __m512i lo[G], hi[G];
#pragma GCC unroll 4
      for (int j = 0; j < G; ++j) {
        const uint8_t* p = wb + j * gs + s * 64;
        _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchL2), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchL1), _MM_HINT_T0);
        const __m512i w = _mm512_loadu_si512(p);
        hi[j] = _mm512_ternarylogic_epi32(w, c88, cf0, 0x28);  // (w ^ 0x88) & 0xF0
        lo[j] = _mm512_ternarylogic_epi32(_mm512_slli_epi32(w, 4), c88, cf0, 0x28);
        if constexpr (chan) vs[j] = dpbusd(dpbusd(vs[j], ones, lo[j]), ones, hi[j]);
      }
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m512i xe = bcast32(xs + r * K), xo = bcast32(xs + r * K + 4);
#pragma GCC unroll 4
        for (int j = 0; j < G; ++j) {
          acc[r][j][0] = dpbusd(acc[r][j][0], xe, lo[j]);
          acc[r][j][A - 1] = dpbusd(acc[r][j][A - 1], xo, hi[j]);
        }
      }
    }
#pragma GCC unroll 4
    for (int j = 0; j < G; ++j) {
      const uint8_t* meta = wb + j * gs + spb * 64;
      const __m512 sc = q.wp_bf16 ? _mm512_castsi512_ps(_mm512_slli_epi32(
                                        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(meta))), 16))
                                  : _mm512_loadu_ps(meta);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        __m512i d = A == 2 ? _mm512_add_epi32(acc[r][j][0], acc[r][j][A - 1]) : acc[r][j][0];
        if constexpr (!chan) {
          vacc[r][j] = qd8_block_step<Qd8Ops512>(vacc[r][j], _mm512_srai_epi32(d, 4), sc);
        } else {  // per channel (one block): the output itself
          d = _mm512_sub_epi32(d, _mm512_mullo_epi32(_mm512_set1_epi32(128 + q.x_zp[m + r]), vs[j]));
          const __m512 bias = q.bias ? _mm512_maskz_loadu_ps(keep[j], q.bias + (g0 + j * gstep) * 16) : _mm512_setzero_ps();
          vacc[r][j] = qd8_output_channel<Qd8Ops512>(_mm512_srai_epi32(d, 4), _mm512_set1_ps(q.x_scale[m + r]), sc, bias);
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int j = 0; j < G; ++j) {
    const int64_t n = (g0 + j * gstep) * 16;
    const __m512 bias = q.bias ? _mm512_maskz_loadu_ps(keep[j], q.bias + n) : _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
      _mm512_mask_storeu_ps(q.y + (m + r) * q.N + n, keep[j],
                            q.ksum ? qd8_output<Qd8Ops512>(vacc[r][j], _mm512_set1_ps(q.x_scale[m + r]), bias) : vacc[r][j]);
  }
}

// Rows in tiles of 8 inside each group (its weights stay in cache); one to three rows
// (decode): one row at a time over 4 groups (4 streams, 8 independent chains).
template <bool chan>
void run_u4(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  const int64_t g1 = (n1 + 15) / 16;
  if (m1 - m0 < 4) {
    for (int64_t m = m0; m < m1; ++m) {
      int64_t g = n0 / 16;
      for (; g + 4 <= g1; g += 4) tile_u4<1, 4, chan>(q, xp, m, g, n1);
      if (g + 2 <= g1) tile_u4<1, 2, chan>(q, xp, m, g, n1), g += 2;
      if (g < g1) tile_u4<1, 1, chan>(q, xp, m, g, n1);
    }
    return;
  }
  for (int64_t g = n0 / 16; g < g1; ++g) {
    int64_t m = m0;
    for (; m + 8 <= m1; m += 8) tile_u4<8, 1, chan>(q, xp, m, g, n1);
    switch (m1 - m) {
      case 7: tile_u4<7, 1, chan>(q, xp, m, g, n1); break;
      case 6: tile_u4<6, 1, chan>(q, xp, m, g, n1); break;
      case 5: tile_u4<5, 1, chan>(q, xp, m, g, n1); break;
      case 4: tile_u4<4, 1, chan>(q, xp, m, g, n1); break;
      case 3: tile_u4<3, 1, chan>(q, xp, m, g, n1); break;
      case 2: tile_u4<2, 1, chan>(q, xp, m, g, n1); break;
      case 1: tile_u4<1, 1, chan>(q, xp, m, g, n1); break;
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
  for (int r = 0; r < R; ++r) vacc[r] = q.ksum ? qd8_acc_init<Qd8Ops512>(ks, q.x_zp[m + r]) : _mm512_setzero_ps();
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
      vacc[r] = q.ksum ? qd8_block_step<Qd8Ops512>(vacc[r], dot, sc)
                       : qd8_output_channel<Qd8Ops512>(dot, _mm512_set1_ps(q.x_scale[m + r]), sc, bias);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
    _mm512_storeu_ps(q.y + (m + r) * N + n,
                     q.ksum ? qd8_output<Qd8Ops512>(vacc[r], _mm512_set1_ps(q.x_scale[m + r]), bias) : vacc[r]);
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

// qd8_ksum_u4 of every column from the packed stream (block and K multiples of 16): per
// 16 k, the nibble sums of 16 columns by vpdpbusd with ones, then the same float steps
// per lane (acc - sum x scale, k order) as the scalar form: bit-identical.
bool qd8_ksum_u4_packed_avx512(const uint8_t* wp, bool bf16, int64_t N, int64_t K, int64_t block, float* ksum) {
  if (block % 16 != 0 || K % block != 0) return false;
  const int64_t nb = K / block, spb = block / 8, bb = qd8_u4_block_bytes(block, bf16);
  const __m512i m4 = _mm512_set1_epi8(0x0F), ones = _mm512_set1_epi8(1), c128 = _mm512_set1_epi32(128);
  for (int64_t g = 0; g * 16 < N; ++g) {
    const uint8_t* wb = wp + g * nb * bb;
    __m512 acc = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b, wb += bb) {
      const uint8_t* meta = wb + spb * 64;
      const __m512 sc = bf16 ? _mm512_castsi512_ps(_mm512_slli_epi32(
                                   _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(meta))), 16))
                             : _mm512_loadu_ps(meta);
      for (int64_t s = 0; s < spb; s += 2) {
        __m512i sum = _mm512_setzero_si512();
        for (int64_t t = s; t < s + 2; ++t) {
          const __m512i w = _mm512_loadu_si512(wb + t * 64);
          sum = _mm512_dpbusd_epi32(sum, _mm512_and_si512(w, m4), ones);
          sum = _mm512_dpbusd_epi32(sum, _mm512_and_si512(_mm512_srli_epi16(w, 4), m4), ones);
        }
        acc = _mm512_sub_ps(acc, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sum, c128)), sc));
      }
    }
    const int64_t nv = N - g * 16 < 16 ? N - g * 16 : 16;
    _mm512_mask_storeu_ps(ksum + g * 16, static_cast<__mmask16>(nv >= 16 ? 0xFFFF : (1u << nv) - 1), acc);
  }
  return true;
}

// The activations as this file's kernels read them (qgemm_qd8.h): x + 128 (x ^ 0x80),
// for U4 every 8 k as k 0 2 4 6 1 3 5 7 (one vpshufb per 64 bytes). No block sums.
void qd8_prepare_x_avx512(const QGemm& q, uint8_t* xp) {
  const uint8_t* x = reinterpret_cast<const uint8_t*>(q.x);
  const int64_t n = q.M * q.K;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i perm = q.wkind == QWeights::U4 ? _mm512_broadcast_i32x4(_mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15))
                                              : _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    _mm512_storeu_si512(xp + i, _mm512_xor_si512(_mm512_shuffle_epi8(_mm512_loadu_si512(x + i), perm), flip));
  if (i < n) {  // (U4: n is a multiple of 8, so no 8-byte group is cut)
    const __mmask64 k = _bzhi_u64(~0ull, static_cast<unsigned>(n - i));
    _mm512_mask_storeu_epi8(xp + i, k, _mm512_xor_si512(_mm512_shuffle_epi8(_mm512_maskz_loadu_epi8(k, x + i), perm), flip));
  }
}

// Decode (M < 4) of a packed U4 filter over 4 far-apart column ranges at once: groups
// [g0, g1) + s gstep for s < 4, columns 16 g .. 16 g + 15 (all below N: 4 gstep <= N / 16,
// the caller's to check). Four long sequential streams through the filter instead of four
// adjacent groups (a second core's reads then also add more bandwidth, like the f32 GEMV).
void qgemm_qd8_avx512_u4_quarters(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t g0, int64_t g1,
                                  int64_t gstep) {
  // The first kStreamHead bytes of the four streams, requested before the first load: a task
  // starts four streams cold, and the in-loop prefetches run ahead only once it is under way
  // (SmolLM2-135M 8da4w decode, whose tasks hold ~5 KB a stream: step 2.84 -> 2.76 ms and
  // 2.79 -> 2.72 ms, 8 interleaved pairs each, Zen 5 VM; 4 KB: no better; Qwen3-0.6B: a tie)
  if (g0 < g1) {
    const int64_t gb = q.K / q.block * qd8_u4_block_bytes(q.block, q.wp_bf16);
    for (int s = 0; s < 4; ++s) {
      const char* p = reinterpret_cast<const char*>(q.wp + (g0 + s * gstep) * gb);
      for (int64_t o = 0; o < kStreamHead; o += 64) _mm_prefetch(p + o, _MM_HINT_T0);
    }
  }
  for (int64_t m = m0; m < m1; ++m)
    for (int64_t g = g0; g < g1; ++g)
      q.ksum ? tile_u4<1, 4, false>(q, xp, m, g, q.N, gstep) : tile_u4<1, 4, true>(q, xp, m, g, q.N, gstep);
}

// Needs qd8_simd_supported(q) and qd8_prepare_x_avx512. U4: columns [n0, n1) (a first partial group of 16 on the
// scalar reference); I8: columns
// [n0, n0 + 16 k) here, the rest on the scalar reference.
void qgemm_qd8_avx512(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (q.wkind == QWeights::U4) {
    const int64_t a = (n0 + 15) / 16 * 16 < n1 ? (n0 + 15) / 16 * 16 : n1;
    if (a > n0) qgemm_qd8_scalar(q, m0, m1, n0, a);
    if (q.block > 32768) return qgemm_qd8_scalar(q, m0, m1, a, n1);  // 16 x the dot could overflow int32
    return q.ksum ? run_u4<false>(q, xp, m0, m1, a, n1) : run_u4<true>(q, xp, m0, m1, a, n1);
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
#endif  // defined(__x86_64__)
