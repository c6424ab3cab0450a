// pte-run XNNPACK delegate: qd8 GEMM / GEMV kernels (8da4w, 8da8w, qc4w).
//
// The arithmetic of XNNPACK's qd8 GEMMs, which the official runtime runs (bit for bit):
//   blockwise (qb4w, q.ksum set): XNNPACK works on xu = x + 128 (zero point zp + 128):
//     acc = ksum[n] * (zp + 128);  acc = fma(dot_b, scale_b, acc) for each block in order;
//     y = acc * x_scale + bias,  with dot_b = sum_{k in b} (x + 128) * w   (exact int32)
//     and ksum[n] = XNNPACK's packed zero-point term (qd8_ksum_u4, computed at load);
//   per channel (qc8w, qc4w; one block):  y = fma(dot * x_scale, scale, bias),
//     dot = sum_k (x - zp) * w   (exact int32).
// In both forms dot_b = sum (x - z) w with z = qd8_dot_zp(q, m) (-128 blockwise, zp else).
// x_scale is the row's dequantization scale (XNNPACK's 1 / multiplier, quantize_qd8.h).
//
// x: dynamically quantized int8 rows (qd8: per-row scale and zero point).
// w: the filter as the .pte stores it (what the scalar reference and the int8 kernels read):
//   QWeights::I8  int8 rows [N][K]                               (qcint8, per channel)
//   QWeights::U4  4-bit rows [N][(K+1)/2], low nibble = even k, value = nibble - 8
//                 (qbint4: blockwise; qcint4: one block of K)
// U4 filters are also repacked at load for the SIMD kernels (qd8_pack_u4), one stream in
// the order decode reads it: per group of 16 columns (N padded to 16), per block, the
// block's weights as 64-byte vectors of 8 k x 16 columns (4 bytes = 8 nibbles per
// column, the file's bytes), then the block's 16 scales (bf16, or fp32 if not bf16-exact).
// The SIMD kernels read only that stream for U4 (AVX-512 and AMX turn the nibbles u into
// signed bytes 16 (u - 8) and need no sums blockwise; AVX2 sums the nibbles on the fly),
// so load keeps no other copy. Otherwise, per block b and column n ([blocks][S],
// column fastest, S = meta_stride >= N, prepared at load; padding columns hold zeros):
//   scale[b * S + n], wsum[b * S + n] = sum_{k in b} w[n, k]  (for the zero-point term),
//   fp32 / int32, or bf16 / int16 for blockwise 4-bit filters.
//
// Kernels (one per file, all bit-identical to the scalar reference):
//   qgemm_qd8_scalar.cpp  the reference, any shape
//   qgemm_qd8_avx2.cpp    AVX2 (4-bit packed: maddubs, 8 columns x 4 rows; 8-bit: widened madd)
//   qgemm_qd8_amx.cpp     AMX-INT8 (blockwise 4-bit packed, block 32 / 64: 16 x 16 tiles, two
//                         blocks a round; 16 rows or more, i.e. prefill)
//   qgemm_qd8_avx512.cpp  AVX-512 VNNI (4-bit packed: vpdpbusd of x + 128 by 16 (u - 8), 16
//                         columns x 8 rows, or 64 columns x 1 row for decode; 8-bit in place:
//                         16 columns x 4 rows), and the AVX-512 packer
//   qgemm_qd8.cpp         ISA choice at run time, activation preparation, packing, threads
//                         (pthreadpool, or the claim pool's helpers: ops/linalg/claim_pool.h)
#pragma once
#include <cstddef>
#include <cstdint>

struct pthreadpool;

namespace pte::xnn {

enum class QWeights : uint8_t { I8, U4 };

struct QGemm {
  int64_t M = 0, N = 0, K = 0;
  const int8_t* x = nullptr;       // [M, K]
  const float* x_scale = nullptr;  // [M]
  const int32_t* x_zp = nullptr;   // [M]
  QWeights wkind = QWeights::I8;
  const uint8_t* w = nullptr;      // N rows of w_row_bytes
  int64_t w_row_bytes = 0;         // K (I8) or (K + 1) / 2 (U4)
  int64_t block = 0;               // divides K (== K for per channel)
  const uint8_t* wp = nullptr;     // U4: the packed filter (qd8_pack_u4) or null
  bool wp_bf16 = false;            // its scales are bf16 (else fp32)
  int64_t meta_stride = 0;         // S: row stride of the [blocks, S] arrays below (0: N)
  // [K / block, S]: fp32 scales and int32 sums, or (blockwise, compact) bf16 scales and
  // int16 sums; set one of each pair. With a packed U4 filter all may be null (the scales
  // are in the stream, the scalar reference then sums the weights itself).
  const int32_t* wsum = nullptr;
  const float* w_scale = nullptr;
  const int16_t* wsum16 = nullptr;
  const uint16_t* w_scale_bf16 = nullptr;
  const float* ksum = nullptr;     // [N] blockwise: the packed zero-point term (qd8_ksum_u4); null: per channel
  const float* bias = nullptr;     // [N] or null
  float* y = nullptr;              // [M, N]
};

// THE float epilogue (qd8_acc_init, qd8_block_step, qd8_output, qd8_output_channel) is in
// qgemm_qd8_epilogue.h: the SIMD files include it inside their target region.
inline int32_t qd8_dot_zp(const QGemm& q, int64_t m) { return q.ksum ? -128 : q.x_zp[m]; }
// XNNPACK's packed zero-point term of one 4-bit filter row (value = nibble - 8): from 0,
// minus (sum of each 16 consecutive weights, never across a block) x its block's scale,
// in k order (its packing for kr = 8, two planes).
float qd8_ksum_u4(const uint8_t* row, int64_t K, int64_t block, const float* block_scales);
// The same for all N columns from the packed filter (qd8_pack_u4), bit-identical; false
// (nothing written) unless block is a multiple of 16. qd8_ksum_u4_packed: AVX-512 where
// the CPU has it, else false.
bool qd8_ksum_u4_packed_avx512(const uint8_t* wp, bool bf16, int64_t N, int64_t K, int64_t block, float* ksum);
bool qd8_ksum_u4_packed(const uint8_t* wp, bool bf16, int64_t N, int64_t K, int64_t block, float* ksum);

inline int64_t qd8_u4_block_bytes(int64_t block, bool bf16) { return block / 8 * 64 + (bf16 ? 32 : 64); }
inline int64_t qd8_meta_stride(const QGemm& q) { return q.meta_stride ? q.meta_stride : q.N; }
// Scale of block b, column n: from the [blocks, S] array or (packed U4 without one) the stream.
inline float qd8_scale(const QGemm& q, int64_t b, int64_t n) {
  const int64_t i = b * qd8_meta_stride(q) + n;
  if (q.w_scale) return q.w_scale[i];
  uint32_t u;
  if (q.w_scale_bf16) {
    u = static_cast<uint32_t>(q.w_scale_bf16[i]) << 16;
  } else {
    const int64_t nb = q.K / q.block, bb = qd8_u4_block_bytes(q.block, q.wp_bf16);
    const uint8_t* meta = q.wp + ((n / 16) * nb + b) * bb + q.block / 8 * 64;
    if (q.wp_bf16) {
      uint16_t h;
      __builtin_memcpy(&h, meta + 2 * (n % 16), 2);
      u = static_cast<uint32_t>(h) << 16;
    } else {
      __builtin_memcpy(&u, meta + 4 * (n % 16), 4);
    }
  }
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
// Weight sum of block b, column n, if there is an array of them (else the kernel sums).
inline bool qd8_has_wsum(const QGemm& q) { return q.wsum || q.wsum16; }
inline int32_t qd8_wsum(const QGemm& q, int64_t b, int64_t n) {
  const int64_t i = b * qd8_meta_stride(q) + n;
  return q.wsum ? q.wsum[i] : q.wsum16[i];
}

// Rows [m0, m1) x columns [n0, n1) of y.
void qgemm_qd8_scalar(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1);

// The packed U4 layout (K % 8 == 0, block % 8 == 0): bytes per block of a group, bytes
// in all. qd8_pack_u4 takes the scales [N, K / block] (bf16-exact when bf16) and also
// writes the block sums of w (nibble - 8) to wsum32 or wsum16 ([K / block, S], S >= N
// rounded up to 16, padding columns 0) for the scalar reference; either may be null.
size_t qd8_packed_u4_bytes(int64_t N, int64_t K, int64_t block, bool bf16);
void qd8_pack_u4(const uint8_t* w, const float* scales, bool bf16, int64_t N, int64_t K, int64_t block, int64_t S,
                 uint8_t* out, int32_t* wsum32, int16_t* wsum16);
void qd8_pack_u4_scalar(const uint8_t* w, const float* scales, bool bf16, int64_t N, int64_t K, int64_t block, int64_t S,
                        uint8_t* out, int32_t* wsum32, int16_t* wsum16);
void qd8_pack_u4_avx512(const uint8_t* w, const float* scales, bool bf16, int64_t N, int64_t K, int64_t block, int64_t S,
                        uint8_t* out, int32_t* wsum32, int16_t* wsum16);

enum class QIsa : uint8_t { Auto, Scalar, Avx2, Avx512, Amx, Neon, NeonDot, NeonI8mm };

// The SIMD kernels read the activations prepared by qd8_prepare_x(q, xp, isa) (scratch):
//   Avx512 and Amx (qd8_prepare_x_avx512): M * K bytes x + 128 (x ^ 0x80), for U4 every 8 k as
//       k 0 2 4 6 1 3 5 7 (the low, then the high nibbles of 4 weight bytes);
//   Avx2: I8: M * K bytes x ^ 0x80; U4: M * K bytes x (signed) in that k order, then (at a
//       64-byte boundary) int32 [M, blocks] 8 (sum_{k in b} x - x_zp block): the kernel
//       computes sum (x - x_zp)(u - 8) as sum u x - x_zp sum u - that, u the nibbles.
bool qd8_simd_supported(const QGemm& q);  // the shape allows a SIMD kernel
void qd8_prepare_x(const QGemm& q, uint8_t* xp, QIsa isa);
void qd8_prepare_x_avx512(const QGemm& q, uint8_t* xp);
const int32_t* qd8_prepared_xcorr(const QGemm& q, const uint8_t* xp);
bool cpu_has_avx512_vnni();
void qgemm_qd8_avx2(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1);
void qgemm_qd8_avx512(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1);
// Packed U4, rows [m0, m1) (< 4 of them), 16-column groups g and g + gstep, g + 2 gstep,
// g + 3 gstep for g in [g0, g1); needs 4 gstep <= N / 16 (decode reads four streams at once).
void qgemm_qd8_avx512_u4_quarters(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t g0, int64_t g1,
                                  int64_t gstep);
// AMX-INT8 (qgemm_qd8_amx.cpp): blockwise packed 4-bit, block 32 or 64, rows in 16s (the
// rest on the AVX-512 kernel); reads the AVX-512 preparation (Amx prepares as Avx512).
bool cpu_has_amx_int8();  // with the OS's permission for the tile state (requested once)
bool qd8_amx_supported(const QGemm& q);
void qgemm_qd8_amx(const QGemm& q, const uint8_t* xp, int64_t m0, int64_t m1, int64_t n0, int64_t n1);

// aarch64 NEON (qgemm_qd8_neon.cpp; NeonDot: with SDOT, needs dotprod): any shape, from
// the filter as stored (no prepared activations), bit-identical to the scalar reference.
void qgemm_qd8_neon(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1);
void qgemm_qd8_neondot(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1);
// NeonI8mm (qgemm_qd8_neoni8mm.cpp, needs dotprod and i8mm): SMMLA on 2 x 4 output tiles
// (edges on SDOT); bit-identical to the scalar reference too. Auto takes it for two rows
// or more (prefill; see qgemm_qd8.cpp), NeonDot for one.
void qgemm_qd8_neoni8mm(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1);

// Whole product, split over the pool's threads (pool may be null) or, with helpers > 0,
// over the caller and that many of the claim pool's helpers (ops/linalg/claim_pool.h; pool unused). scratch: at least
// qgemm_qd8_scratch_bytes(q) bytes (64-byte aligned) or null (then the scalar kernel runs).
size_t qgemm_qd8_scratch_bytes(const QGemm& q);
void qgemm_qd8(pthreadpool* pool, const QGemm& q, void* scratch, QIsa isa = QIsa::Auto, int helpers = 0);

// Up to kQd8GroupMax products of the same activations (x, its scales and zero points, M, K,
// block and filter kind; each its own filter and output) as one parallel region: the
// activations are prepared once and every product's tasks are claimed from one list, so
// small products (an LLM's key / value projections, 192 x 576 on one thread alone) share
// the threads and the region is entered once. Each output element is computed exactly as
// qgemm_qd8 computes it. Products that differ in activations or kernel family, an empty
// one among them, or more than kQd8GroupMax run one after the other (qgemm_qd8 each).
// scratch: the largest qgemm_qd8_scratch_bytes of the products.
constexpr int kQd8GroupMax = 4;
void qgemm_qd8_group(pthreadpool* pool, const QGemm* qs, int count, void* scratch, QIsa isa = QIsa::Auto,
                     int helpers = 0);

}  // namespace pte::xnn
