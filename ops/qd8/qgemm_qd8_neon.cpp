// qd8 GEMM, NEON (see qgemm_qd8.h; aarch64, and armv7 with NEON and VFPv4): the scalar reference's loops with each
// block's integer dot product (and weight sum) 16 k at a time in vector registers, read
// from the filter as the file stores it (no packing, no prepared activations):
//   I8: 16 weights; U4: 8 bytes, low and high nibbles interleaved back into k order, - 8;
//   U4 blocks of a multiple of 32, four columns at once: 16 bytes, the low nibbles (even k)
//   and high nibbles (odd k) kept apart, the activations split to match (see
//   qgemm_qd8_neon_impl.h), their products summed in int16 four at a time (dot2_u4).
//   dotprod (ARMv8.2 SDOT, vdotq_s32): four int8 products summed per int32 lane;
//   otherwise: widening multiplies (vmull_s8, |product| <= 2^14) pairwise-added into int32.
// The dot products are exact int32 either way and the float epilogue is the reference's
// (qd8_block_step / qd8_output per output, in block order), so the result is bit-identical
// to qgemm_qd8_scalar. Blocks of a length not a multiple of 16 finish the block scalar.
#if defined(__aarch64__) || defined(__arm__)
#if defined(__arm__)
// armhf's baseline (ARMv7, VFPv3-D16) has no NEON: this file is compiled for NEON with
// VFPv4 (fused multiply-adds), and qgemm_qd8 calls it only where the CPU has both (isa.h)
#pragma GCC target("fpu=neon-vfpv4")
#endif
#include "ops/qd8/qgemm_qd8_neon_impl.h"

namespace pte::xnn {

namespace {
struct Mull {  // dot of 16 int8 pairs into 4 int32 lanes without SDOT
  static int32x4_t dot(int32x4_t acc, int8x16_t a, int8x16_t b) {
    acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(a), vget_low_s8(b)));
    return vpadalq_s16(acc, vmull_s8(vget_high_s8(a), vget_high_s8(b)));
  }
  // Two such dots where b0, b1 are 4-bit values (-8 .. 7): four products a lane, each at
  // most 128 * 8 in magnitude, sum exactly in int16 (<= 4096) before one widening add.
  static int32x4_t dot2_u4(int32x4_t acc, int8x16_t a0, int8x16_t b0, int8x16_t a1, int8x16_t b1) {
    int16x8_t p = vmull_s8(vget_low_s8(a0), vget_low_s8(b0));
    p = vmlal_s8(p, vget_high_s8(a0), vget_high_s8(b0));
    p = vmlal_s8(p, vget_low_s8(a1), vget_low_s8(b1));
    p = vmlal_s8(p, vget_high_s8(a1), vget_high_s8(b1));
    return vpadalq_s16(acc, p);
  }
  // The sum of 16 int8 into 4 int32 lanes (pairwise widening adds).
  static int32x4_t sum(int32x4_t acc, int8x16_t v) { return vpadalq_s16(acc, vpaddlq_s8(v)); }
};
}  // namespace

void qgemm_qd8_neon(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  qd8_neon_run<Mull>(q, m0, m1, n0, n1);
}

}  // namespace pte::xnn
#endif  // defined(__aarch64__) || defined(__arm__)
