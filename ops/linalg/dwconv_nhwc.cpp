// pte-run linalg: f32 NHWC depthwise convolution: the scalar reference, the AVX2+FMA and
// AVX-512F variants (function-level targets, called only where ops/isa.h reports the
// ISA) and the threaded dispatcher. See dwconv_nhwc.h; NEON in dwconv_nhwc_neon.cpp.
#include "ops/linalg/dwconv_nhwc.h"

#if defined(__x86_64__)
#include <immintrin.h>
#if !defined(__clang__)  // GCC 12 flags the undefined vector inside _mm512_min_ps / _mm512_max_ps (a false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#endif

#include <algorithm>
#include <cmath>

#include "ops/isa.h"

namespace pte::linalg {

using detail::dw_tap_range;

void dwconv_nhwc_f32_scalar(const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                            int64_t r0, int64_t r1) {
  const int64_t C = p.C;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / p.OH, oh = r % p.OH;
    const int64_t ih0 = oh * p.sh - p.pad_top;
    int64_t kh0, kh1, kw0, kw1;
    dw_tap_range(ih0, p.dh, p.KH, p.H, &kh0, &kh1);
    for (int64_t ow = 0; ow < p.OW; ++ow) {
      const int64_t iw0 = ow * p.sw - p.pad_left;
      dw_tap_range(iw0, p.dw, p.KW, p.W, &kw0, &kw1);
      float* out = y + (r * p.OW + ow) * C;
      for (int64_t c = 0; c < C; ++c) {
        float acc = bias ? bias[c] : 0.0f;
        for (int64_t kh = kh0; kh < kh1; ++kh) {
          const float* xr = x + ((n * p.H + ih0 + kh * p.dh) * p.W) * C;
          for (int64_t kw = kw0; kw < kw1; ++kw)
            acc += w[(kh * p.KW + kw) * C + c] * xr[(iw0 + kw * p.dw) * C + c];
        }
        out[c] = std::min(std::max(acc, p.out_min), p.out_max);
      }
    }
  }
}

#if defined(__x86_64__)

// Channel tiles of 4 vectors (accumulators in registers across every tap), then single
// vectors, then (AVX2) a scalar tail; AVX-512 masks its last vector instead.
#define PTE_DW_ROW_LOOP(BODY)                                        \
  const int64_t C = p.C;                                             \
  for (int64_t r = r0; r < r1; ++r) {                                \
    const int64_t n = r / p.OH, oh = r % p.OH;                       \
    const int64_t ih0 = oh * p.sh - p.pad_top;                       \
    int64_t kh0, kh1, kw0, kw1;                                      \
    dw_tap_range(ih0, p.dh, p.KH, p.H, &kh0, &kh1);                     \
    const int64_t xn = (n * p.H + ih0) * p.W * C; /* may be < 0 */   \
    for (int64_t ow = 0; ow < p.OW; ++ow) {                          \
      const int64_t iw0 = ow * p.sw - p.pad_left;                    \
      dw_tap_range(iw0, p.dw, p.KW, p.W, &kw0, &kw1);                   \
      float* out = y + (r * p.OW + ow) * C;                          \
      const int64_t xp = xn + iw0 * C; /* offsets: in range per tap */ \
      BODY                                                           \
    }                                                                \
  }

#define PTE_DW_TAPS(STMT)                                            \
  for (int64_t kh = kh0; kh < kh1; ++kh) {                           \
    const int64_t xr = xp + kh * p.dh * p.W * C;                     \
    const float* wr = w + kh * p.KW * C;                             \
    for (int64_t kw = kw0; kw < kw1; ++kw) {                         \
      const float* xt = x + (xr + kw * p.dw * C);                    \
      const float* wt = wr + kw * C;                                 \
      STMT                                                           \
    }                                                                \
  }

__attribute__((target("avx2,fma"))) void dwconv_nhwc_f32_avx2_fma(const DwconvNhwc& p, const float* x,
                                                                   const float* w, const float* bias, float* y,
                                                                   int64_t r0, int64_t r1) {
  const __m256 lo = _mm256_set1_ps(p.out_min), hi = _mm256_set1_ps(p.out_max);
  PTE_DW_ROW_LOOP({
    int64_t c = 0;
    for (; c + 32 <= C; c += 32) {
      __m256 a0 = bias ? _mm256_loadu_ps(bias + c) : _mm256_setzero_ps();
      __m256 a1 = bias ? _mm256_loadu_ps(bias + c + 8) : _mm256_setzero_ps();
      __m256 a2 = bias ? _mm256_loadu_ps(bias + c + 16) : _mm256_setzero_ps();
      __m256 a3 = bias ? _mm256_loadu_ps(bias + c + 24) : _mm256_setzero_ps();
      PTE_DW_TAPS({
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(wt + c), _mm256_loadu_ps(xt + c), a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(wt + c + 8), _mm256_loadu_ps(xt + c + 8), a1);
        a2 = _mm256_fmadd_ps(_mm256_loadu_ps(wt + c + 16), _mm256_loadu_ps(xt + c + 16), a2);
        a3 = _mm256_fmadd_ps(_mm256_loadu_ps(wt + c + 24), _mm256_loadu_ps(xt + c + 24), a3);
      })
      _mm256_storeu_ps(out + c, _mm256_min_ps(hi, _mm256_max_ps(lo, a0)));
      _mm256_storeu_ps(out + c + 8, _mm256_min_ps(hi, _mm256_max_ps(lo, a1)));
      _mm256_storeu_ps(out + c + 16, _mm256_min_ps(hi, _mm256_max_ps(lo, a2)));
      _mm256_storeu_ps(out + c + 24, _mm256_min_ps(hi, _mm256_max_ps(lo, a3)));
    }
    for (; c + 8 <= C; c += 8) {
      __m256 a0 = bias ? _mm256_loadu_ps(bias + c) : _mm256_setzero_ps();
      PTE_DW_TAPS({ a0 = _mm256_fmadd_ps(_mm256_loadu_ps(wt + c), _mm256_loadu_ps(xt + c), a0); })
      _mm256_storeu_ps(out + c, _mm256_min_ps(hi, _mm256_max_ps(lo, a0)));
    }
    for (; c < C; ++c) {
      float a = bias ? bias[c] : 0.0f;
      PTE_DW_TAPS({ a = std::fma(wt[c], xt[c], a); })
      out[c] = std::min(std::max(a, p.out_min), p.out_max);
    }
  })
}

// 3x3 windows without dilation (MobileNet's and EfficientNet's depthwise layers): per output
// row the three input rows (a row outside the image is skipped),
// then per block of J interior pixels and channel tile of 16 the tile's nine weights and bias
// sit in registers and every tap is one FMA from memory: 9 input loads a pixel instead of 18
// loads through the generic tap loops. Columns whose window leaves the image take a tap-by-tap
// path with the same registers.
template <int J, bool Masked>
__attribute__((target("avx512f"), always_inline)) inline void dw3_block_avx512f(
    const float* const* rows, const bool* valid, int64_t col0, int64_t sw, int64_t C, int64_t c, __mmask16 m,
    const __m512* wk, __m512 b, float mn, float mx, float* out) {
  const __m512 lo = _mm512_set1_ps(mn), hi = _mm512_set1_ps(mx);
  __m512 acc[J];
#pragma GCC unroll 8
  for (int j = 0; j < J; ++j) acc[j] = b;
#pragma GCC unroll 3
  for (int kh = 0; kh < 3; ++kh) {
    if (!valid[kh]) continue;  // (not zero weights: 0 x inf would make a NaN the reference never sees)
    const float* xr = rows[kh] + col0 * C + c;
#pragma GCC unroll 3
    for (int kw = 0; kw < 3; ++kw) {
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) {
        const float* xt = xr + (j * sw + kw) * C;
        const __m512 v = Masked ? _mm512_maskz_loadu_ps(m, xt) : _mm512_loadu_ps(xt);
        acc[j] = _mm512_fmadd_ps(wk[kh * 3 + kw], v, acc[j]);
      }
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < J; ++j) {
    const __m512 v = _mm512_min_ps(hi, _mm512_max_ps(lo, acc[j]));
    if (Masked) _mm512_mask_storeu_ps(out + j * C, m, v);
    else _mm512_storeu_ps(out + j * C, v);
  }
}

template <int J>
__attribute__((target("avx512f"), always_inline)) inline void dw3_tiles_avx512f(
    const float* const* rows, const bool* valid, const float* w, const float* bias, int64_t col0, int64_t sw,
    int64_t C, float mn, float mx, float* out) {
  for (int64_t c = 0; c < C; c += 16) {
    const bool tail = C - c < 16;
    const __mmask16 m = tail ? __mmask16((1u << (C - c)) - 1u) : __mmask16(0xffff);
    __m512 wk[9];
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t)
      wk[t] = _mm512_maskz_loadu_ps(m, w + t * C + c);
    const __m512 b = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
    if (tail) dw3_block_avx512f<J, true>(rows, valid, col0, sw, C, c, m, wk, b, mn, mx, out + c);
    else dw3_block_avx512f<J, false>(rows, valid, col0, sw, C, c, m, wk, b, mn, mx, out + c);
  }
}

// One pixel whose window leaves the image at the left or right: tap by tap.
__attribute__((target("avx512f"))) void dw3_edge_avx512f(const DwconvNhwc& p, const float* const* rows,
                                                         const bool* valid, const float* w, const float* bias,
                                                         int64_t ow, float* yr) {
  const int64_t C = p.C, iw0 = ow * p.sw - p.pad_left;
  const __m512 lo = _mm512_set1_ps(p.out_min), hi = _mm512_set1_ps(p.out_max);
  for (int64_t c = 0; c < C; c += 16) {
    const __mmask16 m = C - c >= 16 ? __mmask16(0xffff) : __mmask16((1u << (C - c)) - 1u);
    __m512 acc = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
    for (int kh = 0; kh < 3; ++kh) {
      if (!valid[kh]) continue;
      for (int kw = 0; kw < 3; ++kw) {
        const int64_t iw = iw0 + kw;
        if (iw < 0 || iw >= p.W) continue;
        acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, w + (kh * 3 + kw) * C + c),
                              _mm512_maskz_loadu_ps(m, rows[kh] + iw * C + c), acc);
      }
    }
    _mm512_mask_storeu_ps(yr + ow * C + c, m, _mm512_min_ps(hi, _mm512_max_ps(lo, acc)));
  }
}

__attribute__((target("avx512f"))) void dw3x3_avx512f(const DwconvNhwc& p, const float* x, const float* w,
                                                      const float* bias, float* y, int64_t r0, int64_t r1) {
  const int64_t C = p.C, W = p.W, sw = p.sw, pl = p.pad_left;
  const float mn = p.out_min, mx = p.out_max;
  // interior columns: 0 <= ow * sw - pl and ow * sw - pl + 2 < W
  const int64_t ow_lo = std::min(p.OW, (pl + sw - 1) / sw);
  const int64_t ow_hi = W - 3 + pl < 0 ? ow_lo : std::max(ow_lo, std::min(p.OW, (W - 3 + pl) / sw + 1));
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / p.OH, oh = r % p.OH;
    const int64_t ih0 = oh * p.sh - p.pad_top;
    const float* rows[3];
    bool valid[3];
    for (int kh = 0; kh < 3; ++kh) {
      const int64_t ih = ih0 + kh;
      valid[kh] = ih >= 0 && ih < p.H;
      rows[kh] = x + (n * p.H + (valid[kh] ? ih : 0)) * W * C;
    }
    float* yr = y + r * p.OW * C;
    for (int64_t ow = 0; ow < ow_lo; ++ow) dw3_edge_avx512f(p, rows, valid, w, bias, ow, yr);
    int64_t ow = ow_lo;
    for (; ow + 8 <= ow_hi; ow += 8) dw3_tiles_avx512f<8>(rows, valid, w, bias, ow * sw - pl, sw, C, mn, mx, yr + ow * C);
    for (; ow + 4 <= ow_hi; ow += 4) dw3_tiles_avx512f<4>(rows, valid, w, bias, ow * sw - pl, sw, C, mn, mx, yr + ow * C);
    for (; ow < ow_hi; ++ow) dw3_tiles_avx512f<1>(rows, valid, w, bias, ow * sw - pl, sw, C, mn, mx, yr + ow * C);
    for (ow = ow_hi; ow < p.OW; ++ow) dw3_edge_avx512f(p, rows, valid, w, bias, ow, yr);
  }
}

__attribute__((target("avx512f"))) void dwconv_nhwc_f32_avx512f(const DwconvNhwc& p, const float* x,
                                                                 const float* w, const float* bias, float* y,
                                                                 int64_t r0, int64_t r1) {
  if (p.KH == 3 && p.KW == 3 && p.dh == 1 && p.dw == 1) return dw3x3_avx512f(p, x, w, bias, y, r0, r1);
  const __m512 lo = _mm512_set1_ps(p.out_min), hi = _mm512_set1_ps(p.out_max);
  PTE_DW_ROW_LOOP({
    int64_t c = 0;
    for (; c + 64 <= C; c += 64) {
      __m512 a0 = bias ? _mm512_loadu_ps(bias + c) : _mm512_setzero_ps();
      __m512 a1 = bias ? _mm512_loadu_ps(bias + c + 16) : _mm512_setzero_ps();
      __m512 a2 = bias ? _mm512_loadu_ps(bias + c + 32) : _mm512_setzero_ps();
      __m512 a3 = bias ? _mm512_loadu_ps(bias + c + 48) : _mm512_setzero_ps();
      PTE_DW_TAPS({
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(wt + c), _mm512_loadu_ps(xt + c), a0);
        a1 = _mm512_fmadd_ps(_mm512_loadu_ps(wt + c + 16), _mm512_loadu_ps(xt + c + 16), a1);
        a2 = _mm512_fmadd_ps(_mm512_loadu_ps(wt + c + 32), _mm512_loadu_ps(xt + c + 32), a2);
        a3 = _mm512_fmadd_ps(_mm512_loadu_ps(wt + c + 48), _mm512_loadu_ps(xt + c + 48), a3);
      })
      _mm512_storeu_ps(out + c, _mm512_min_ps(hi, _mm512_max_ps(lo, a0)));
      _mm512_storeu_ps(out + c + 16, _mm512_min_ps(hi, _mm512_max_ps(lo, a1)));
      _mm512_storeu_ps(out + c + 32, _mm512_min_ps(hi, _mm512_max_ps(lo, a2)));
      _mm512_storeu_ps(out + c + 48, _mm512_min_ps(hi, _mm512_max_ps(lo, a3)));
    }
    for (; c < C; c += 16) {
      const __mmask16 m = C - c >= 16 ? __mmask16(0xffff) : __mmask16((1u << (C - c)) - 1u);
      __m512 a0 = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
      PTE_DW_TAPS({ a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, wt + c), _mm512_maskz_loadu_ps(m, xt + c), a0); })
      _mm512_mask_storeu_ps(out + c, m, _mm512_min_ps(hi, _mm512_max_ps(lo, a0)));
    }
  })
}

#undef PTE_DW_TAPS
#undef PTE_DW_ROW_LOOP
#endif  // defined(__x86_64__)

void dwconv_nhwc_f32(int threads, const DwconvNhwc& p, const float* x, const float* w, const float* bias, float* y,
                     DwconvIsa isa) {
  if (p.N <= 0 || p.OH <= 0 || p.OW <= 0 || p.C <= 0) return;
  using Fn = void (*)(const DwconvNhwc&, const float*, const float*, const float*, float*, int64_t, int64_t);
  Fn fn = dwconv_nhwc_f32_scalar;
  if (isa == DwconvIsa::Auto) {
    const isa::Features& f = isa::cpu();
    (void)f;
#if defined(__x86_64__)
    if (f.avx512f && f.avx2_fma()) fn = dwconv_nhwc_f32_avx512f;
    else if (f.avx2_fma()) fn = dwconv_nhwc_f32_avx2_fma;
#elif defined(__aarch64__) || defined(__arm__)
    if (f.neon) fn = dwconv_nhwc_f32_neon;
#endif
  }
  const double work = static_cast<double>(p.N * p.OH) * p.OW * p.C * p.KH * p.KW;
  detail::window_rows_parallel(threads, p.N * p.OH, work,
                               [&](int64_t r0, int64_t r1) { fn(p, x, w, bias, y, r0, r1); });
}

}  // namespace pte::linalg
