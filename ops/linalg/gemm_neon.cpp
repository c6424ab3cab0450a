// pte-run linalg: NEON f32 kernels (see gemm.h; aarch64, and armv7 with NEON and VFPv4): a 6x16 GEMM micro-kernel over the
// shared blocking of gemm_impl.h, the M == 1 GEMV (4-lane partial sums, two accumulators
// per weight row) and the 2 <= M <= 8 small-M dot products. NEON (Advanced SIMD) is part
// of every aarch64 CPU: gemm_f32 takes these wherever pte-run is built for aarch64.
// Fused multiply-adds (vfmaq_f32), as the AVX2 kernels: within the reference's tolerance,
// not bit-equal to the scalar loops (which round each product).
#if defined(__aarch64__) || defined(__arm__)
#if defined(__arm__)
// armhf's baseline (ARMv7, VFPv3-D16) has no NEON: this file is compiled for NEON with
// VFPv4 (vfmaq_f32), and gemm_f32 takes it only where the CPU has both (ops/isa.h). 16 q
// registers there, so the 6x16 micro-kernel spills; the GEMV and small-M dots do not.
#pragma GCC target("fpu=neon-vfpv4")
#endif
#include <arm_neon.h>

#include "ops/linalg/gemm.h"
#include "ops/linalg/gemm_impl.h"

namespace pte::linalg {

using namespace detail;

namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;  // four q registers

// 6 rows x 16 columns in 24 accumulators; rows past `mr` read row 0 again and are
// discarded at the store.
void ukernel_neon(int mr, int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, int64_t b_rs,
                  float* c, int64_t c_rs, int64_t c_cs, int64_t nc, bool first, float alpha) {
  const float* ar[kMr];
  block_rows(a, a_rs, mr, ar);
  float32x4_t acc[kMr][4];
  for (int r = 0; r < kMr; ++r)
    for (int v = 0; v < 4; ++v) acc[r][v] = vdupq_n_f32(0.0f);
  for (int64_t k = 0; k < kc; ++k) {
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8), b3 = vld1q_f32(b + 12);
    b += b_rs;
    const int64_t o = k * a_cs;
    for (int r = 0; r < kMr; ++r) {
      const float32x4_t av = vdupq_n_f32(ar[r][o]);
      acc[r][0] = vfmaq_f32(acc[r][0], av, b0);
      acc[r][1] = vfmaq_f32(acc[r][1], av, b1);
      acc[r][2] = vfmaq_f32(acc[r][2], av, b2);
      acc[r][3] = vfmaq_f32(acc[r][3], av, b3);
    }
  }
  alignas(16) float t[kMr * kNr];
  const float32x4_t va = vdupq_n_f32(alpha);
  for (int r = 0; r < kMr; ++r)
    for (int v = 0; v < 4; ++v) vst1q_f32(t + r * kNr + 4 * v, vmulq_f32(acc[r][v], va));
  store_tile<kNr>(t, mr, nc, c, c_rs, c_cs, first);
}

#if defined(__aarch64__)
inline float hsum(float32x4_t v) { return vaddvq_f32(v); }
#else
inline float hsum(float32x4_t v) {
  const float32x2_t p = vadd_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpadd_f32(p, p), 0);
}
#endif

// The vector loops of the GEMV (gemv_tile in gemm_impl.h): per weight row two 4-float
// partial sums over 8 k at a time, then the K tail in order.
struct NeonGemv {
  static constexpr int kDotRows = 4;
  template <int R>
  static void dots(const float* a, const float* const* w, int64_t K, float* out, int64_t /*ahead*/) {
    float32x4_t s0[R], s1[R];
    for (int r = 0; r < R; ++r) s0[r] = vdupq_n_f32(0.0f), s1[r] = s0[r];
    int64_t k = 0;
    for (; k + 8 <= K; k += 8) {
      const float32x4_t a0 = vld1q_f32(a + k), a1 = vld1q_f32(a + k + 4);
      for (int r = 0; r < R; ++r) {
        s0[r] = vfmaq_f32(s0[r], a0, vld1q_f32(w[r] + k));
        s1[r] = vfmaq_f32(s1[r], a1, vld1q_f32(w[r] + k + 4));
      }
    }
    for (int r = 0; r < R; ++r) out[r] = hsum(vaddq_f32(s0[r], s1[r]));
    for (; k < K; ++k)
      for (int r = 0; r < R; ++r) out[r] += a[k] * w[r][k];
  }
  static void axpy(float* acc, const float* b, float x, int64_t n) {
    const float32x4_t xv = vdupq_n_f32(x);
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) vst1q_f32(acc + j, vfmaq_f32(vld1q_f32(acc + j), xv, vld1q_f32(b + j)));
    for (; j < n; ++j) acc[j] += x * b[j];
  }
};

}  // namespace

void gemm_f32_neon(const GemmF32& g, int64_t bi, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  gemm_tile<kMr, kNr>(ukernel_neon, g, bi, m0, m1, n0, n1);
}

void gemv_f32_neon(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) { gemv_tile<NeonGemv>(g, bi, n0, n1); }

// Few rows (M <= 8) against a weight stored [N, K]: each weight row read once for all rows.
void gemm_small_m_f32_neon(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  const float* A = g.a + bi * g.a_bs;
  const float* B = g.b + bi * g.b_bs;
  float* C = g.c + bi * g.c_bs;
  const int64_t K = g.K, M = g.M, K4 = K / 4 * 4;
  for (int64_t j = n0; j < n1; ++j) {
    const float* w = B + j * g.b_cs;
    float32x4_t acc[8];
    for (int64_t i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    for (int64_t k = 0; k < K4; k += 4) {
      const float32x4_t wv = vld1q_f32(w + k);
      for (int64_t i = 0; i < M; ++i) acc[i] = vfmaq_f32(acc[i], vld1q_f32(A + i * g.a_rs + k), wv);
    }
    for (int64_t i = 0; i < M; ++i) {
      const float* a = A + i * g.a_rs;
      float s = hsum(acc[i]);
      for (int64_t k = K4; k < K; ++k) s += a[k] * w[k];
      gemv_finish(g, C + i * g.c_rs, j, s);
    }
  }
}

}  // namespace pte::linalg
#endif  // defined(__aarch64__) || defined(__arm__)
