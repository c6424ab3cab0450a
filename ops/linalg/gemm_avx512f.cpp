// pte-run linalg: AVX-512F f32 kernels (see gemm.h): the 8x32 GEMM micro-kernel over
// the shared blocking of gemm_impl.h, the M == 1 GEMV and the 2 <= M <= 8 small-M
// dot products. Tails along K and N use masked loads/stores (no scalar tails).
// Compiled with function-level target attributes; gemm_f32 calls them only when
// cpu_has_avx512f().
// GCC 12 flags the _mm256_undefined_pd() inside _mm512_reduce_add_ps (a false positive).
#if defined(__x86_64__)  // x86 only: other ISAs take the scalar reference
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include "ops/isa.h"
#include "ops/linalg/gemm_impl.h"

namespace pte::linalg {

using namespace detail;

namespace {

constexpr int kMr = 8;
constexpr int kNr = 32;  // two zmm vectors

#define PTE_TGT __attribute__((target("avx512f")))

PTE_TGT inline __mmask16 tail_mask(int64_t n) { return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u); }

// t[16i, 16i + 16) = alpha * v_i for the accumulators in order (a row-major tile).
template <class... V>
__attribute__((target("avx512f"), always_inline)) inline void scale_store(float* t, __m512 va, V... v) {
  int i = 0;
  ((_mm512_store_ps(t + 16 * i++, _mm512_mul_ps(v, va))), ...);
}

// 8 rows x 32 columns in 16 named accumulators; rows past `mr` read row 0 again and
// are discarded at the store.
PTE_TGT void ukernel_avx512f(int mr, int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
                             int64_t b_rs, float* c, int64_t c_rs, int64_t c_cs, int64_t nc, bool first, float alpha) {
  const float* ar[kMr];
  block_rows(a, a_rs, mr, ar);
  __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  __m512 c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00;
#define PTE_ROW(r)                                  \
  {                                                 \
    const __m512 av = _mm512_set1_ps(ar[r][o]);      \
    c##r##0 = _mm512_fmadd_ps(av, b0, c##r##0);     \
    c##r##1 = _mm512_fmadd_ps(av, b1, c##r##1);     \
  }
  for (int64_t k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
    b += b_rs;
    const int64_t o = k * a_cs;
    PTE_ROW(0) PTE_ROW(1) PTE_ROW(2) PTE_ROW(3) PTE_ROW(4) PTE_ROW(5) PTE_ROW(6) PTE_ROW(7)
  }
#undef PTE_ROW
  alignas(64) float t[kMr * kNr];
  scale_store(t, _mm512_set1_ps(alpha), c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70,
              c71);
  if (c_cs == 1) {
    const __mmask16 m0 = tail_mask(nc), m1 = tail_mask(nc - 16 > 0 ? nc - 16 : 0);
    for (int r = 0; r < mr; ++r) {
      float* cr = c + r * c_rs;
      __m512 x0 = _mm512_load_ps(t + r * kNr), x1 = _mm512_load_ps(t + r * kNr + 16);
      if (!first) {
        x0 = _mm512_add_ps(x0, _mm512_maskz_loadu_ps(m0, cr));
        x1 = _mm512_add_ps(x1, _mm512_maskz_loadu_ps(m1, cr + 16));
      }
      _mm512_mask_storeu_ps(cr, m0, x0);
      _mm512_mask_storeu_ps(cr + 16, m1, x1);
    }
  } else {
    store_tile<kNr>(t, mr, nc, c, c_rs, c_cs, first);
  }
}

// In-register transpose of 16 rows of 16 floats: r[i][j] -> r[j][i].
PTE_TGT inline void transpose16(__m512 r[16]) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // u[4g + c], per 128-bit lane L: rows 4g..4g+3 at column 4L + c
  for (int gr = 0; gr < 4; ++gr) {
    u[4 * gr + 0] = _mm512_shuffle_ps(t[4 * gr], t[4 * gr + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * gr + 1] = _mm512_shuffle_ps(t[4 * gr], t[4 * gr + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * gr + 2] = _mm512_shuffle_ps(t[4 * gr + 1], t[4 * gr + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * gr + 3] = _mm512_shuffle_ps(t[4 * gr + 1], t[4 * gr + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int c = 0; c < 4; ++c) {
    const __m512 v = _mm512_shuffle_f32x4(u[c], u[4 + c], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 w = _mm512_shuffle_f32x4(u[c], u[4 + c], _MM_SHUFFLE(3, 1, 3, 1));
    const __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 w2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], _MM_SHUFFLE(3, 1, 3, 1));
    r[c] = _mm512_shuffle_f32x4(v, v2, _MM_SHUFFLE(2, 0, 2, 0));       // columns 0..3
    r[8 + c] = _mm512_shuffle_f32x4(v, v2, _MM_SHUFFLE(3, 1, 3, 1));   // columns 8..11
    r[4 + c] = _mm512_shuffle_f32x4(w, w2, _MM_SHUFFLE(2, 0, 2, 0));   // columns 4..7
    r[12 + c] = _mm512_shuffle_f32x4(w, w2, _MM_SHUFFLE(3, 1, 3, 1));  // columns 12..15
  }
}

// The B sliver for a [N, K] weight (b_rs == 1, B(k, j) = W[j*b_cs + k]): 16x16 blocks
// transposed in registers into the kc x 32 buffer (missing columns zero). Other
// layouts take the portable b_sliver.
PTE_TGT const float* b_sliver_avx512f(const GemmF32& g, const float* B, int64_t p0, int64_t kc, int64_t j0,
                                      int64_t nc, float* buf, int64_t* bstride) {
  if (g.b_rs != 1 || (nc == kNr && g.b_cs == 1)) return b_sliver<kNr>(g, B, p0, kc, j0, nc, buf, bstride);
  __m512 r[16];
  for (int64_t k0 = 0; k0 < kc; k0 += 16) {
    const int64_t nk = std::min<int64_t>(16, kc - k0);
    const __mmask16 mk = tail_mask(nk);
    for (int half = 0; half < 2; ++half) {
      for (int j = 0; j < 16; ++j) {
        const int64_t jj = half * 16 + j;
        r[j] = jj < nc ? _mm512_maskz_loadu_ps(mk, B + (j0 + jj) * g.b_cs + p0 + k0) : _mm512_setzero_ps();
      }
      transpose16(r);
      for (int64_t k = 0; k < nk; ++k) _mm512_store_ps(buf + (k0 + k) * kNr + half * 16, r[k]);
    }
  }
  // The next sliver's rows (the same K block) into L2 while this one is multiplied: its
  // 32 strided row pieces defeat the hardware prefetcher.
  const int64_t jn = std::min<int64_t>(kNr, g.N - (j0 + kNr));
  for (int64_t j = 0; j < jn; ++j) {
    const char* row = reinterpret_cast<const char*>(B + (j0 + kNr + j) * g.b_cs + p0);
    for (int64_t off = 0; off < kc * 4; off += 64) _mm_prefetch(row + off, _MM_HINT_T1);
  }
  *bstride = kNr;
  return buf;
}

// The vector loops of the AVX-512F GEMV (gemv_tile in gemm_impl.h); K tails masked.
// Rows: weight rows (streams) per call; Prefetch: also prefetch each stream `ahead` floats
// on (read soon). Which suits a CPU differs by its memory system (gemv_f32_avx512f).
template <int Rows, bool Prefetch>
struct Avx512Gemv {
  static constexpr int kDotRows = Rows;
  template <int R>
  PTE_TGT static void dots(const float* a, const float* const* w, int64_t K, float* out, int64_t ahead) {
    __m512 s[R];
    for (int r = 0; r < R; ++r) s[r] = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k + 16 <= K; k += 16) {
      const __m512 av = _mm512_loadu_ps(a + k);
      if (Prefetch && ahead)
        for (int r = 0; r < R; ++r) _mm_prefetch(reinterpret_cast<const char*>(w[r] + ahead + k), _MM_HINT_T0);
      for (int r = 0; r < R; ++r) s[r] = _mm512_fmadd_ps(av, _mm512_loadu_ps(w[r] + k), s[r]);
    }
    if (k < K) {
      const __mmask16 m = tail_mask(K - k);
      const __m512 av = _mm512_maskz_loadu_ps(m, a + k);
      for (int r = 0; r < R; ++r) s[r] = _mm512_fmadd_ps(av, _mm512_maskz_loadu_ps(m, w[r] + k), s[r]);
    }
    for (int r = 0; r < R; ++r) out[r] = _mm512_reduce_add_ps(s[r]);
  }
  PTE_TGT static void axpy(float* acc, const float* b, float x, int64_t n) {
    const __m512 xv = _mm512_set1_ps(x);
    for (int64_t j = 0; j < n; j += 16) {
      const __mmask16 m = tail_mask(n - j);
      _mm512_mask_store_ps(acc + j, m, _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(m, b + j), _mm512_maskz_load_ps(m, acc + j)));
    }
  }
};

// Small M (<= 16) against [N, K] weights: one pass over each weight row serves all M rows.
template <int M>
PTE_TGT void small_m_avx512f(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  const float* A = g.a + bi * g.a_bs;
  const float* B = g.b + bi * g.b_bs;
  float* C = g.c + bi * g.c_bs;
  const int64_t K = g.K;
  for (int64_t j = n0; j < n1; ++j) {
    const float* w = B + j * g.b_cs;
    __m512 acc[M];
    for (int i = 0; i < M; ++i) acc[i] = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k + 16 <= K; k += 16) {
      const __m512 wv = _mm512_loadu_ps(w + k);
      for (int i = 0; i < M; ++i) acc[i] = _mm512_fmadd_ps(_mm512_loadu_ps(A + i * g.a_rs + k), wv, acc[i]);
    }
    if (k < K) {
      const __mmask16 m = tail_mask(K - k);
      const __m512 wv = _mm512_maskz_loadu_ps(m, w + k);
      for (int i = 0; i < M; ++i) acc[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, A + i * g.a_rs + k), wv, acc[i]);
    }
    for (int i = 0; i < M; ++i) gemv_finish(g, C + i * g.c_rs, j, _mm512_reduce_add_ps(acc[i]));
  }
}

// A tile of RX rows x RW weight rows as dot products over K (both K-contiguous, nothing
// packed): RX + RW loads feed RX * RW FMAs (small_m_avx512f: M + 1 loads for M), each
// weight row read from memory once per column tile and from L1 for the other row groups.
template <int RX, int RW, bool kPrefetch = false>
PTE_TGT void dots_tile_avx512f(const GemmF32& g, const float* A, const float* B, float* C, int64_t i, int64_t j) {
  const int64_t K = g.K;
  const float* a[RX];
  const float* w[RW];
  for (int x = 0; x < RX; ++x) a[x] = A + (i + x) * g.a_rs;
  for (int r = 0; r < RW; ++r) w[r] = B + (j + r) * g.b_cs;
  __m512 acc[RX][RW];
  for (int x = 0; x < RX; ++x)
    for (int r = 0; r < RW; ++r) acc[x][r] = _mm512_setzero_ps();
  int64_t k = 0;
  const int64_t ahead = RW * g.b_cs;  // the next tile's weight rows
  for (; k + 16 <= K; k += 16) {
    __m512 wv[RW];
    for (int r = 0; r < RW; ++r) wv[r] = _mm512_loadu_ps(w[r] + k);
    if constexpr (kPrefetch)
      for (int r = 0; r < RW; ++r) _mm_prefetch(reinterpret_cast<const char*>(w[r] + k + ahead), _MM_HINT_T0);
    for (int x = 0; x < RX; ++x) {
      const __m512 av = _mm512_loadu_ps(a[x] + k);
      for (int r = 0; r < RW; ++r) acc[x][r] = _mm512_fmadd_ps(av, wv[r], acc[x][r]);
    }
  }
  if (k < K) {
    const __mmask16 m = tail_mask(K - k);
    __m512 wv[RW];
    for (int r = 0; r < RW; ++r) wv[r] = _mm512_maskz_loadu_ps(m, w[r] + k);
    for (int x = 0; x < RX; ++x) {
      const __m512 av = _mm512_maskz_loadu_ps(m, a[x] + k);
      for (int r = 0; r < RW; ++r) acc[x][r] = _mm512_fmadd_ps(av, wv[r], acc[x][r]);
    }
  }
  for (int x = 0; x < RX; ++x)
    for (int r = 0; r < RW; ++r) gemv_finish(g, C + (i + x) * g.c_rs, j + r, _mm512_reduce_add_ps(acc[x][r]));
}

constexpr int kTileX = 4, kTileW = 6;

template <int RW>
PTE_TGT void dots_rows_avx512f(const GemmF32& g, const float* A, const float* B, float* C, int64_t j) {
  // the first group of rows requests the next tile's weight rows (cold: a prompt's weights
  // come from memory) while the others reuse this tile's from L1
  int64_t i = 0;
  if (kTileX <= g.M) dots_tile_avx512f<kTileX, RW, true>(g, A, B, C, 0, j), i = kTileX;
  for (; i + kTileX <= g.M; i += kTileX) dots_tile_avx512f<kTileX, RW>(g, A, B, C, i, j);
  switch (g.M - i) {
    case 3: dots_tile_avx512f<3, RW>(g, A, B, C, i, j); break;
    case 2: dots_tile_avx512f<2, RW>(g, A, B, C, i, j); break;
    case 1: dots_tile_avx512f<1, RW>(g, A, B, C, i, j); break;
    default: break;
  }
}

}  // namespace

void gemm_f32_avx512f(const GemmF32& g, int64_t bi, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  gemm_tile<kMr, kNr, b_sliver_avx512f>(ukernel_avx512f, g, bi, m0, m1, n0, n1);
}

// Eight streams with software prefetch: on the Intel Xeon VMs the hardware prefetcher alone
// reached ~8 GB/s of one core's ~10 on eight strided streams, and eight streams a thread read
// ~27 GB/s on two threads against 20.5 with one. AMD Zen 4 (the EPYC VM) is the other way
// round: two streams without software prefetch read 24-26 GB/s on one thread against 16-19
// for eight with it (576 x 49152 / 576 x 1536 / 1536 x 576 weights streamed from memory).
void gemv_f32_avx512f_streams8(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  gemv_tile<Avx512Gemv<8, true>>(g, bi, n0, n1);
}
void gemv_f32_avx512f_streams2(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  gemv_tile<Avx512Gemv<2, false>>(g, bi, n0, n1);
}
void gemv_f32_avx512f(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  static const bool amd = isa::cpu().vendor == isa::Vendor::Amd;
  amd ? gemv_f32_avx512f_streams2(g, bi, n0, n1) : gemv_f32_avx512f_streams8(g, bi, n0, n1);
}

void gemm_dots_f32_avx512f(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  const float* A = g.a + bi * g.a_bs;
  const float* B = g.b + bi * g.b_bs;
  float* C = g.c + bi * g.c_bs;
  int64_t j = n0;
  for (; j + kTileW <= n1; j += kTileW) dots_rows_avx512f<kTileW>(g, A, B, C, j);
  for (; j < n1; ++j) dots_rows_avx512f<1>(g, A, B, C, j);
}

void gemm_small_m_f32_avx512f(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  switch (g.M) {
    case 1: small_m_avx512f<1>(g, bi, n0, n1); break;
    case 2: small_m_avx512f<2>(g, bi, n0, n1); break;
    case 3: small_m_avx512f<3>(g, bi, n0, n1); break;
    case 4: small_m_avx512f<4>(g, bi, n0, n1); break;
    case 5: small_m_avx512f<5>(g, bi, n0, n1); break;
    case 6: small_m_avx512f<6>(g, bi, n0, n1); break;
    case 7: small_m_avx512f<7>(g, bi, n0, n1); break;
    case 8: small_m_avx512f<8>(g, bi, n0, n1); break;
    case 9: small_m_avx512f<9>(g, bi, n0, n1); break;
    case 10: small_m_avx512f<10>(g, bi, n0, n1); break;
    case 11: small_m_avx512f<11>(g, bi, n0, n1); break;
    case 12: small_m_avx512f<12>(g, bi, n0, n1); break;
    case 13: small_m_avx512f<13>(g, bi, n0, n1); break;
    case 14: small_m_avx512f<14>(g, bi, n0, n1); break;
    case 15: small_m_avx512f<15>(g, bi, n0, n1); break;
    default: small_m_avx512f<16>(g, bi, n0, n1); break;
  }
}

#undef PTE_TGT

}  // namespace pte::linalg
#endif  // defined(__x86_64__)
