// qd8 GEMM, aarch64 NEON with the dot-product extension (ARMv8.2 SDOT): the body of
// qgemm_qd8_neon_impl.h with vdotq_s32. This whole file is compiled for armv8.2-a+dotprod;
// qgemm_qd8 calls it only where the CPU has dotprod (ops/isa.h).
#if defined(__aarch64__)
#pragma GCC target("arch=armv8.2-a+dotprod")
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
}  // namespace

void qgemm_qd8_neondot(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  qd8_neon_run<Sdot>(q, m0, m1, n0, n1);
}

}  // namespace pte::xnn
#endif  // defined(__aarch64__)
