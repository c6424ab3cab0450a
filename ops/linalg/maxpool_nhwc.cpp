// pte-run linalg: f32 NHWC max pooling (see maxpool_nhwc.h): the scalar reference, the
// AVX-512F variant (function-level target, called only where ops/isa.h reports it) and the
// threaded dispatcher.
#include "ops/linalg/maxpool_nhwc.h"

#if defined(__x86_64__)
#include <immintrin.h>
#if !defined(__clang__)  // GCC 12 flags the undefined vector inside _mm512_min_ps / _mm512_max_ps (a false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#endif

#include <algorithm>

#include "ops/isa.h"

namespace pte::linalg {

using detail::pixel_window;

void maxpool_nhwc_f32_scalar(const MaxPoolNhwc& p, const float* x, float* y, int64_t r0, int64_t r1) {
  const int64_t C = p.C;
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t ow = 0; ow < p.OW; ++ow) {
      const detail::PixelWindow w = pixel_window(p, r, ow);
      float* out = y + (r * p.OW + ow) * C;
      for (int64_t c = 0; c < C; ++c) {
        float m = -__builtin_inff();
        for (int64_t kh = w.kh0; kh < w.kh1; ++kh)
          for (int64_t kw = w.kw0; kw < w.kw1; ++kw) {
            const float v = x[w.x + (kh * p.dh * p.W + kw * p.dw) * C + c];
            m = m < v ? v : m;
          }
        out[c] = std::min(std::max(m, p.out_min), p.out_max);
      }
    }
}

#if defined(__x86_64__)
// Channel tiles of 64 (four vectors) then masked single vectors; max(v, m) keeps m when v
// is NaN (the second operand), as the reference's m < v ? v : m.
__attribute__((target("avx512f"))) void maxpool_nhwc_f32_avx512f(const MaxPoolNhwc& p, const float* x, float* y,
                                                                 int64_t r0, int64_t r1) {
  const int64_t C = p.C;
  const __m512 lo = _mm512_set1_ps(p.out_min), hi = _mm512_set1_ps(p.out_max), ninf = _mm512_set1_ps(-__builtin_inff());
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t ow = 0; ow < p.OW; ++ow) {
      const detail::PixelWindow w = pixel_window(p, r, ow);
      float* out = y + (r * p.OW + ow) * C;
      int64_t c = 0;
      for (; c + 64 <= C; c += 64) {
        __m512 m0 = ninf, m1 = ninf, m2 = ninf, m3 = ninf;
        for (int64_t kh = w.kh0; kh < w.kh1; ++kh)
          for (int64_t kw = w.kw0; kw < w.kw1; ++kw) {
            const float* t = x + (w.x + (kh * p.dh * p.W + kw * p.dw) * C + c);
            m0 = _mm512_max_ps(_mm512_loadu_ps(t), m0);
            m1 = _mm512_max_ps(_mm512_loadu_ps(t + 16), m1);
            m2 = _mm512_max_ps(_mm512_loadu_ps(t + 32), m2);
            m3 = _mm512_max_ps(_mm512_loadu_ps(t + 48), m3);
          }
        _mm512_storeu_ps(out + c, _mm512_min_ps(_mm512_max_ps(m0, lo), hi));
        _mm512_storeu_ps(out + c + 16, _mm512_min_ps(_mm512_max_ps(m1, lo), hi));
        _mm512_storeu_ps(out + c + 32, _mm512_min_ps(_mm512_max_ps(m2, lo), hi));
        _mm512_storeu_ps(out + c + 48, _mm512_min_ps(_mm512_max_ps(m3, lo), hi));
      }
      for (; c < C; c += 16) {
        const __mmask16 k = C - c >= 16 ? __mmask16(0xffff) : __mmask16((1u << (C - c)) - 1u);
        __m512 m = ninf;
        for (int64_t kh = w.kh0; kh < w.kh1; ++kh)
          for (int64_t kw = w.kw0; kw < w.kw1; ++kw)
            m = _mm512_max_ps(_mm512_maskz_loadu_ps(k, x + (w.x + (kh * p.dh * p.W + kw * p.dw) * C + c)), m);
        _mm512_mask_storeu_ps(out + c, k, _mm512_min_ps(_mm512_max_ps(m, lo), hi));
      }
    }
}
#endif

void maxpool_nhwc_f32(int threads, const MaxPoolNhwc& p, const float* x, float* y, MaxPoolIsa isa) {
  if (p.N <= 0 || p.OH <= 0 || p.OW <= 0 || p.C <= 0) return;
  using Fn = void (*)(const MaxPoolNhwc&, const float*, float*, int64_t, int64_t);
  Fn fn = maxpool_nhwc_f32_scalar;
#if defined(__x86_64__)
  if (isa == MaxPoolIsa::Auto && isa::cpu().avx512f) fn = maxpool_nhwc_f32_avx512f;
#endif
  (void)isa;
  const double work = static_cast<double>(p.N * p.OH) * p.OW * p.C * p.KH * p.KW;
  detail::window_rows_parallel(threads, p.N * p.OH, work, [&](int64_t r0, int64_t r1) { fn(p, x, y, r0, r1); });
}

}  // namespace pte::linalg
