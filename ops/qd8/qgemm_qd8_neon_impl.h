// qd8 GEMM, NEON (aarch64; armv7 with NEON and VFPv4 too): the kernel body shared by qgemm_qd8_neon.cpp (widening
// multiplies), qgemm_qd8_neondot.cpp (SDOT; that file is compiled for ARMv8.2-A +
// dotprod, this code then with it) and the i8mm kernel's edges. See qgemm_qd8_neon.cpp.
// Internal header.
#pragma once
#include <arm_neon.h>

#include "ops/qd8/qgemm_qd8.h"
#include "ops/qd8/qgemm_qd8_epilogue.h"

namespace pte::xnn {

namespace {

// The AArch64-only intrinsics this body uses, in armv7 NEON (exact integer adds either way).
#if defined(__aarch64__)
inline int32_t qd8_addv(int32x4_t v) { return vaddvq_s32(v); }
inline int32x4_t qd8_padd(int32x4_t a, int32x4_t b) { return vpaddq_s32(a, b); }
#else
inline int32_t qd8_addv(int32x4_t v) {
  const int32x2_t p = vpadd_s32(vget_low_s32(v), vget_high_s32(v));
  return vget_lane_s32(vpadd_s32(p, p), 0);
}
inline int32x4_t qd8_padd(int32x4_t a, int32x4_t b) {
  return vcombine_s32(vpadd_s32(vget_low_s32(a), vget_high_s32(a)), vpadd_s32(vget_low_s32(b), vget_high_s32(b)));
}
#endif

// 16 weights from k (a multiple of 16 within the row) as int8.
inline int8x16_t load_w16(const QGemm& q, const uint8_t* row, int64_t k) {
  if (q.wkind == QWeights::I8) return vld1q_s8(reinterpret_cast<const int8_t*>(row + k));
  const uint8x8_t b = vld1_u8(row + k / 2);
  const uint8x8x2_t z = vzip_u8(vand_u8(b, vdup_n_u8(15)), vshr_n_u8(b, 4));  // k order: lo0 hi0 lo1 hi1 ...
  return vsubq_s8(vreinterpretq_s8_u8(vcombine_u8(z.val[0], z.val[1])), vdupq_n_s8(8));
}

inline int32_t weight(const QGemm& q, const uint8_t* row, int64_t k) {
  if (q.wkind == QWeights::I8) return static_cast<int8_t>(row[k]);
  const uint8_t b = row[k >> 1];
  return static_cast<int32_t>((k & 1) ? (b >> 4) : (b & 15)) - 8;
}

// The scales and (where the filter has them) weight sums of block b, columns n .. n + 3,
// as qd8_scale / qd8_wsum read them: one vector load from the [blocks, S] arrays or from
// the packed U4 stream's block metadata (16 columns a group; bf16 scales widened by a
// shift: exact), else (four columns across two groups) four qd8_scale reads.
inline float32x4_t qd8_scales4(const QGemm& q, int64_t b, int64_t n) {
  const int64_t i = b * qd8_meta_stride(q) + n;
  if (q.w_scale) return vld1q_f32(q.w_scale + i);
  if (q.w_scale_bf16) return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(q.w_scale_bf16 + i), 16));
  if (n % 16 <= 12) {
    const int64_t nb = q.K / q.block, bb = qd8_u4_block_bytes(q.block, q.wp_bf16);
    const uint8_t* meta = q.wp + ((n / 16) * nb + b) * bb + q.block / 8 * 64;
    if (q.wp_bf16) return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(reinterpret_cast<const uint16_t*>(meta) + n % 16), 16));
    return vld1q_f32(reinterpret_cast<const float*>(meta) + n % 16);
  }
  float sc[4];
  for (int c = 0; c < 4; ++c) sc[c] = qd8_scale(q, b, n + c);
  return vld1q_f32(sc);
}
inline int32x4_t qd8_wsums4(const QGemm& q, int64_t b, int64_t n) {
  const int64_t i = b * qd8_meta_stride(q) + n;
  return q.wsum ? vld1q_s32(q.wsum + i) : vmovl_s16(vld1_s16(q.wsum16 + i));
}

// The float epilogue of four columns (qd8_acc_init, then per block qd8_block_step or, per
// channel, qd8_output_channel, then qd8_output): on aarch64 as four lanes; on armv7 one
// output at a time on VFP, because armv7's NEON flushes subnormals to zero whatever FPSCR
// says. The same roundings as the reference either way.
#if defined(__aarch64__)
// The epilogue's ops, one output per lane (as Qd8Ops1 per output: the same roundings).
struct Qd8OpsNeon {
  using F = float32x4_t;
  using I = int32x4_t;
  static F add(F a, F b) { return vaddq_f32(a, b); }
  static F mul(F a, F b) { return vmulq_f32(a, b); }
  static F fma(F a, F b, F c) { return vfmaq_f32(c, a, b); }  // a * b + c, one rounding
  static F splat(float v) { return vdupq_n_f32(v); }
  static F to_float(I v) { return vcvtq_f32_s32(v); }
};

struct Epilogue4 {
  float32x4_t acc;
  Epilogue4(const QGemm& q, const float* ksum, int64_t m)
      : acc(q.ksum ? qd8_acc_init<Qd8OpsNeon>(vld1q_f32(ksum), q.x_zp[m]) : vdupq_n_f32(0.0f)) {}
  void block(const QGemm& q, int64_t m, int32x4_t dot, float32x4_t scale, const float* bias) {
    acc = q.ksum ? qd8_block_step<Qd8OpsNeon>(acc, dot, scale)
                 : qd8_output_channel<Qd8OpsNeon>(dot, vdupq_n_f32(q.x_scale[m]), scale, vld1q_f32(bias));
  }
  void store(const QGemm& q, int64_t m, const float* bias, float* y) const {
    vst1q_f32(y, q.ksum ? qd8_output<Qd8OpsNeon>(acc, vdupq_n_f32(q.x_scale[m]), vld1q_f32(bias)) : acc);
  }
};
#else
struct Epilogue4 {
  float acc[4];
  Epilogue4(const QGemm& q, const float* ksum, int64_t m) {
    for (int c = 0; c < 4; ++c) acc[c] = q.ksum ? qd8_acc_init<Qd8Ops1>(ksum[c], q.x_zp[m]) : 0.0f;
  }
  void block(const QGemm& q, int64_t m, int32x4_t dot, float32x4_t vscale, const float* bias) {
    int32_t d[4];
    float scale[4];
    vst1q_s32(d, dot);
    vst1q_f32(scale, vscale);  // (a copy: no arithmetic on armv7's NEON)
    for (int c = 0; c < 4; ++c)
      acc[c] = q.ksum ? qd8_block_step<Qd8Ops1>(acc[c], d[c], scale[c])
                      : qd8_output_channel<Qd8Ops1>(d[c], q.x_scale[m], scale[c], bias[c]);
  }
  void store(const QGemm& q, int64_t m, const float* bias, float* y) const {
    for (int c = 0; c < 4; ++c) y[c] = q.ksum ? qd8_output<Qd8Ops1>(acc[c], q.x_scale[m], bias[c]) : acc[c];
  }
};
#endif

// Four columns n .. n + 3 of row m at once (block a multiple of 16, U4 blocks from even k):
// each activation load serves the four weight rows, the four columns' block sums are
// reduced together (pairwise adds: exact integers), then Epilogue4. 4-bit blocks of a
// multiple of 32 take 32 k a step with the nibbles unsplit (see below).
template <class D>
inline void qd8_neon_4cols(const QGemm& q, int64_t m, int64_t n) {
  const int64_t nb = q.K / q.block;
  const bool has_wsum = qd8_has_wsum(q);
  const int8_t* x = q.x + m * q.K;
  const int32_t xz = qd8_dot_zp(q, m);
  const uint8_t* w[4];
  float bias[4], ks[4];
  for (int c = 0; c < 4; ++c) {
    w[c] = q.w + (n + c) * q.w_row_bytes;
    bias[c] = q.bias ? q.bias[n + c] : 0.0f;
    ks[c] = q.ksum ? q.ksum[n + c] : 0.0f;
  }
  const int8x16_t ones = vdupq_n_s8(1), eight = vdupq_n_s8(8);  // (D::dot2_u4, D::sum: see qgemm_qd8_neon.cpp)
  const uint8x16_t low = vdupq_n_u8(15);
  const bool split = q.wkind == QWeights::U4 && q.block % 32 == 0;
  Epilogue4 out(q, ks, m);
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t k0 = b * q.block, k1 = k0 + q.block;
    int32x4_t vd[4], vs[4];
    for (int c = 0; c < 4; ++c) vd[c] = vdupq_n_s32(0), vs[c] = vdupq_n_s32(0);
    if (split) {
      // 4-bit, 32 k a step: 16 bytes of a column hold the even k in their low nibbles and
      // the odd k in their high nibbles; the 32 activations are split the same way (the
      // integer sums do not depend on the order of k), so no interleaving of the nibbles
      for (int64_t k = k0; k < k1; k += 32) {
        const int8x16x2_t xv = vuzpq_s8(vld1q_s8(x + k), vld1q_s8(x + k + 16));  // even k, odd k
        for (int c = 0; c < 4; ++c) {
          const uint8x16_t wb = vld1q_u8(w[c] + k / 2);
          const int8x16_t we = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(wb, low)), eight);
          const int8x16_t wo = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(wb, 4)), eight);
          vd[c] = D::dot2_u4(vd[c], xv.val[0], we, xv.val[1], wo);
          if (!has_wsum) vs[c] = D::sum(vs[c], vaddq_s8(we, wo));  // |we + wo| <= 16
        }
      }
    } else {
      for (int64_t k = k0; k < k1; k += 16) {
        const int8x16_t xv = vld1q_s8(x + k);
        for (int c = 0; c < 4; ++c) {
          const int8x16_t wv = load_w16(q, w[c], k);
          vd[c] = D::dot(vd[c], xv, wv);
          if (!has_wsum) vs[c] = D::dot(vs[c], ones, wv);
        }
      }
    }
    const int32x4_t dots = qd8_padd(qd8_padd(vd[0], vd[1]), qd8_padd(vd[2], vd[3]));  // lane c: column c
    const int32x4_t wsums = has_wsum ? qd8_wsums4(q, b, n) : qd8_padd(qd8_padd(vs[0], vs[1]), qd8_padd(vs[2], vs[3]));
    out.block(q, m, vmlsq_n_s32(dots, wsums, xz), qd8_scales4(q, b, n), bias);  // dot - xz * wsum
  }
  out.store(q, m, bias, q.y + m * q.N + n);
}

template <class D>
inline void qd8_neon_run(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (q.block > 0 && q.block % 16 == 0 && n1 - n0 >= 4) {  // four columns at a time, the rest below
    const int64_t n4 = n0 + (n1 - n0) / 4 * 4;
    for (int64_t m = m0; m < m1; ++m)
      for (int64_t n = n0; n < n4; n += 4) qd8_neon_4cols<D>(q, m, n);
    n0 = n4;
  }
  const int64_t nb = q.block ? q.K / q.block : 0;
  const bool has_wsum = qd8_has_wsum(q);
  const int8x16_t ones = vdupq_n_s8(1);
  for (int64_t m = m0; m < m1; ++m) {
    const int8_t* x = q.x + m * q.K;
    const int32_t xz = qd8_dot_zp(q, m);
    for (int64_t n = n0; n < n1; ++n) {
      const uint8_t* w = q.w + n * q.w_row_bytes;
      const float bias = q.bias ? q.bias[n] : 0.0f;
      float acc = q.ksum ? qd8_acc_init<Qd8Ops1>(q.ksum[n], q.x_zp[m]) : 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        const int64_t k0 = b * q.block, k1 = k0 + q.block;
        // (4-bit rows: vectors from whole bytes only, i.e. an even first k)
        const int64_t kv = q.wkind == QWeights::U4 && (k0 & 1) ? k0 : k0 + q.block / 16 * 16;
        int32x4_t vd = vdupq_n_s32(0), vs = vdupq_n_s32(0);
        for (int64_t k = k0; k < kv; k += 16) {
          const int8x16_t wv = load_w16(q, w, k);
          vd = D::dot(vd, vld1q_s8(x + k), wv);
          if (!has_wsum) vs = D::dot(vs, ones, wv);
        }
        int32_t dot = qd8_addv(vd), wsum = qd8_addv(vs);
        for (int64_t k = kv; k < k1; ++k) {
          const int32_t wk = weight(q, w, k);
          dot += static_cast<int32_t>(x[k]) * wk, wsum += wk;
        }
        dot -= xz * (has_wsum ? qd8_wsum(q, b, n) : wsum);
        if (!q.ksum) {  // per channel: one block
          acc = qd8_output_channel<Qd8Ops1>(dot, q.x_scale[m], qd8_scale(q, b, n), bias);
          continue;
        }
        acc = qd8_block_step<Qd8Ops1>(acc, dot, qd8_scale(q, b, n));
      }
      q.y[m * q.N + n] = q.ksum ? qd8_output<Qd8Ops1>(acc, q.x_scale[m], bias) : acc;
    }
  }
}

}  // namespace
}  // namespace pte::xnn
