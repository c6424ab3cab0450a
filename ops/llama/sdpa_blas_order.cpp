// The official runtime's BLAS orders for one- and two-row query blocks (see sdpa_blas_order.h).
// Scalar forms first, then AVX-512F forms that do the same operations lane-wise.
#include "ops/llama/sdpa_blas_order.h"

// GCC 12 flags the _mm512_undefined_* inside its own cast intrinsics (a false positive).
#if defined(__x86_64__)
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <immintrin.h>
#endif

#include <cmath>

namespace pte {

namespace {

// (v_i + v_i+8), then + 4, + 2, + 1.
inline float reduce16(float* v) {
  for (int w = 8; w >= 1; w /= 2)
    for (int i = 0; i < w; ++i) v[i] = v[i] + v[i + w];
  return v[0];
}

}  // namespace

float blas_gemv1_dot(const float* kr, const float* q, int64_t k, int64_t col, int64_t ncols) {
  if (k <= 0) return 0.f;
  const int64_t m4 = ncols / 4 * 4;
  float v[16] = {};
  if (col < m4) {  // a group of four keys
    v[0] = kr[0] * q[0];
    const int64_t full = (k - 1) / 16;
    for (int64_t t = 0; t < full; ++t)
      for (int i = 0; i < 16; ++i) v[i] = std::fma(kr[1 + 16 * t + i], q[1 + 16 * t + i], v[i]);
    const float s = reduce16(v);
    float w[16] = {};
    const int64_t e0 = 1 + 16 * full;
    for (int64_t e = e0 + 1; e < k; ++e) w[e - e0] = kr[e] * q[e];
    w[0] = e0 < k ? std::fma(kr[e0], q[e0], s) : s;
    return reduce16(w);
  }
  const bool second = ncols - m4 >= 2 && col == m4 + 1;
  int64_t e = 1;
  if (!second) {  // two vectors over pairs of full vectors
    float u[16] = {};
    const int64_t pairs = (k - 1) / 32;
    for (int64_t p = 0; p < pairs; ++p)
      for (int i = 0; i < 16; ++i) {
        v[i] = std::fma(kr[1 + 32 * p + i], q[1 + 32 * p + i], v[i]);
        u[i] = std::fma(kr[17 + 32 * p + i], q[17 + 32 * p + i], u[i]);
      }
    if (pairs > 0)
      for (int i = 0; i < 16; ++i) v[i] = v[i] + u[i];
    e = 1 + 32 * pairs;
  }
  for (; e < k; ++e) v[(e - 1) % 16] = std::fma(kr[e], q[e], v[(e - 1) % 16]);
  const float t = reduce16(v);
  return kr[0] * q[0] + t;
}

float blas_gemm2_dot(const float* kr, const float* q, int64_t k) {
  float v[16] = {};
  for (int64_t e = 0; e < k; ++e) v[e % 16] = std::fma(kr[e], q[e], v[e % 16]);
  float s[4];
  for (int r = 0; r < 4; ++r) s[r] = ((v[r] + v[r + 4]) + v[r + 8]) + v[r + 12];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

void blas_gemv1_value(const float* v, int64_t vs, const float* p, int64_t L, int64_t D, float* out) {
  const int64_t D16 = D / 16 * 16;
  for (int64_t d = D16; d < D; ++d) {  // rows past the last 16: an FMA chain in key order
    float acc = 0.f;
    for (int64_t j = 0; j < L; ++j) acc = std::fma(v[j * vs + d], p[j], acc);
    out[d] = acc;
  }
  for (int64_t d = 0; d < D16; ++d) {
    auto y = [&](int64_t j) { return v[j * vs + d]; };
    auto pr = [&](int64_t j, int64_t o) { return std::fma(y(j), p[j], y(o) * p[o]); };  // fma onto o's rounded product
    float acc = 0.f;
    int64_t j = 0;
    if (L >= 8) {
      acc = (pr(0, 2) + pr(1, 3)) + (pr(4, 6) + pr(5, 7));
      for (j = 8; j + 8 <= L; j += 8) {
        float x = std::fma(y(j + 6), p[j + 6], acc);
        x = std::fma(y(j + 4), p[j + 4], x);
        x = x + pr(j + 5, j + 7);
        acc = x + (pr(j, j + 2) + pr(j + 1, j + 3));
      }
    }
    for (; j < L; ++j) acc = std::fma(y(j), p[j], acc);
    out[d] = acc;
  }
}

// ---- AVX-512F ----
#if defined(__x86_64__)

#define PTE_AVX512 __attribute__((target("avx512f")))

namespace {

PTE_AVX512 inline float reduce16_avx512(__m512 v) {
  const __m256 lo = _mm512_castps512_ps256(v);
  const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
  const __m256 r8 = _mm256_add_ps(lo, hi);                                            // i + i+8
  const __m128 r4 = _mm_add_ps(_mm256_castps256_ps128(r8), _mm256_extractf128_ps(r8, 1));  // + 4
  const __m128 r2 = _mm_add_ps(r4, _mm_movehl_ps(r4, r4));                            // + 2
  const __m128 r1 = _mm_add_ss(r2, _mm_shuffle_ps(r2, r2, 1));                        // + 1
  return _mm_cvtss_f32(r1);
}

PTE_AVX512 inline __mmask16 first_n(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

}  // namespace

PTE_AVX512 float blas_gemm2_dot_avx512(const float* kr, const float* q, int64_t k) {
  __m512 v = _mm512_setzero_ps();
  for (int64_t e = 0; e < k; e += 16) v = _mm512_fmadd_ps(_mm512_loadu_ps(kr + e), _mm512_loadu_ps(q + e), v);
  const __m256 lo = _mm512_castps512_ps256(v);
  const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
  const __m128 c0 = _mm256_castps256_ps128(lo), c1 = _mm256_extractf128_ps(lo, 1);
  const __m128 c2 = _mm256_castps256_ps128(hi), c3 = _mm256_extractf128_ps(hi, 1);
  const __m128 s = _mm_add_ps(_mm_add_ps(_mm_add_ps(c0, c1), c2), c3);
  const __m128 h = _mm_hadd_ps(s, s);  // (s0 + s1, s2 + s3, ...)
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 1)));
}

PTE_AVX512 float blas_gemv1_dot_avx512(const float* kr, const float* q, int64_t k, int64_t col, int64_t ncols) {
  if (k <= 0) return 0.f;
  const int64_t m4 = ncols / 4 * 4;
  if (col < m4) {
    __m512 v = _mm512_maskz_mov_ps(1, _mm512_set1_ps(kr[0] * q[0]));
    const int64_t full = (k - 1) / 16;
    for (int64_t t = 0; t < full; ++t)
      v = _mm512_fmadd_ps(_mm512_loadu_ps(kr + 1 + 16 * t), _mm512_loadu_ps(q + 1 + 16 * t), v);
    const float s = reduce16_avx512(v);
    const int64_t e0 = 1 + 16 * full;
    if (e0 >= k) {
      return reduce16_avx512(_mm512_maskz_mov_ps(1, _mm512_set1_ps(s)));
    }
    const __mmask16 m = first_n(k - e0);
    const __m512 a = _mm512_maskz_loadu_ps(m, kr + e0), b = _mm512_maskz_loadu_ps(m, q + e0);
    __m512 w = _mm512_mul_ps(a, b);
    const float w0 = std::fma(kr[e0], q[e0], s);
    w = _mm512_mask_mov_ps(w, 1, _mm512_set1_ps(w0));
    return reduce16_avx512(w);
  }
  const bool second = ncols - m4 >= 2 && col == m4 + 1;
  __m512 v = _mm512_setzero_ps();
  int64_t e = 1;
  if (!second) {
    __m512 u = _mm512_setzero_ps();
    const int64_t pairs = (k - 1) / 32;
    for (int64_t p = 0; p < pairs; ++p) {
      v = _mm512_fmadd_ps(_mm512_loadu_ps(kr + 1 + 32 * p), _mm512_loadu_ps(q + 1 + 32 * p), v);
      u = _mm512_fmadd_ps(_mm512_loadu_ps(kr + 17 + 32 * p), _mm512_loadu_ps(q + 17 + 32 * p), u);
    }
    if (pairs > 0) v = _mm512_add_ps(v, u);
    e = 1 + 32 * pairs;
  }
  // the rest by lane (e - 1) % 16: whole vectors, then a masked one (masked-off lanes keep v)
  for (; e < k; e += 16) {
    const __mmask16 m = first_n(k - e);
    v = _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(m, kr + e), _mm512_maskz_loadu_ps(m, q + e), v, m);
  }
  const float t = reduce16_avx512(v);
  return kr[0] * q[0] + t;
}

// Sixteen keys of groups of four at once, one per lane, from keys transposed as
// kt[e * 16 + lane]: per lane the very steps of blas_gemv1_dot's group-of-four branch
// (its 16 partial sums v_i are 16 registers here, its halving sums adds between them).
PTE_AVX512 void blas_gemv1_dot16_avx512(const float* kt, const float* q, int64_t k, float* out) {
  if (k <= 0) {
    _mm512_storeu_ps(out, _mm512_setzero_ps());
    return;
  }
  __m512 v[16];
  v[0] = _mm512_mul_ps(_mm512_load_ps(kt), _mm512_set1_ps(q[0]));
  for (int i = 1; i < 16; ++i) v[i] = _mm512_setzero_ps();
  const int64_t full = (k - 1) / 16;
  for (int64_t t = 0; t < full; ++t) {
    const float* kb = kt + (1 + 16 * t) * 16;
    const float* qb = q + 1 + 16 * t;
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) v[i] = _mm512_fmadd_ps(_mm512_load_ps(kb + 16 * i), _mm512_set1_ps(qb[i]), v[i]);
  }
#pragma GCC unroll 4
  for (int w = 8; w >= 1; w /= 2)
    for (int i = 0; i < w; ++i) v[i] = _mm512_add_ps(v[i], v[i + w]);
  const int64_t e0 = 1 + 16 * full;
  __m512 x[16];
  x[0] = e0 < k ? _mm512_fmadd_ps(_mm512_load_ps(kt + e0 * 16), _mm512_set1_ps(q[e0]), v[0]) : v[0];
  for (int64_t i = 1; i < 16; ++i)
    x[i] = e0 + i < k ? _mm512_mul_ps(_mm512_load_ps(kt + (e0 + i) * 16), _mm512_set1_ps(q[e0 + i])) : _mm512_setzero_ps();
#pragma GCC unroll 4
  for (int w = 8; w >= 1; w /= 2)
    for (int i = 0; i < w; ++i) x[i] = _mm512_add_ps(x[i], x[i + w]);
  _mm512_storeu_ps(out, x[0]);
}

namespace {

// (GCC: a lambda would not inherit the target attribute.)
PTE_AVX512 inline __m512 vload(const float* v, int64_t vs, int64_t d0, __mmask16 m, int64_t j) {
  return _mm512_maskz_loadu_ps(m, v + j * vs + d0);
}
// fma of key j onto key o's rounded product
PTE_AVX512 inline __m512 vpair(const float* v, int64_t vs, int64_t d0, __mmask16 m, const float* p, int64_t j, int64_t o) {
  return _mm512_fmadd_ps(vload(v, vs, d0, m, j), _mm512_set1_ps(p[j]), _mm512_mul_ps(vload(v, vs, d0, m, o), _mm512_set1_ps(p[o])));
}

}  // namespace

// Up to four 16-wide slabs of the outputs in lockstep (each lane its own order, as
// the scalar form's): one pass over the keys reads each value row's 64 floats together
// instead of one slab per pass.
template <int NS>
PTE_AVX512 inline void value_slabs(const float* v, int64_t vs, const float* p, int64_t L, int64_t d0, float* out) {
  const __mmask16 m = 0xFFFF;
  __m512 acc[NS];
  for (int s = 0; s < NS; ++s) acc[s] = _mm512_setzero_ps();
  int64_t j = 0;
  if (L >= 8) {
#pragma GCC unroll 4
    for (int s = 0; s < NS; ++s) {
      const int64_t d = d0 + 16 * s;
      acc[s] = _mm512_add_ps(_mm512_add_ps(vpair(v, vs, d, m, p, 0, 2), vpair(v, vs, d, m, p, 1, 3)),
                             _mm512_add_ps(vpair(v, vs, d, m, p, 4, 6), vpair(v, vs, d, m, p, 5, 7)));
    }
    for (j = 8; j + 8 <= L; j += 8) {
      if (j + 16 <= L)
        for (int64_t r = j + 8; r < j + 16; ++r) _mm_prefetch(reinterpret_cast<const char*>(v + r * vs + d0), _MM_HINT_T0),
                                                  _mm_prefetch(reinterpret_cast<const char*>(v + r * vs + d0 + 16 * (NS - 1)), _MM_HINT_T0);
#pragma GCC unroll 4
      for (int s = 0; s < NS; ++s) {
        const int64_t d = d0 + 16 * s;
        __m512 x = _mm512_fmadd_ps(vload(v, vs, d, m, j + 6), _mm512_set1_ps(p[j + 6]), acc[s]);
        x = _mm512_fmadd_ps(vload(v, vs, d, m, j + 4), _mm512_set1_ps(p[j + 4]), x);
        x = _mm512_add_ps(x, vpair(v, vs, d, m, p, j + 5, j + 7));
        acc[s] = _mm512_add_ps(x, _mm512_add_ps(vpair(v, vs, d, m, p, j, j + 2), vpair(v, vs, d, m, p, j + 1, j + 3)));
      }
    }
  }
  for (; j < L; ++j)
    for (int s = 0; s < NS; ++s) acc[s] = _mm512_fmadd_ps(vload(v, vs, d0 + 16 * s, m, j), _mm512_set1_ps(p[j]), acc[s]);
  for (int s = 0; s < NS; ++s) _mm512_storeu_ps(out + d0 + 16 * s, acc[s]);
}

PTE_AVX512 void blas_gemv1_value_avx512(const float* v, int64_t vs, const float* p, int64_t L, int64_t D, float* out) {
  const int64_t D16 = D / 16 * 16;
  if (D16 < D) {  // rows past the last 16: an FMA chain in key order
    const __mmask16 m = first_n(D - D16);
    __m512 acc = _mm512_setzero_ps();
    for (int64_t j = 0; j < L; ++j) acc = _mm512_fmadd_ps(vload(v, vs, D16, m, j), _mm512_set1_ps(p[j]), acc);
    _mm512_mask_storeu_ps(out + D16, m, acc);
  }
  int64_t d0 = 0;
  for (; d0 + 64 <= D16; d0 += 64) value_slabs<4>(v, vs, p, L, d0, out);
  switch ((D16 - d0) / 16) {
    case 3: value_slabs<3>(v, vs, p, L, d0, out); break;
    case 2: value_slabs<2>(v, vs, p, L, d0, out); break;
    case 1: value_slabs<1>(v, vs, p, L, d0, out); break;
    default: break;
  }
}

#endif  // defined(__x86_64__)

}  // namespace pte
