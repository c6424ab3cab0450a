// pte-run linalg: f32 GEMM/GEMV kernels (reference, portable blocked, AVX2+FMA) and
// the threaded dispatcher. See gemm.h.
//
// The blocking is in gemm_impl.h (shared with gemm_avx512f.cpp).
#include "ops/linalg/gemm.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <pthreadpool.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "ops/isa.h"
#include "ops/linalg/claim_pool.h"
#include "ops/linalg/gemm_impl.h"

namespace pte::linalg {

using namespace detail;

namespace {

constexpr int64_t kMr = 6;     // micro-tile rows (scalar, AVX2)
constexpr int64_t kNr = 16;    // micro-tile columns (two AVX vectors)
constexpr int64_t kMc = 120;   // max rows of a thread tile (A block 120 KiB)
constexpr int64_t kNc = 512;   // max columns of a thread tile
constexpr double kMinParallelFlops = 2.0e6;  // below this, waking threads costs more
// GEMV / small M: bound by reading B, and a second core adds bandwidth (measured on a
// 2-core Xeon VM: 576x576 fp32 GEMV 7.3 -> 12.3 GB/s): threaded from 128 KiB of B on.
constexpr double kMinParallelGemvBytes = 128.0 * 1024;
constexpr int64_t kSmallM = 8;  // up to this many rows, weights [N, K] take the dot-product path
constexpr int64_t kSmallMAvx512 = 8;  // the same with AVX-512: at M = 16 the blocked GEMM took 0.5-0.6x the dots' time (Zen 4 VM, SmolLM2 shapes, 2 threads)
// AVX-512, more rows against [N, K] weights: tiles of 4 rows x 6 weight rows as dot products
// (gemm_dots_f32_avx512f), nothing packed, the next tile's weight rows prefetched. SmolLM2-135M
// fp32 prefill, 2 threads, Zen 5 VM, against the blocked GEMM (which packs every weight sliver
// per call): 16 tokens 42 -> 24 ms, 32: 45 -> 33, 64: 67 -> 58, 150: a tie.
constexpr int64_t kTilesMaxMAvx512 = 64;

inline void store_tile(const float* t, int mr, int64_t nc, float* c, int64_t c_rs, int64_t c_cs, bool first) {
  detail::store_tile<kNr>(t, mr, nc, c, c_rs, c_cs, first);
}

// ---- portable micro-kernel ----------------------------------------------------
// One row at a time (16 accumulators the compiler keeps in vector registers); the
// B sliver is re-read from L1 for each row.

void ukernel_scalar(int mr, int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, int64_t b_rs,
                    float* c, int64_t c_rs, int64_t c_cs, int64_t nc, bool first, float alpha) {
  float t[kMr * kNr];
  for (int r = 0; r < mr; ++r) {
    float acc[kNr] = {};
    const float* ar = a + r * a_rs;
    for (int64_t k = 0; k < kc; ++k) {
      const float av = ar[k * a_cs];
      const float* brow = b + k * b_rs;
      for (int j = 0; j < kNr; ++j) acc[j] += av * brow[j];
    }
    for (int j = 0; j < kNr; ++j) t[r * kNr + j] = alpha * acc[j];
  }
  store_tile(t, mr, nc, c, c_rs, c_cs, first);
}

#if defined(__x86_64__)
// t[8i, 8i + 8) = alpha * v_i for the accumulators in order (a row-major tile).
template <class... V>
__attribute__((target("avx2,fma"), always_inline)) inline void scale_store(float* t, __m256 va, V... v) {
  int i = 0;
  ((_mm256_store_ps(t + 8 * i++, _mm256_mul_ps(v, va))), ...);
}

// ---- AVX2 + FMA micro-kernel ----------------------------------------------------
// 6 rows x 16 columns in 12 named accumulators (arrays of __m256 get spilled by
// GCC). Rows past `mr` read row 0 again and are discarded at the store.
__attribute__((target("avx2,fma"))) void ukernel_avx2_fma(int mr, int64_t kc, const float* a, int64_t a_rs,
                                                          int64_t a_cs, const float* b, int64_t b_rs, float* c,
                                                          int64_t c_rs, int64_t c_cs, int64_t nc, bool first,
                                                          float alpha) {
  const float* ar[kMr];
  block_rows(a, a_rs, mr, ar);
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (int64_t k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    b += b_rs;
    const int64_t o = k * a_cs;
    __m256 av = _mm256_broadcast_ss(ar[0] + o);
    c00 = _mm256_fmadd_ps(av, b0, c00);
    c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(ar[1] + o);
    c10 = _mm256_fmadd_ps(av, b0, c10);
    c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(ar[2] + o);
    c20 = _mm256_fmadd_ps(av, b0, c20);
    c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(ar[3] + o);
    c30 = _mm256_fmadd_ps(av, b0, c30);
    c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(ar[4] + o);
    c40 = _mm256_fmadd_ps(av, b0, c40);
    c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(ar[5] + o);
    c50 = _mm256_fmadd_ps(av, b0, c50);
    c51 = _mm256_fmadd_ps(av, b1, c51);
  }
  alignas(32) float t[kMr * kNr];
  scale_store(t, _mm256_set1_ps(alpha), c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51);
  if (nc == kNr && c_cs == 1) {
    for (int r = 0; r < mr; ++r) {
      float* cr = c + r * c_rs;
      __m256 x0 = _mm256_load_ps(t + r * kNr), x1 = _mm256_load_ps(t + r * kNr + 8);
      if (!first) {
        x0 = _mm256_add_ps(x0, _mm256_loadu_ps(cr));
        x1 = _mm256_add_ps(x1, _mm256_loadu_ps(cr + 8));
      }
      _mm256_storeu_ps(cr, x0);
      _mm256_storeu_ps(cr + 8, x1);
    }
  } else {
    store_tile(t, mr, nc, c, c_rs, c_cs, first);
  }
}
#endif  // defined(__x86_64__)

}  // namespace

// ---- public kernels ---------------------------------------------------------------

void gemm_f32_ref(const GemmF32& g) {
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t i = 0; i < g.M; ++i)
      for (int64_t j = 0; j < g.N; ++j) {
        float s = 0.0f;
        for (int64_t k = 0; k < g.K; ++k)
          s += g.a[n * g.a_bs + i * g.a_rs + k * g.a_cs] * g.b[n * g.b_bs + k * g.b_rs + j * g.b_cs];
        float* p = g.c + n * g.c_bs + i * g.c_rs + j * g.c_cs;
        *p = g.accumulate ? *p + g.alpha * s : g.alpha * s;
      }
}

void gemm_f32_scalar(const GemmF32& g, int64_t bi, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  gemm_tile<kMr, kNr>(ukernel_scalar, g, bi, m0, m1, n0, n1);
}

#if defined(__x86_64__)
void gemm_f32_avx2_fma(const GemmF32& g, int64_t bi, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  gemm_tile<kMr, kNr>(ukernel_avx2_fma, g, bi, m0, m1, n0, n1);
}
#endif

void gemv_f32_scalar(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  const float* a = g.a + bi * g.a_bs;
  const float* B = g.b + bi * g.b_bs;
  float* c = g.c + bi * g.c_bs;
  if (g.b_cs == 1) {  // stream B row by row into a chunk of accumulators
    float acc[kGemvChunk];
    for (int64_t j0 = n0; j0 < n1; j0 += kGemvChunk) {
      const int64_t nj = std::min(kGemvChunk, n1 - j0);
      for (int64_t j = 0; j < nj; ++j) acc[j] = 0.0f;
      for (int64_t k = 0; k < g.K; ++k) {
        const float xk = a[k * g.a_cs];
        const float* br = B + k * g.b_rs + j0;
        for (int64_t j = 0; j < nj; ++j) acc[j] += xk * br[j];
      }
      for (int64_t j = 0; j < nj; ++j) gemv_finish(g, c, j0 + j, acc[j]);
    }
    return;
  }
  for (int64_t j = n0; j < n1; ++j) {  // one dot product per column
    float s = 0.0f;
    for (int64_t k = 0; k < g.K; ++k) s += a[k * g.a_cs] * B[k * g.b_rs + j * g.b_cs];
    gemv_finish(g, c, j, s);
  }
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static inline float hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

namespace {

// The vector loops of the AVX2+FMA GEMV (gemv_tile in gemm_impl.h): 8-float partial
// sums, then the K tail in order.
struct Avx2Gemv {
  static constexpr int kDotRows = 4;
  template <int R>
  __attribute__((target("avx2,fma"))) static void dots(const float* a, const float* const* w, int64_t K, float* out,
                                                       int64_t /*ahead*/) {
    __m256 s[R];
    for (int r = 0; r < R; ++r) s[r] = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 8 <= K; k += 8) {
      const __m256 av = _mm256_loadu_ps(a + k);
      for (int r = 0; r < R; ++r) s[r] = _mm256_fmadd_ps(av, _mm256_loadu_ps(w[r] + k), s[r]);
    }
    for (int r = 0; r < R; ++r) out[r] = hsum256(s[r]);
    for (; k < K; ++k)
      for (int r = 0; r < R; ++r) out[r] += a[k] * w[r][k];
  }
  __attribute__((target("avx2,fma"))) static void axpy(float* acc, const float* b, float x, int64_t n) {
    const __m256 xv = _mm256_set1_ps(x);
    const int64_t nv = n / 8 * 8;
    int64_t j = 0;
    for (; j < nv; j += 8) _mm256_store_ps(acc + j, _mm256_fmadd_ps(xv, _mm256_loadu_ps(b + j), _mm256_load_ps(acc + j)));
    for (; j < n; ++j) acc[j] += x * b[j];
  }
};

}  // namespace

void gemv_f32_avx2_fma(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) { gemv_tile<Avx2Gemv>(g, bi, n0, n1); }
#endif  // defined(__x86_64__)

// Few rows (M <= kSmallM) against a weight stored [N, K] (B(k, j) = W[j*b_cs + k]):
// one pass over each weight row serves every row of A, so W is read once, as in
// the M == 1 dot-product GEMV (decode-like shapes: short prompts, speculative steps).
void gemm_small_m_f32_scalar(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  const float* A = g.a + bi * g.a_bs;
  const float* B = g.b + bi * g.b_bs;
  float* C = g.c + bi * g.c_bs;
  for (int64_t j = n0; j < n1; ++j) {
    const float* w = B + j * g.b_cs;
    for (int64_t i = 0; i < g.M; ++i) {
      const float* a = A + i * g.a_rs;
      float s = 0.0f;
      for (int64_t k = 0; k < g.K; ++k) s += a[k] * w[k];
      gemv_finish(g, C + i * g.c_rs, j, s);
    }
  }
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void gemm_small_m_f32_avx2_fma(const GemmF32& g, int64_t bi, int64_t n0,
                                                                   int64_t n1) {
  const float* A = g.a + bi * g.a_bs;
  const float* B = g.b + bi * g.b_bs;
  float* C = g.c + bi * g.c_bs;
  const int64_t K = g.K, M = g.M, K8 = K / 8 * 8;
  for (int64_t j = n0; j < n1; ++j) {
    const float* w = B + j * g.b_cs;
    __m256 acc[kSmallM];
    for (int64_t i = 0; i < M; ++i) acc[i] = _mm256_setzero_ps();
    for (int64_t k = 0; k < K8; k += 8) {
      const __m256 wv = _mm256_loadu_ps(w + k);
      for (int64_t i = 0; i < M; ++i) acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(A + i * g.a_rs + k), wv, acc[i]);
    }
    for (int64_t i = 0; i < M; ++i) {
      const float* a = A + i * g.a_rs;
      float s = hsum256(acc[i]);
      for (int64_t k = K8; k < K; ++k) s += a[k] * w[k];
      gemv_finish(g, C + i * g.c_rs, j, s);
    }
  }
}
#endif  // defined(__x86_64__)

bool cpu_has_avx2_fma() { return isa::cpu().avx2_fma(); }

bool cpu_has_avx512f() { return isa::cpu().avx512f && cpu_has_avx2_fma(); }

GemmIsa gemm_auto_isa() {
  // PTE_GEMM_ISA=scalar|avx2|avx512f caps the choice (A/B timing); read once.
  static const GemmIsa isa = [] {
#if defined(__aarch64__) || defined(__arm__)
    const GemmIsa best = isa::cpu().neon ? GemmIsa::Neon : GemmIsa::Scalar;
#else
    const GemmIsa best = cpu_has_avx512f() ? GemmIsa::Avx512f : cpu_has_avx2_fma() ? GemmIsa::Avx2Fma : GemmIsa::Scalar;
#endif
    const char* e = std::getenv("PTE_GEMM_ISA");
    if (!e) return best;
    if (std::strcmp(e, "scalar") == 0) return GemmIsa::Scalar;
    if (std::strcmp(e, "avx2") == 0 && best == GemmIsa::Avx512f) return GemmIsa::Avx2Fma;
    return best;
  }();
  return isa;
}

void gemm_f32(pthreadpool* pool, const GemmF32& g, GemmIsa isa) {
  gemm_f32(pool ? static_cast<int>(pthreadpool_get_threads_count(pool)) : 1, g, isa);
}

void gemm_f32(int nthreads, const GemmF32& g, GemmIsa isa) {
  if (g.batch <= 0 || g.M <= 0 || g.N <= 0) return;
  if (g.K <= 0) {
    if (!g.accumulate)
      for (int64_t n = 0; n < g.batch; ++n)
        for (int64_t i = 0; i < g.M; ++i)
          for (int64_t j = 0; j < g.N; ++j) g.c[n * g.c_bs + i * g.c_rs + j * g.c_cs] = 0.0f;
    return;
  }
  if (isa == GemmIsa::Auto) isa = gemm_auto_isa();
  const double flops = static_cast<double>(g.batch) * g.M * g.N * g.K;
  const bool tiles = isa == GemmIsa::Avx512f && g.M > kSmallMAvx512 && g.M <= kTilesMaxMAvx512 && g.b_rs == 1 && g.a_cs == 1;
  const bool dots =
      tiles || g.M == 1 || (g.M <= (isa == GemmIsa::Avx512f ? kSmallMAvx512 : kSmallM) && g.b_rs == 1 && g.a_cs == 1);
  const double b_bytes = 4.0 * static_cast<double>(g.N) * g.K * (g.b_bs ? g.batch : 1);
  const int64_t threads =
      (dots ? b_bytes < kMinParallelGemvBytes : flops < kMinParallelFlops) ? 1 : std::max(1, nthreads);

  if (dots) {
    // Bandwidth-bound: column tiles claimed by the caller and the awake helpers
    // (claim_pool.h), never a wait for a descheduled worker.
    const bool gemv = g.M == 1;
    int64_t tn = g.N;
    const int64_t align = tiles ? 48 : 32;  // (tiles: whole 6-column tiles)
    if (threads > 1) tn = std::max<int64_t>(align, round_up((g.N + 4 * threads - 1) / (4 * threads), align));
    struct Job {
      const GemmF32* g;
      GemmIsa isa;
      bool gemv, tiles;
      int64_t tn, tiles_per_batch;
    } job{&g, isa, gemv, tiles, tn, (g.N + tn - 1) / tn};
    auto run = [](void* p, int64_t t) {
      const Job& jb = *static_cast<const Job*>(p);
      const GemmF32& gg = *jb.g;
      const int64_t bi = t / jb.tiles_per_batch, j0 = t % jb.tiles_per_batch * jb.tn;
      const int64_t j1 = std::min(gg.N, j0 + jb.tn);
      switch (jb.isa) {
#if defined(__x86_64__)
        case GemmIsa::Avx512f:
          jb.gemv ? gemv_f32_avx512f(gg, bi, j0, j1)
          : jb.tiles ? gemm_dots_f32_avx512f(gg, bi, j0, j1)
                     : gemm_small_m_f32_avx512f(gg, bi, j0, j1);
          break;
        case GemmIsa::Avx2Fma:
          jb.gemv ? gemv_f32_avx2_fma(gg, bi, j0, j1) : gemm_small_m_f32_avx2_fma(gg, bi, j0, j1);
          break;
#endif
#if defined(__aarch64__) || defined(__arm__)
        case GemmIsa::Neon:
          jb.gemv ? gemv_f32_neon(gg, bi, j0, j1) : gemm_small_m_f32_neon(gg, bi, j0, j1);
          break;
#endif
        default:
          jb.gemv ? gemv_f32_scalar(gg, bi, j0, j1) : gemm_small_m_f32_scalar(gg, bi, j0, j1);
      }
    };
    claim_parallel_for(static_cast<int>(threads - 1), g.batch * job.tiles_per_batch, run, &job);
    return;
  }

  // AVX-512: 8x32 micro-tiles and taller row tiles (the A block stays in L2).
  const bool wide = isa == GemmIsa::Avx512f;
  const int64_t mr = wide ? 8 : kMr, nr = wide ? 32 : kNr, mc = wide ? 256 : kMc;
  int64_t tm = std::min(round_up(g.M, mr), mc), tn = std::min(round_up(g.N, nr), kNc);
  auto tasks = [&] { return g.batch * ((g.M + tm - 1) / tm) * ((g.N + tn - 1) / tn); };
  while (threads > 1 && tasks() < 4 * threads && (tm > mr || tn > nr)) {
    if (tn > nr && (tn >= tm || tm <= mr))
      tn = round_up(tn / 2, nr);
    else
      tm = round_up(tm / 2, mr);
  }
  // Tiles claimed by the caller and the awake helpers (claim_pool.h), so a busy
  // machine degrades to the calling thread's speed instead of waiting for workers.
  struct Job {
    const GemmF32* g;
    GemmIsa isa;
    int64_t tm, tn, mt, nt;
  } job{&g, isa, tm, tn, (g.M + tm - 1) / tm, (g.N + tn - 1) / tn};
  auto run = [](void* p, int64_t t) {
    const Job& jb = *static_cast<const Job*>(p);
    const GemmF32& gg = *jb.g;
    const int64_t bi = t / (jb.mt * jb.nt), r = t % (jb.mt * jb.nt);
    const int64_t i0 = r / jb.nt * jb.tm, j0 = r % jb.nt * jb.tn;
    const int64_t i1 = std::min(gg.M, i0 + jb.tm), j1 = std::min(gg.N, j0 + jb.tn);
    switch (jb.isa) {
#if defined(__x86_64__)
      case GemmIsa::Avx512f: gemm_f32_avx512f(gg, bi, i0, i1, j0, j1); break;
      case GemmIsa::Avx2Fma: gemm_f32_avx2_fma(gg, bi, i0, i1, j0, j1); break;
#endif
#if defined(__aarch64__) || defined(__arm__)
      case GemmIsa::Neon: gemm_f32_neon(gg, bi, i0, i1, j0, j1); break;
#endif
      default: gemm_f32_scalar(gg, bi, i0, i1, j0, j1);
    }
  };
  claim_parallel_for(static_cast<int>(threads - 1), g.batch * job.mt * job.nt, run, &job);
}

}  // namespace pte::linalg
