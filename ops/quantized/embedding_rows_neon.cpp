// Row spans of the dequantizing embedding lookup (embedding_rows.h) in aarch64 NEON:
// 16 weights a step, widened to int32, converted exactly to float, then (q - zp) * scale
// as the scalar reference does it (vsubq then vmulq: never a fused multiply-add).
#if defined(__aarch64__)
#include <arm_neon.h>

#include "ops/quantized/embedding_rows.h"

namespace pte::quant {

namespace {

// out[0..16) = (f - zp) * scale of 16 exact floats: subtract, then multiply (never fused).
inline void dequant_store16(float32x4_t f0, float32x4_t f1, float32x4_t f2, float32x4_t f3, float32x4_t vzp,
                            float32x4_t vs, float* out) {
  vst1q_f32(out, vmulq_f32(vsubq_f32(f0, vzp), vs));
  vst1q_f32(out + 4, vmulq_f32(vsubq_f32(f1, vzp), vs));
  vst1q_f32(out + 8, vmulq_f32(vsubq_f32(f2, vzp), vs));
  vst1q_f32(out + 12, vmulq_f32(vsubq_f32(f3, vzp), vs));
}

// out[0..16) from 16 int8 lanes.
inline void store16(int8x16_t q, float32x4_t vzp, float32x4_t vs, float* out) {
  const int16x8_t lo = vmovl_s8(vget_low_s8(q)), hi = vmovl_high_s8(q);
  dequant_store16(vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo))), vcvtq_f32_s32(vmovl_high_s16(lo)),
                  vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))), vcvtq_f32_s32(vmovl_high_s16(hi)), vzp, vs, out);
}

// The same from 16 uint8 lanes (0..255 does not fit int8: widen unsigned).
inline void store16u(uint8x16_t q, float32x4_t vzp, float32x4_t vs, float* out) {
  const uint16x8_t lo = vmovl_u8(vget_low_u8(q)), hi = vmovl_high_u8(q);
  dequant_store16(vcvtq_f32_u32(vmovl_u16(vget_low_u16(lo))), vcvtq_f32_u32(vmovl_high_u16(lo)),
                  vcvtq_f32_u32(vmovl_u16(vget_low_u16(hi))), vcvtq_f32_u32(vmovl_high_u16(hi)), vzp, vs, out);
}

}  // namespace

void embed_row_f32_neon_u8(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out) {
  const float32x4_t vzp = vdupq_n_f32(zp), vs = vdupq_n_f32(scale);
  const uint8_t* r = row + j0;
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) store16u(vld1q_u8(r + k), vzp, vs, out + k);
  if (k < n) embed_row_f32_scalar_u8(row, j0 + k, n - k, zp, scale, out + k);
}

void embed_row_f32_neon_s8(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out) {
  const float32x4_t vzp = vdupq_n_f32(zp), vs = vdupq_n_f32(scale);
  const int8_t* r = reinterpret_cast<const int8_t*>(row) + j0;
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) store16(vld1q_s8(r + k), vzp, vs, out + k);
  if (k < n) embed_row_f32_scalar_s8(row, j0 + k, n - k, zp, scale, out + k);
}

void embed_row_f32_neon_q4(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out) {
  int64_t k = 0;
  if ((j0 & 1) && n > 0) {  // an odd first element: the low nibble of its byte
    embed_row_f32_scalar_q4(row, j0, 1, zp, scale, out);
    k = 1;
  }
  const float32x4_t vzp = vdupq_n_f32(zp), vs = vdupq_n_f32(scale);
  const int8x16_t eight = vdupq_n_s8(8);
  const uint8x16_t low = vdupq_n_u8(0x0F);
  for (; k + 32 <= n; k += 32) {
    const uint8x16_t b = vld1q_u8(row + ((j0 + k) >> 1));  // 16 bytes: elements 2i (high), 2i+1 (low)
    const uint8x16_t hi = vshrq_n_u8(b, 4), lo = vandq_u8(b, low);
    const int8x16_t e0 = vsubq_s8(vreinterpretq_s8_u8(vzip1q_u8(hi, lo)), eight);  // elements 0..15
    const int8x16_t e1 = vsubq_s8(vreinterpretq_s8_u8(vzip2q_u8(hi, lo)), eight);  // elements 16..31
    store16(e0, vzp, vs, out + k);
    store16(e1, vzp, vs, out + k + 16);
  }
  if (k < n) embed_row_f32_scalar_q4(row, j0 + k, n - k, zp, scale, out + k);
}

}  // namespace pte::quant
#endif
