// qd8 GEMM, aarch64 with the int8 matrix-multiply extension (SMMLA, vmmlaq_s32): two rows
// by two columns at a time. One SMMLA multiplies a 2 x 8 block of activations (rows m and
// m + 1, eight k) by a 2 x 8 block of weights (columns n and n + 1, the same k) into the
// 2 x 2 int32 sums, twice the multiply-adds of an SDOT per instruction; the weights are
// read from the filter as stored (4-bit rows unpacked as in qgemm_qd8_neon_impl.h) and
// each 16-weight load serves two rows. Weight sums, where the filter has none precomputed,
// come from one more SMMLA against ones. The integer sums are exact and each output then
// takes the reference's float epilogue in block order: bit-identical to qgemm_qd8_scalar.
// Blocks of a length not a multiple of 16, and an odd last row or column, run the SDOT
// kernel. This file is compiled for armv8.2-a + dotprod + i8mm; qgemm_qd8 calls it only
// where the CPU has both (ops/isa.h), and only when asked for (QIsa::NeonI8mm): under qemu it
// executed more instructions than the four-column SDOT kernel (a 6-token SmolLM2 prefill on
// "max": 1.947 G against 1.755 G for the run), since its 2x2 blocks pay a scalar epilogue
// per output. Two rows by four columns with a vector epilogue would be its next form.
#if defined(__aarch64__)
#pragma GCC target("arch=armv8.2-a+dotprod+i8mm")
#include "ops/qd8/qgemm_qd8_neon_impl.h"

namespace pte::xnn {

namespace {

struct Sdot {
  static int32x4_t dot(int32x4_t acc, int8x16_t a, int8x16_t b) { return vdotq_s32(acc, a, b); }
};

// Rows m, m + 1 by columns n, n + 1; block is a multiple of 16.
inline void run_2x2(const QGemm& q, int64_t m, int64_t n) {
  const int64_t nb = q.K / q.block;
  const bool has_wsum = qd8_has_wsum(q);
  const int8_t* x0 = q.x + m * q.K;
  const int8_t* x1 = x0 + q.K;
  const uint8_t* w0 = q.w + n * q.w_row_bytes;
  const uint8_t* w1 = w0 + q.w_row_bytes;
  const int32_t xz[2] = {qd8_dot_zp(q, m), qd8_dot_zp(q, m + 1)};
  const float bias[2] = {q.bias ? q.bias[n] : 0.0f, q.bias ? q.bias[n + 1] : 0.0f};
  float acc[2][2];
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c) acc[r][c] = q.ksum ? qd8_acc_init<Qd8Ops1>(q.ksum[n + c], q.x_zp[m + r]) : 0.0f;
  const int8x16_t ones = vdupq_n_s8(1);
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t k0 = b * q.block, k1 = k0 + q.block;
    int32x4_t vd = vdupq_n_s32(0), vs = vdupq_n_s32(0);  // lanes: (m, n) (m, n+1) (m+1, n) (m+1, n+1)
    for (int64_t k = k0; k < k1; k += 16) {
      const int8x16_t a0 = vld1q_s8(x0 + k), a1 = vld1q_s8(x1 + k);
      const int8x16_t b0 = load_w16(q, w0, k), b1 = load_w16(q, w1, k);
      const int8x16_t alo = vcombine_s8(vget_low_s8(a0), vget_low_s8(a1)), ahi = vcombine_s8(vget_high_s8(a0), vget_high_s8(a1));
      const int8x16_t blo = vcombine_s8(vget_low_s8(b0), vget_low_s8(b1)), bhi = vcombine_s8(vget_high_s8(b0), vget_high_s8(b1));
      vd = vmmlaq_s32(vmmlaq_s32(vd, alo, blo), ahi, bhi);
      if (!has_wsum) vs = vmmlaq_s32(vmmlaq_s32(vs, ones, blo), ones, bhi);  // lanes 0, 1: the column sums
    }
    int32_t d[4], s[4];
    vst1q_s32(d, vd);
    vst1q_s32(s, vs);
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c) {
        const int32_t wsum = has_wsum ? qd8_wsum(q, b, n + c) : s[c];
        const int32_t dot = d[2 * r + c] - xz[r] * wsum;
        if (!q.ksum)  // per channel: one block
          acc[r][c] = qd8_output_channel<Qd8Ops1>(dot, q.x_scale[m + r], qd8_scale(q, b, n + c), bias[c]);
        else
          acc[r][c] = qd8_block_step<Qd8Ops1>(acc[r][c], dot, qd8_scale(q, b, n + c));
      }
  }
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c)
      q.y[(m + r) * q.N + n + c] = q.ksum ? qd8_output<Qd8Ops1>(acc[r][c], q.x_scale[m + r], bias[c]) : acc[r][c];
}

}  // namespace

void qgemm_qd8_neoni8mm(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (q.block <= 0 || q.block % 16 != 0) return qd8_neon_run<Sdot>(q, m0, m1, n0, n1);
  const int64_t me = m0 + (m1 - m0) / 2 * 2, ne = n0 + (n1 - n0) / 2 * 2;
  // columns outer: a pair's weights stay in L1 while the tile's row pairs pass over them
  for (int64_t n = n0; n < ne; n += 2)
    for (int64_t m = m0; m < me; m += 2) run_2x2(q, m, n);
  if (ne < n1) qd8_neon_run<Sdot>(q, m0, me, ne, n1);
  if (me < m1) qd8_neon_run<Sdot>(q, me, m1, n0, n1);
}

}  // namespace pte::xnn
#endif  // defined(__aarch64__)
