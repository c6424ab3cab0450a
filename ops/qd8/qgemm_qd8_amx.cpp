// qd8 GEMM, AMX-INT8 (see qgemm_qd8.h): blockwise 4-bit (packed) filters, block 32 or 64,
// 16 rows x 16 columns per tile. The arithmetic of the AVX-512 kernel: tdpbusd multiplies
// the prepared activations x + 128 (A: 16 rows x one block of k, unsigned) by 16 (u - 8)
// (B: the block's packed vectors as the AVX-512 kernel decodes them, the low and the high
// nibble plane of each 8 k as two rows of 4 k x 16 columns, signed) into 16 x the block's
// dot (exact int32; an arithmetic shift by 4 undoes it). The A row's bytes pair with B
// exactly: the prepared order of each 8 k is 0 2 4 6 (the low nibbles) then 1 3 5 7.
// Two blocks a round, software-pipelined (see tile_amx); the float epilogue qd8_block_step
// of each block in order, per lane, as every kernel. A group's B is decoded once per task, for
// all its rows (qgemm_qd8 gives AMX tasks every row). Other rows (M % 16): AVX-512.
// GCC 12: false -Wmaybe-uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#if defined(__x86_64__)  // x86 only: other ISAs take the scalar reference
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstring>

#include "ops/qd8/qgemm_qd8.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8")
#pragma GCC optimize("fp-contract=off")
#endif

#define PTE_QD8_OPS512
#include "ops/qd8/qgemm_qd8_epilogue.h"

namespace pte::xnn {

namespace {

struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0, reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

constexpr int64_t kMaxK = 8192;  // a group's decoded B (16 bytes per k) stays on the stack: 128 KiB

// Group g's B tiles, every block (nb x BLK / 4 rows of 64 bytes): the low plane of each 8 k
// as 16 (u - 8) ((byte << 4 ^ 0x88) & 0xF0), then the high one ((byte ^ 0x88) & 0xF0).
template <int BLK>
void decode_group(const QGemm& q, int64_t g, uint8_t* out) {
  constexpr int SPB = BLK / 8;
  const int64_t nb = q.K / BLK, bb = qd8_u4_block_bytes(BLK, q.wp_bf16);
  const uint8_t* wg = q.wp + g * nb * bb;
  const __m512i c88 = _mm512_set1_epi8(static_cast<char>(0x88)), cf0 = _mm512_set1_epi8(static_cast<char>(0xF0));
  for (int64_t b = 0; b < nb; ++b, out += SPB * 128) {
#pragma GCC unroll 8
    for (int s = 0; s < SPB; ++s) {
      const __m512i w = _mm512_loadu_si512(wg + b * bb + s * 64);
      _mm512_store_si512(out + (2 * s) * 64, _mm512_ternarylogic_epi32(_mm512_slli_epi32(w, 4), c88, cf0, 0x28));
      _mm512_store_si512(out + (2 * s + 1) * 64, _mm512_ternarylogic_epi32(w, c88, cf0, 0x28));
    }
  }
}

// Two blocks a round: tdpbusd of A (tiles 4, 5) by B (6, 7) into C tiles 0, 1 (even
// rounds) or 2, 3 (odd); the next round is issued before this one's epilogue, so the tile
// unit works while the vector units do the float steps. (Tile numbers are immediates.)
#define PTE_AMX_ISSUE(CA, CB, b, cnt)                  \
  do {                                                 \
    _tile_zero(CA);                                    \
    _tile_loadd(4, x0 + (b) * BLK, K);                 \
    _tile_loadd(6, bdec + (b) * BB, 64);               \
    _tile_dpbusd(CA, 4, 6);                            \
    if ((cnt) > 1) {                                   \
      _tile_zero(CB);                                  \
      _tile_loadd(5, x0 + ((b) + 1) * BLK, K);         \
      _tile_loadd(7, bdec + ((b) + 1) * BB, 64);       \
      _tile_dpbusd(CB, 5, 7);                          \
    }                                                  \
  } while (0)
#define PTE_AMX_STORE(CA, CB, buf, cnt)                \
  do {                                                 \
    _tile_stored(CA, (buf)[0], 64);                    \
    if ((cnt) > 1) _tile_stored(CB, (buf)[1], 64);     \
  } while (0)

// rows [m, m + 16) x group g; B from bdec (decode_group).
template <int BLK>
void tile_amx(const QGemm& q, const uint8_t* xp, const uint8_t* bdec, int64_t m, int64_t g, int64_t n1) {
  constexpr int SPB = BLK / 8, BB = SPB * 128;
  const int64_t K = q.K, nb = K / BLK, bb = qd8_u4_block_bytes(BLK, q.wp_bf16), n = g * 16;
  const uint8_t* wg = q.wp + g * nb * bb;
  const uint8_t* x0 = xp + m * K;
  const int64_t nv = n1 - n;
  const __mmask16 keep = static_cast<__mmask16>(nv >= 16 ? 0xFFFF : (1u << nv) - 1);
  alignas(64) int32_t cbuf[2][2][16][16];  // [round parity][block of the round][row][column]
  const __m512 ks = _mm512_maskz_loadu_ps(keep, q.ksum + n);
  __m512 vacc[16];
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r) vacc[r] = qd8_acc_init<Qd8Ops512>(ks, q.x_zp[m + r]);
  const int64_t rounds = (nb + 1) / 2;
  PTE_AMX_ISSUE(0, 1, 0, nb < 2 ? nb : 2);
  for (int64_t k = 0; k < rounds; ++k) {
    const int64_t b = 2 * k, cnt = nb - b < 2 ? nb - b : 2;
    if (k & 1)
      PTE_AMX_STORE(2, 3, cbuf[1], cnt);
    else
      PTE_AMX_STORE(0, 1, cbuf[0], cnt);
    if (k + 1 < rounds) {
      const int64_t b1 = b + 2, cnt1 = nb - b1 < 2 ? nb - b1 : 2;
      if (k & 1)
        PTE_AMX_ISSUE(0, 1, b1, cnt1);
      else
        PTE_AMX_ISSUE(2, 3, b1, cnt1);
    }
    for (int64_t i = 0; i < cnt; ++i) {
      const uint8_t* meta = wg + (b + i) * bb + SPB * 64;
      const __m512 sc = q.wp_bf16 ? _mm512_castsi512_ps(_mm512_slli_epi32(
                                        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(meta))), 16))
                                  : _mm512_loadu_ps(meta);
      const int32_t(*c)[16] = cbuf[k & 1][i];
      // C holds 16 dot (|16 dot| < 2^24: exact in float). Where sc / 16 is exact (sc16 x 16
      // == sc: every finite scale but the tiniest), fma(16 dot, sc / 16, acc) is the very
      // same rounding of dot x sc + acc as qd8_block_step's fma(dot, sc, acc): one
      // operation less per row. Otherwise the shift.
      const __m512 sc16 = _mm512_mul_ps(sc, _mm512_set1_ps(0.0625f));
      if (_mm512_cmp_ps_mask(_mm512_mul_ps(sc16, _mm512_set1_ps(16.0f)), sc, _CMP_EQ_OQ) == 0xFFFF) {
#pragma GCC unroll 16
        for (int r = 0; r < 16; ++r) vacc[r] = qd8_block_step<Qd8Ops512>(vacc[r], _mm512_load_si512(c[r]), sc16);
      } else {
#pragma GCC unroll 16
        for (int r = 0; r < 16; ++r) vacc[r] = qd8_block_step<Qd8Ops512>(vacc[r], _mm512_srai_epi32(_mm512_load_si512(c[r]), 4), sc);
      }
    }
  }
  const __m512 bias = q.bias ? _mm512_maskz_loadu_ps(keep, q.bias + n) : _mm512_setzero_ps();
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r)
    _mm512_mask_storeu_ps(q.y + (m + r) * q.N + n, keep, qd8_output<Qd8Ops512>(vacc[r], _mm512_set1_ps(q.x_scale[m + r]), bias));
}
#undef PTE_AMX_ISSUE
#undef PTE_AMX_STORE

// Per group: its B decoded once, then every 16 rows.
template <int BLK>
void run_amx(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m16, int64_t n0, int64_t n1) {
  TileConfig cfg;
  for (int t = 0; t < 4; ++t) cfg.rows[t] = 16, cfg.colsb[t] = 64;
  for (int t = 4; t < 6; ++t) cfg.rows[t] = 16, cfg.colsb[t] = BLK;
  for (int t = 6; t < 8; ++t) cfg.rows[t] = BLK / 4, cfg.colsb[t] = 64;
  alignas(64) uint8_t bdec[kMaxK * 16];
  _tile_loadconfig(&cfg);
  // (GCC's tileloadd asm does not say it reads memory: the compiler barriers keep the
  // prepared activations' and bdec's stores before the tile loads)
  __asm__ volatile("" ::: "memory");
  for (int64_t g = n0 / 16; g * 16 < n1; ++g) {
    decode_group<BLK>(q, g, bdec);
    __asm__ volatile("" ::: "memory");
    for (int64_t m = m0; m < m16; m += 16) tile_amx<BLK>(q, xp, bdec, m, g, n1);
  }
  _tile_release();
}

}  // namespace

bool qd8_amx_supported(const QGemm& q) {
  return q.wkind == QWeights::U4 && q.wp && q.ksum && (q.block == 32 || q.block == 64) && q.K % q.block == 0 &&
         q.K <= kMaxK;
}

// Needs qd8_amx_supported(q), cpu_has_amx_int8() and qd8_prepare_x_avx512. Rows in 16s
// here; the other rows and a first partial group of 16 columns on the AVX-512 kernel.
void qgemm_qd8_amx(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  const int64_t a = (n0 + 15) / 16 * 16 < n1 ? (n0 + 15) / 16 * 16 : n1;
  const int64_t m16 = m0 + (m1 - m0) / 16 * 16;
  if (a > n0) qgemm_qd8_avx512(q, xp, m0, m1, n0, a);
  if (m16 > m0 && a < n1) {
    if (q.block == 32)
      run_amx<32>(q, xp, m0, m16, a, n1);
    else
      run_amx<64>(q, xp, m0, m16, a, n1);
  }
  if (m16 < m1 && a < n1) qgemm_qd8_avx512(q, xp, m16, m1, a, n1);
}

}  // namespace pte::xnn

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif  // defined(__x86_64__)
