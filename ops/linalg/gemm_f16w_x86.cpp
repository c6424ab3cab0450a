// pte-run linalg: fp16-weight fully connected, x86-64 (see gemm_f16w.h): the M <= 8 dot
// products with AVX2+FMA+F16C (8 weights a step) and AVX-512F (16), and the F16C row
// conversions. vcvtph2ps is exact, so each variant differs from the scalar reference only
// by its fused multiply-adds and its summation order (lanes, then a reduction).
#if defined(__x86_64__)
// GCC 12: false -Wmaybe-uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include "ops/linalg/gemm_f16w.h"
#include "ops/util.h"

#define PTE_F16C __attribute__((target("avx2,fma,f16c")))
#define PTE_F16W512 __attribute__((target("avx512f,avx2,fma,f16c")))

namespace pte::linalg {

namespace {

PTE_F16C inline float hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// R weight rows at a time (R independent streams), all M activation rows per weight load.
template <int M, int R>
PTE_F16W512 void dots512(const FcF16w& p, int64_t n0, int64_t n1) {
  const int64_t K = p.K, kv = K / 16 * 16;
  for (int64_t n = n0; n < n1; n += R) {
    const int rows = n1 - n < R ? static_cast<int>(n1 - n) : R;
    const uint16_t* w[R];
    for (int r = 0; r < R; ++r) w[r] = p.w + (n + (r < rows ? r : 0)) * K;  // spare rows re-read row n
    __m512 acc[M][R];
    for (int i = 0; i < M; ++i)
      for (int r = 0; r < R; ++r) acc[i][r] = _mm512_setzero_ps();
    for (int64_t k = 0; k < kv; k += 16) {
      __m512 wv[R];
      for (int r = 0; r < R; ++r) wv[r] = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[r] + k)));
      for (int i = 0; i < M; ++i) {
        const __m512 xv = _mm512_loadu_ps(p.x + i * p.x_rs + k);
        for (int r = 0; r < R; ++r) acc[i][r] = _mm512_fmadd_ps(xv, wv[r], acc[i][r]);
      }
    }
    for (int i = 0; i < M; ++i)
      for (int r = 0; r < rows; ++r) {
        const float s = _mm512_reduce_add_ps(acc[i][r]) + f16w_tail_dot(p.x + i * p.x_rs, w[r], kv, K);
        p.y[i * p.y_rs + n + r] = p.bias ? s + p.bias[n + r] : s;
      }
  }
}

// One weight row at a time in one sequential stream, four chains along k (the M <= 2
// decode form: on the Zen 4 VM several row streams at once read 7-10 GB/s on one thread,
// one stream ~19 GB/s).
template <int M>
PTE_F16W512 void rows512(const FcF16w& p, int64_t n0, int64_t n1) {
  const int64_t K = p.K, k64 = K / 64 * 64, kv = K / 16 * 16;
  for (int64_t n = n0; n < n1; ++n) {
    const uint16_t* w = p.w + n * K;
    __m512 acc[M][4];
    for (int i = 0; i < M; ++i)
      for (int c = 0; c < 4; ++c) acc[i][c] = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k < k64; k += 64) {
      __m512 wv[4];
      for (int c = 0; c < 4; ++c) wv[c] = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + k + 16 * c)));
      for (int i = 0; i < M; ++i)
        for (int c = 0; c < 4; ++c) acc[i][c] = _mm512_fmadd_ps(_mm512_loadu_ps(p.x + i * p.x_rs + k + 16 * c), wv[c], acc[i][c]);
    }
    for (; k < kv; k += 16) {
      const __m512 wv = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + k)));
      for (int i = 0; i < M; ++i) acc[i][0] = _mm512_fmadd_ps(_mm512_loadu_ps(p.x + i * p.x_rs + k), wv, acc[i][0]);
    }
    for (int i = 0; i < M; ++i) {
      const __m512 a = _mm512_add_ps(_mm512_add_ps(acc[i][0], acc[i][1]), _mm512_add_ps(acc[i][2], acc[i][3]));
      const float s = _mm512_reduce_add_ps(a) + f16w_tail_dot(p.x + i * p.x_rs, w, kv, K);
      p.y[i * p.y_rs + n] = p.bias ? s + p.bias[n] : s;
    }
  }
}

template <int M>
PTE_F16C void rows256(const FcF16w& p, int64_t n0, int64_t n1) {
  const int64_t K = p.K, k32 = K / 32 * 32, kv = K / 8 * 8;
  for (int64_t n = n0; n < n1; ++n) {
    const uint16_t* w = p.w + n * K;
    __m256 acc[M][4];
    for (int i = 0; i < M; ++i)
      for (int c = 0; c < 4; ++c) acc[i][c] = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k < k32; k += 32) {
      __m256 wv[4];
      for (int c = 0; c < 4; ++c) wv[c] = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + k + 8 * c)));
      for (int i = 0; i < M; ++i)
        for (int c = 0; c < 4; ++c) acc[i][c] = _mm256_fmadd_ps(_mm256_loadu_ps(p.x + i * p.x_rs + k + 8 * c), wv[c], acc[i][c]);
    }
    for (; k < kv; k += 8) {
      const __m256 wv = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + k)));
      for (int i = 0; i < M; ++i) acc[i][0] = _mm256_fmadd_ps(_mm256_loadu_ps(p.x + i * p.x_rs + k), wv, acc[i][0]);
    }
    for (int i = 0; i < M; ++i) {
      const __m256 a = _mm256_add_ps(_mm256_add_ps(acc[i][0], acc[i][1]), _mm256_add_ps(acc[i][2], acc[i][3]));
      const float s = hsum256(a) + f16w_tail_dot(p.x + i * p.x_rs, w, kv, K);
      p.y[i * p.y_rs + n] = p.bias ? s + p.bias[n] : s;
    }
  }
}

template <int M, int R>
PTE_F16C void dots256(const FcF16w& p, int64_t n0, int64_t n1) {
  const int64_t K = p.K, kv = K / 8 * 8;
  for (int64_t n = n0; n < n1; n += R) {
    const int rows = n1 - n < R ? static_cast<int>(n1 - n) : R;
    const uint16_t* w[R];
    for (int r = 0; r < R; ++r) w[r] = p.w + (n + (r < rows ? r : 0)) * K;
    __m256 acc[M][R];
    for (int i = 0; i < M; ++i)
      for (int r = 0; r < R; ++r) acc[i][r] = _mm256_setzero_ps();
    for (int64_t k = 0; k < kv; k += 8) {
      __m256 wv[R];
      for (int r = 0; r < R; ++r) wv[r] = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[r] + k)));
      for (int i = 0; i < M; ++i) {
        const __m256 xv = _mm256_loadu_ps(p.x + i * p.x_rs + k);
        for (int r = 0; r < R; ++r) acc[i][r] = _mm256_fmadd_ps(xv, wv[r], acc[i][r]);
      }
    }
    for (int i = 0; i < M; ++i)
      for (int r = 0; r < rows; ++r) {
        const float s = hsum256(acc[i][r]) + f16w_tail_dot(p.x + i * p.x_rs, w[r], kv, K);
        p.y[i * p.y_rs + n + r] = p.bias ? s + p.bias[n + r] : s;
      }
  }
}

}  // namespace

// Prefill (M > 8): tiles of RX activation rows x RW weight rows (RX + RW loads feed RX * RW
// FMAs; dots512 with all M rows would need M * R accumulators), each weight row read from
// memory once per column range and converted again for each group of rows (from L1).
template <int RX, int RW, bool kPrefetch = false>
PTE_F16W512 void tile512(const FcF16w& p, int64_t i, int64_t n, int64_t kv) {
  const uint16_t* w[RW];
  const float* x[RX];
  for (int r = 0; r < RW; ++r) w[r] = p.w + (n + r) * p.K;
  for (int a = 0; a < RX; ++a) x[a] = p.x + (i + a) * p.x_rs;
  __m512 acc[RX][RW];
  for (int a = 0; a < RX; ++a)
    for (int r = 0; r < RW; ++r) acc[a][r] = _mm512_setzero_ps();
  const int64_t ahead = RW * p.K;  // the next tile's weight rows
  for (int64_t k = 0; k < kv; k += 16) {
    __m512 wv[RW];
    for (int r = 0; r < RW; ++r) wv[r] = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[r] + k)));
    if constexpr (kPrefetch)  // (16 halves: half a line; every other step)
      if (k % 32 == 0)
        for (int r = 0; r < RW; ++r) _mm_prefetch(reinterpret_cast<const char*>(w[r] + k + ahead), _MM_HINT_T0);
    for (int a = 0; a < RX; ++a) {
      const __m512 xv = _mm512_loadu_ps(x[a] + k);
      for (int r = 0; r < RW; ++r) acc[a][r] = _mm512_fmadd_ps(xv, wv[r], acc[a][r]);
    }
  }
  for (int a = 0; a < RX; ++a)
    for (int r = 0; r < RW; ++r) {
      const float s = _mm512_reduce_add_ps(acc[a][r]) + f16w_tail_dot(x[a], w[r], kv, p.K);
      p.y[(i + a) * p.y_rs + n + r] = p.bias ? s + p.bias[n + r] : s;
    }
}

template <int RW>
PTE_F16W512 void tile_rows512(const FcF16w& p, int64_t n, int64_t kv) {
  int64_t i = 0;  // the first group of rows requests the next tile's weight rows
  if (4 <= p.M) tile512<4, RW, true>(p, 0, n, kv), i = 4;
  for (; i + 4 <= p.M; i += 4) tile512<4, RW>(p, i, n, kv);
  switch (p.M - i) {
    case 3: return tile512<3, RW>(p, i, n, kv);
    case 2: return tile512<2, RW>(p, i, n, kv);
    case 1: return tile512<1, RW>(p, i, n, kv);
    default: return;
  }
}

// One or two activation rows (decode): one weight row at a time (rows512 / rows256);
// more: R weight rows at a time, each read once for all M rows.
void f16w_dots_avx512f(const FcF16w& p, int64_t n0, int64_t n1) {
  switch (p.M) {
    case 1: return rows512<1>(p, n0, n1);
    case 2: return rows512<2>(p, n0, n1);
    case 3: return dots512<3, 2>(p, n0, n1);
    case 4: return dots512<4, 2>(p, n0, n1);
    case 5: return dots512<5, 2>(p, n0, n1);
    case 6: return dots512<6, 2>(p, n0, n1);
    case 7: return dots512<7, 2>(p, n0, n1);
    case 8: return dots512<8, 2>(p, n0, n1);
    default: break;
  }
  const int64_t kv = p.K / 16 * 16;  // more rows: tiles of 4 x 6
  int64_t n = n0;
  for (; n + 6 <= n1; n += 6) tile_rows512<6>(p, n, kv);
  for (; n < n1; ++n) tile_rows512<1>(p, n, kv);
}

void f16w_dots_avx2(const FcF16w& p, int64_t n0, int64_t n1) {
  switch (p.M) {
    case 1: return rows256<1>(p, n0, n1);
    case 2: return rows256<2>(p, n0, n1);
    case 3: return dots256<3, 2>(p, n0, n1);
    case 4: return dots256<4, 2>(p, n0, n1);
    case 5: return dots256<5, 2>(p, n0, n1);
    case 6: return dots256<6, 2>(p, n0, n1);
    case 7: return dots256<7, 1>(p, n0, n1);
    case 8: return dots256<8, 1>(p, n0, n1);
    default: return f16w_dots_scalar(p, n0, n1);
  }
}

namespace {

// r[i] lane j -> r[j] lane i (16 x 16 floats): pairs, quads, then 128-bit blocks twice.
PTE_F16W512 inline void transpose16x16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {  // r[4g + j], block L: rows 4g..4g+3 of column 4L + j
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    t[j] = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x88);
    t[4 + j] = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xdd);
    t[8 + j] = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x88);
    t[12 + j] = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xdd);
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
    r[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xdd);
    r[4 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0x88);
    r[12 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0xdd);
  }
}

}  // namespace

PTE_F16W512 void f16_to_sliver_avx512f(const uint16_t* w, int64_t K, int64_t nc, int64_t kc, float* sl) {
  for (int64_t k0 = 0; k0 < kc; k0 += 16) {
    const int64_t kn = kc - k0 < 16 ? kc - k0 : 16;
    for (int64_t h = 0; h < 32; h += 16) {
      __m512 r[16];
      for (int64_t i = 0; i < 16; ++i) {
        const int64_t n = h + i;
        if (n >= nc) {
          r[i] = _mm512_setzero_ps();
        } else if (kn == 16) {
          r[i] = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + n * K + k0)));
        } else {
          alignas(32) uint16_t t[16] = {};
          for (int64_t k = 0; k < kn; ++k) t[k] = w[n * K + k0 + k];
          r[i] = _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(t)));
        }
      }
      transpose16x16(r);
      for (int64_t k = 0; k < kn; ++k) _mm512_storeu_ps(sl + (k0 + k) * 32 + h, r[k]);
    }
  }
}

PTE_F16C void f16_to_f32_f16c(const uint16_t* h, float* f, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(f + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i))));
  for (; i < n; ++i) f[i] = half_bits_to_float(h[i]);
}

PTE_F16C void f32_to_f16_f16c(const float* f, uint16_t* h, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(h + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; i < n; ++i) h[i] = float_to_half_bits(f[i]);
}

// 16 lanes a step, the tail masked: the same conversions (exact widening; round to nearest
// even, as F16C), twice the width (a prefill's Convert nodes: MBs a node).
PTE_F16W512 void f16_to_f32_avx512f(const uint16_t* h, float* f, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(f + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + i))));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    alignas(32) uint16_t t[16] = {};
    for (int64_t k = i; k < n; ++k) t[k - i] = h[k];
    _mm512_mask_storeu_ps(f + i, m, _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(t))));
  }
}

PTE_F16W512 void f32_to_f16_avx512f(const float* f, uint16_t* h, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(h + i), _mm512_cvtps_ph(_mm512_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    alignas(32) uint16_t t[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(t), _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, f + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (int64_t k = i; k < n; ++k) h[k] = t[k - i];
  }
}

}  // namespace pte::linalg
#endif  // defined(__x86_64__)
