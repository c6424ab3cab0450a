// pte-run linalg: the AVX-512F micro-kernel of the NHWC convolution (conv_nhwc.h): up to 8 pixels
// x 32 channels in 16 accumulators, each k one pair of sliver loads and 8 broadcasts for 16
// FMAs, the pixels' rows taken segment by segment from their pointers; the bias, the running
// sum and the clamp in the same pass as the store. Function-level
// target, called only where conv_nhwc_has_simd().
#if defined(__x86_64__)
#if !defined(__clang__)  // GCC 12 flags the undefined vector inside _mm512_min_ps / _mm512_max_ps (a false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include "ops/linalg/conv_nhwc.h"

namespace pte::linalg {

namespace {

// MR pixels (1..8) x 32 channels: a partial block (49 = 6 x 8 + 1 pixels of a 7 x 7 image)
// runs only the rows it has. HALF: at most 16 channels stored (a sliver of 16 output
// channels or fewer: MobileNetV2's 32 -> 16 layer), the second half's FMAs skipped.
template <int MR, bool HALF>
__attribute__((target("avx512f"), always_inline)) inline void tile(int64_t kc, int64_t seg, const float* const* a,
                                                                   int64_t a_ss, const float* b, float* c, int64_t c_rs,
                                                                   int64_t nc, const float* bias, const float* res,
                                                                   bool first, bool last, float lo, float hi,
                                                                   const char* pf, int64_t pf_lines) {
  __m512 acc[MR][2];
  int64_t kq = 0;  // k steps so far (one prefetch each while pf_lines last)
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t s0 = 0; s0 < kc; s0 += seg, a += a_ss) {
    const float* ar[MR];
    for (int r = 0; r < MR; ++r) ar[r] = a[r];
    for (int64_t k = 0; k < seg; ++k, ++kq) {
      if (kq < pf_lines) _mm_prefetch(pf + kq * 64, _MM_HINT_T1);
      const __m512 b0 = _mm512_loadu_ps(b), b1 = HALF ? b0 : _mm512_loadu_ps(b + 16);
      b += kConvNhwcNr;
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const __m512 av = _mm512_set1_ps(ar[r][k]);
        acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
        if (!HALF) acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
      }
    }
  }
  const __mmask16 m0 = nc >= 16 ? __mmask16(0xffff) : __mmask16((1u << nc) - 1u);
  const __mmask16 m1 = nc >= 32 ? __mmask16(0xffff) : nc <= 16 ? __mmask16(0) : __mmask16((1u << (nc - 16)) - 1u);
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  const __m512 bias0 = first ? _mm512_loadu_ps(bias) : _mm512_setzero_ps();
  const __m512 bias1 = first ? _mm512_loadu_ps(bias + 16) : _mm512_setzero_ps();
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    float* cr = c + r * c_rs;
    __m512 v0 = acc[r][0], v1 = acc[r][1];
    if (first) {
      v0 = _mm512_add_ps(v0, bias0);
      v1 = _mm512_add_ps(v1, bias1);
    } else {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, cr));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, cr + 16));
    }
    if (last && res) {  // the fused Add's other operand, added to the finished sum as the Add would
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, res + r * c_rs));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, res + r * c_rs + 16));
    }
    if (last) {
      v0 = _mm512_min_ps(vhi, _mm512_max_ps(vlo, v0));  // (bound, v): a NaN result stays NaN
      v1 = _mm512_min_ps(vhi, _mm512_max_ps(vlo, v1));
    }
    _mm512_mask_storeu_ps(cr, m0, v0);
    _mm512_mask_storeu_ps(cr + 16, m1, v1);
  }
}

}  // namespace

__attribute__((target("avx512f"))) void conv_nhwc_ukernel_avx512f(int mr, int64_t kc, int64_t seg, const float* const* a,
                                                                 int64_t a_ss, const float* b, float* c, int64_t c_rs,
                                                                 int64_t nc, const float* bias, const float* res, bool first,
                                                                 bool last, float lo, float hi, const char* pf,
                                                                 int64_t pf_lines) {
  static_assert(kConvNhwcMrAvx512f == 8, "one tile per row count below");
#define PTE_TILE(MR)                                                                                              \
  (nc <= 16 ? tile<MR, true>(kc, seg, a, a_ss, b, c, c_rs, nc, bias, res, first, last, lo, hi, pf, pf_lines)       \
            : tile<MR, false>(kc, seg, a, a_ss, b, c, c_rs, nc, bias, res, first, last, lo, hi, pf, pf_lines))
  switch (mr) {
    case 8: PTE_TILE(8); break;
    case 7: PTE_TILE(7); break;
    case 6: PTE_TILE(6); break;
    case 5: PTE_TILE(5); break;
    case 4: PTE_TILE(4); break;
    case 3: PTE_TILE(3); break;
    case 2: PTE_TILE(2); break;
    case 1: PTE_TILE(1); break;
    default: break;
  }
#undef PTE_TILE
}

}  // namespace pte::linalg
#endif  // defined(__x86_64__)
