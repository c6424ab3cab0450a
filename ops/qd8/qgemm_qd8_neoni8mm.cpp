// qd8 GEMM, aarch64 with the int8 matrix-multiply extension (SMMLA, vmmlaq_s32): two rows
// by four columns at a time. One SMMLA multiplies a 2 x 8 block of activations (rows m and
// m + 1, eight k) by a 2 x 8 block of weights (two columns, the same eight k) into the
// 2 x 2 int32 sums; a 2 x 4 tile is two such sums per eight k. Which eight k a register
// holds is free as long as activations and weights agree (integer sums in any order are
// exact), so the operands are built with the fewest instructions:
//   4-bit rows: one 16-byte register holds 16 k of two columns (8 bytes each); its low
//     nibbles are the even k of both columns, its high nibbles the odd k; the activations
//     of the two rows are split the same way (UZP1 / UZP2: even and odd bytes).
//   int8 rows: the low and high eight k of the two columns (and of the two rows), ZIP1 /
//     ZIP2 of 64-bit halves.
// Each weight is unpacked once for two rows (the SDOT kernel unpacks it once per row).
// Weight sums, where the filter has none precomputed, come from SMMLA against ones. The
// epilogue is the four-lane vector one of qgemm_qd8_neon_impl.h (Epilogue4), one per row:
// the reference's roundings lane by lane, so the outputs are bit-identical to
// qgemm_qd8_scalar. Blocks of a length not a multiple of 16, the last 1 to 3 columns and an
// odd last row run the SDOT kernel. This file is compiled for armv8.2-a + dotprod + i8mm;
// qgemm_qd8 calls it only where the CPU has both (ops/isa.h).
#if defined(__aarch64__)
#pragma GCC target("arch=armv8.2-a+dotprod+i8mm")
#include "ops/qd8/qgemm_qd8_neon_impl.h"

namespace pte::xnn {

namespace {

struct Sdot {
  static int32x4_t dot(int32x4_t acc, int8x16_t a, int8x16_t b) { return vdotq_s32(acc, a, b); }
  static int32x4_t dot2_u4(int32x4_t acc, int8x16_t a0, int8x16_t b0, int8x16_t a1, int8x16_t b1) {
    return vdotq_s32(vdotq_s32(acc, a0, b0), a1, b1);
  }
  static int32x4_t sum(int32x4_t acc, int8x16_t v) { return vdotq_s32(acc, v, vdupq_n_s8(1)); }
};

inline int8x16_t zip_lo64(int8x16_t a, int8x16_t b) {
  return vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(a), vreinterpretq_s64_s8(b)));
}
inline int8x16_t zip_hi64(int8x16_t a, int8x16_t b) {
  return vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(a), vreinterpretq_s64_s8(b)));
}
inline int32x4_t zip_lo64(int32x4_t a, int32x4_t b) {
  return vreinterpretq_s32_s64(vzip1q_s64(vreinterpretq_s64_s32(a), vreinterpretq_s64_s32(b)));
}
inline int32x4_t zip_hi64(int32x4_t a, int32x4_t b) {
  return vreinterpretq_s32_s64(vzip2q_s64(vreinterpretq_s64_s32(a), vreinterpretq_s64_s32(b)));
}

// The SMMLA operands of 16 k from k (even): activations of rows x0, x1 (a[0], a[1]) and
// weights of columns w0, w1 (b[0], b[1]), in matching k order.
template <bool U4>
inline void operands_x(const int8_t* x0, const int8_t* x1, int64_t k, int8x16_t a[2]) {
  const int8x16_t v0 = vld1q_s8(x0 + k), v1 = vld1q_s8(x1 + k);
  if constexpr (U4) {
    a[0] = vuzp1q_s8(v0, v1), a[1] = vuzp2q_s8(v0, v1);  // even k, odd k
  } else {
    a[0] = zip_lo64(v0, v1), a[1] = zip_hi64(v0, v1);  // k .. k + 7, k + 8 .. k + 15
  }
}
template <bool U4>
inline void operands_w(const uint8_t* w0, const uint8_t* w1, int64_t k, int8x16_t b[2]) {
  if constexpr (U4) {
    const uint8x16_t v = vcombine_u8(vld1_u8(w0 + k / 2), vld1_u8(w1 + k / 2));
    const int8x16_t eight = vdupq_n_s8(8);
    b[0] = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(v, vdupq_n_u8(15))), eight);  // low nibbles: even k
    b[1] = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(v, 4)), eight);             // high nibbles: odd k
  } else {
    const int8x16_t v0 = vld1q_s8(reinterpret_cast<const int8_t*>(w0 + k));
    const int8x16_t v1 = vld1q_s8(reinterpret_cast<const int8_t*>(w1 + k));
    b[0] = zip_lo64(v0, v1), b[1] = zip_hi64(v0, v1);
  }
}

// Rows m, m + 1 by columns n .. n + 3; block is a multiple of 16.
template <bool U4>
inline void run_2x4(const QGemm& q, int64_t m, int64_t n) {
  const int64_t nb = q.K / q.block;
  const bool has_wsum = qd8_has_wsum(q);
  const int8_t* x0 = q.x + m * q.K;
  const int8_t* x1 = x0 + q.K;
  const uint8_t* w[4];
  float bias[4], ks[4];
  for (int c = 0; c < 4; ++c) {
    w[c] = q.w + (n + c) * q.w_row_bytes;
    bias[c] = q.bias ? q.bias[n + c] : 0.0f;
    ks[c] = q.ksum ? q.ksum[n + c] : 0.0f;
  }
  const int32_t xz0 = qd8_dot_zp(q, m), xz1 = qd8_dot_zp(q, m + 1);
  const int8x16_t ones = vdupq_n_s8(1);
  Epilogue4 out0(q, ks, m), out1(q, ks, m + 1);
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t k0 = b * q.block, k1 = k0 + q.block;
    // lanes of d01: (m, n) (m, n+1) (m+1, n) (m+1, n+1); d23 the same for n + 2, n + 3
    int32x4_t d01 = vdupq_n_s32(0), d23 = vdupq_n_s32(0), s01 = vdupq_n_s32(0), s23 = vdupq_n_s32(0);
    for (int64_t k = k0; k < k1; k += 16) {
      int8x16_t a[2], b01[2], b23[2];
      operands_x<U4>(x0, x1, k, a);
      operands_w<U4>(w[0], w[1], k, b01);
      operands_w<U4>(w[2], w[3], k, b23);
      d01 = vmmlaq_s32(vmmlaq_s32(d01, a[0], b01[0]), a[1], b01[1]);
      d23 = vmmlaq_s32(vmmlaq_s32(d23, a[0], b23[0]), a[1], b23[1]);
      if (!has_wsum) {  // lanes 0, 1 (and 2, 3 again): the column sums
        s01 = vmmlaq_s32(vmmlaq_s32(s01, ones, b01[0]), ones, b01[1]);
        s23 = vmmlaq_s32(vmmlaq_s32(s23, ones, b23[0]), ones, b23[1]);
      }
    }
    const int32x4_t wsums = has_wsum ? qd8_wsums4(q, b, n) : zip_lo64(s01, s23);
    const float32x4_t sc = qd8_scales4(q, b, n);
    out0.block(q, m, vmlsq_n_s32(zip_lo64(d01, d23), wsums, xz0), sc, bias);      // row m: dot - xz * wsum
    out1.block(q, m + 1, vmlsq_n_s32(zip_hi64(d01, d23), wsums, xz1), sc, bias);  // row m + 1
  }
  out0.store(q, m, bias, q.y + m * q.N + n);
  out1.store(q, m + 1, bias, q.y + (m + 1) * q.N + n);
}

template <bool U4>
void run_tiles(const QGemm& q, int64_t m0, int64_t me, int64_t n0, int64_t ne) {
  // columns outer: a group's weights stay in L1 while the tile's row pairs pass over them
  for (int64_t n = n0; n < ne; n += 4)
    for (int64_t m = m0; m < me; m += 2) run_2x4<U4>(q, m, n);
}

}  // namespace

void qgemm_qd8_neoni8mm(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (q.block <= 0 || q.block % 16 != 0) return qd8_neon_run<Sdot>(q, m0, m1, n0, n1);
  const int64_t me = m0 + (m1 - m0) / 2 * 2, ne = n0 + (n1 - n0) / 4 * 4;
  if (q.wkind == QWeights::U4)
    run_tiles<true>(q, m0, me, n0, ne);
  else
    run_tiles<false>(q, m0, me, n0, ne);
  if (ne < n1) qd8_neon_run<Sdot>(q, m0, me, ne, n1);
  if (me < m1) qd8_neon_run<Sdot>(q, me, m1, n0, n1);
}

}  // namespace pte::xnn
#endif  // defined(__aarch64__)
