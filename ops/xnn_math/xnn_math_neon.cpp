// pte-run: the aarch64 NEON forms of the XNNPACK-style transcendental kernels
// (xnn_math_kernels.h with 4-lane vectors and fused multiply-adds: the arithmetic of the
// x86 FMA3 kernels, sigmoid as their rr1_p5 form) and of the softmax row. Not XNNPACK's
// own ARM kernels (which use other reductions): the promise here is speed and the
// accuracy of the FMA3 form; xnn_math_test.cpp checks them bit-equal to the lane-by-lane
// emulation of that form (LaneOps<true, false> in xnn_math.cpp), whose min / max keep the
// x86 operand order and whose getexp is the FMA3 kernels' bit trick.
#if defined(__aarch64__)
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "ops/xnn_math/xnn_math_isa.h"

namespace pte::xnn {
namespace {

struct NeonOps {
  using V = float32x4_t;
  static constexpr bool kFma = true;
  static constexpr int kLanes = 4;
  static V load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, V v) { vst1q_f32(p, v); }
  static V load_tail(const float* p, int k) {
    float b[4] = {};
    std::memcpy(b, p, static_cast<size_t>(k) * sizeof(float));
    return vld1q_f32(b);
  }
  static void store_tail(float* p, V v, int k) {
    float b[4];
    vst1q_f32(b, v);
    std::memcpy(p, b, static_cast<size_t>(k) * sizeof(float));
  }
  static V add_tail(V acc, V f, int k) {  // f in the first k lanes only
    const int32_t lanes[4] = {0, 1, 2, 3};
    const uint32x4_t m = vcltq_s32(vld1q_s32(lanes), vdupq_n_s32(k));
    return vaddq_f32(acc, vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(f), m)));
  }
  static V c(float v) { return vdupq_n_f32(v); }
  static V bits(uint32_t u) { return vreinterpretq_f32_u32(vdupq_n_u32(u)); }
  static V add(V a, V b) { return vaddq_f32(a, b); }
  static V sub(V a, V b) { return vsubq_f32(a, b); }
  static V mul(V a, V b) { return vmulq_f32(a, b); }
  static V div(V a, V b) { return vdivq_f32(a, b); }
  static V fmadd(V a, V b, V c) { return vfmaq_f32(c, a, b); }  // a * b + c, one rounding
  // x86 operand order: a < b ? a : b (NaN: b), a > b ? a : b
  static V min(V a, V b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
  static V max(V a, V b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
  static V bor(V a, V b) { return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b))); }
  static V band(V a, V b) { return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b))); }
  static V sll23(V a) { return vreinterpretq_f32_s32(vshlq_n_s32(vreinterpretq_s32_f32(a), 23)); }
  static V zero_if_lt(V f, V a, V b) {
    return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(f), vcltq_f32(a, b)));
  }
  static V blend_sign(V if_neg, V if_pos, V x) {
    const uint32x4_t neg = vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_f32(x), 31));
    return vbslq_f32(neg, if_neg, if_pos);
  }
  static V getexp(V a) {
    // the FMA3 kernels' bit trick (LaneOps::getexp in xnn_math.cpp): zeros get their sign
    // bit set (-inf), then sign and exponent shifted into the mantissa of 256.0f, minus 383
    const uint32x4_t zero = vceqq_f32(a, vdupq_n_f32(0.0f));  // (FPCR.FZ: denormals too)
    const uint32x4_t u = vorrq_u32(vandq_u32(zero, vdupq_n_u32(0x80000000u)), vreinterpretq_u32_f32(a));
    const int32x4_t e = vshrq_n_s32(vreinterpretq_s32_u32(vandq_u32(u, vdupq_n_u32(0xFF800000u))), 8);
    const float32x4_t f = vreinterpretq_f32_u32(vorrq_u32(vdupq_n_u32(0x43800000u), vreinterpretq_u32_s32(e)));  // 256.0f | e
    return vsubq_f32(f, vdupq_n_f32(383.0f));
  }
};

}  // namespace
}  // namespace pte::xnn

#include "ops/xnn_math/xnn_math_kernels.h"

namespace pte::xnn::isa {

void unary_neon(Fn f, const float* x, float* y, int64_t n) { unary_kernel<NeonOps>(f, x, y, n); }

void softmax_neon(const float* x, float* y, int64_t n) { softmax_kernel<NeonOps>(x, y, n); }

}  // namespace pte::xnn::isa
#endif  // defined(__aarch64__)
