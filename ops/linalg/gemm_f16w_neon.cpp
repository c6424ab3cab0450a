// pte-run linalg: fp16-weight fully connected, aarch64 NEON (see gemm_f16w.h): the M <= 8
// dot products (8 weights a step, converted by fcvtl / fcvtl2) and the row conversions
// (fcvtn rounds to nearest even under the default FPCR). armv7 takes the scalar variant.
#if defined(__aarch64__)
#include <arm_neon.h>

#include "ops/linalg/gemm_f16w.h"
#include "ops/util.h"

namespace pte::linalg {

namespace {

template <int M, int R>
void dots_neon(const FcF16w& p, int64_t n0, int64_t n1) {
  const int64_t K = p.K, kv = K / 8 * 8;
  for (int64_t n = n0; n < n1; n += R) {
    const int rows = n1 - n < R ? static_cast<int>(n1 - n) : R;
    const uint16_t* w[R];
    for (int r = 0; r < R; ++r) w[r] = p.w + (n + (r < rows ? r : 0)) * K;  // spare rows re-read row n
    float32x4_t acc[M][R][2];
    for (int i = 0; i < M; ++i)
      for (int r = 0; r < R; ++r) acc[i][r][0] = acc[i][r][1] = vdupq_n_f32(0.0f);
    for (int64_t k = 0; k < kv; k += 8) {
      float32x4_t lo[R], hi[R];
      for (int r = 0; r < R; ++r) {
        const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(w[r] + k));
        lo[r] = vcvt_f32_f16(vget_low_f16(h));
        hi[r] = vcvt_high_f32_f16(h);
      }
      for (int i = 0; i < M; ++i) {
        const float* x = p.x + i * p.x_rs + k;
        const float32x4_t x0 = vld1q_f32(x), x1 = vld1q_f32(x + 4);
        for (int r = 0; r < R; ++r) {
          acc[i][r][0] = vfmaq_f32(acc[i][r][0], x0, lo[r]);
          acc[i][r][1] = vfmaq_f32(acc[i][r][1], x1, hi[r]);
        }
      }
    }
    for (int i = 0; i < M; ++i)
      for (int r = 0; r < rows; ++r) {
        const float s = vaddvq_f32(vaddq_f32(acc[i][r][0], acc[i][r][1])) + f16w_tail_dot(p.x + i * p.x_rs, w[r], kv, K);
        p.y[i * p.y_rs + n + r] = p.bias ? s + p.bias[n + r] : s;
      }
  }
}

}  // namespace

void f16w_dots_neon(const FcF16w& p, int64_t n0, int64_t n1) {
  switch (p.M) {
    case 1: return dots_neon<1, 4>(p, n0, n1);
    case 2: return dots_neon<2, 4>(p, n0, n1);
    case 3: return dots_neon<3, 2>(p, n0, n1);
    case 4: return dots_neon<4, 2>(p, n0, n1);
    case 5: return dots_neon<5, 2>(p, n0, n1);
    case 6: return dots_neon<6, 2>(p, n0, n1);
    case 7: return dots_neon<7, 1>(p, n0, n1);
    case 8: return dots_neon<8, 1>(p, n0, n1);
    default: return f16w_dots_scalar(p, n0, n1);
  }
}

void f16_to_f32_neon(const uint16_t* h, float* f, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const float16x8_t v = vreinterpretq_f16_u16(vld1q_u16(h + i));
    vst1q_f32(f + i, vcvt_f32_f16(vget_low_f16(v)));
    vst1q_f32(f + i + 4, vcvt_high_f32_f16(v));
  }
  for (; i < n; ++i) f[i] = half_bits_to_float(h[i]);
}

// 4 weight rows x 4 k converted (fcvtl) and transposed in registers (trn1 / trn2 on lanes,
// then on 64-bit halves) into 4 sliver rows; K and column tails through the scalar
// conversion, columns nc..31 zero.
void f16_to_sliver_neon(const uint16_t* w, int64_t K, int64_t nc, int64_t kc, float* sl) {
  constexpr int64_t NR = 32;
  const int64_t k4 = kc / 4 * 4, n4 = nc / 4 * 4;
  for (int64_t j = 0; j < n4; j += 4) {
    const uint16_t* r0 = w + j * K;
    int64_t k = 0;
    for (; k < k4; k += 4) {
      const float32x4_t a = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(r0 + k)));
      const float32x4_t b = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(r0 + K + k)));
      const float32x4_t c = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(r0 + 2 * K + k)));
      const float32x4_t d = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(r0 + 3 * K + k)));
      const float32x4_t ab0 = vtrn1q_f32(a, b), ab1 = vtrn2q_f32(a, b);  // (a0 b0 a2 b2), (a1 b1 a3 b3)
      const float32x4_t cd0 = vtrn1q_f32(c, d), cd1 = vtrn2q_f32(c, d);
      float* o = sl + k * NR + j;
      vst1q_f32(o, vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(ab0), vreinterpretq_f64_f32(cd0))));
      vst1q_f32(o + NR, vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(ab1), vreinterpretq_f64_f32(cd1))));
      vst1q_f32(o + 2 * NR, vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(ab0), vreinterpretq_f64_f32(cd0))));
      vst1q_f32(o + 3 * NR, vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(ab1), vreinterpretq_f64_f32(cd1))));
    }
    for (; k < kc; ++k)
      for (int64_t q = 0; q < 4; ++q) sl[k * NR + j + q] = half_bits_to_float(r0[q * K + k]);
  }
  for (int64_t k = 0; k < kc; ++k) {
    for (int64_t j = n4; j < nc; ++j) sl[k * NR + j] = half_bits_to_float(w[j * K + k]);
    for (int64_t j = nc; j < NR; ++j) sl[k * NR + j] = 0.0f;
  }
}

void f32_to_f16_neon(const float* f, uint16_t* h, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const float16x8_t v = vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(f + i)), vld1q_f32(f + i + 4));
    vst1q_u16(h + i, vreinterpretq_u16_f16(v));
  }
  for (; i < n; ++i) h[i] = float_to_half_bits(f[i]);
}

}  // namespace pte::linalg
#endif  // defined(__aarch64__)
