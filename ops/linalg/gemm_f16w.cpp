// pte-run linalg: fully connected with fp16 weights (see gemm_f16w.h): the reference,
// the scalar variant, the row conversions' dispatch and the threaded dispatcher.
#include "ops/linalg/gemm_f16w.h"

#include <algorithm>

#include "ops/isa.h"
#include "ops/linalg/claim_pool.h"
#include "ops/linalg/conv_nhwc.h"
#include "ops/linalg/gemm.h"
#include "ops/util.h"

namespace pte::linalg {

namespace {

constexpr int64_t kDotsMaxM = 8;       // up to this many rows: dot products (weights read once)
// AVX-512: up to this many rows, tiles of 4 rows x 6 weight rows as dot products (f16w_dots_avx512f).
// SmolLM2-135M fp16 prefill, 2 threads, Zen 5 VM, against the blocked form: 16 tokens 27 -> 22 ms,
// 32: 45 -> 41 ms, 64: a tie.
constexpr int64_t kTilesMaxMAvx512 = 32;
constexpr int64_t kTileN = 32;         // blocked: columns per tile (the fp32 GEMM's sliver width)
constexpr int64_t kTileK = 256;        // blocked: K block converted at a time (32 KB on the stack)
constexpr int64_t kTileM = 256;        // blocked: rows per tile
constexpr double kMinParallelBytes = 128.0 * 1024;  // dots: below this many weight bytes, one thread
constexpr double kMinParallelFlops = 2.0e6;

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

}  // namespace

void f16_to_f32_scalar(const uint16_t* h, float* f, int64_t n) {
  for (int64_t i = 0; i < n; ++i) f[i] = half_bits_to_float(h[i]);
}
void f32_to_f16_scalar(const float* f, uint16_t* h, int64_t n) {
  for (int64_t i = 0; i < n; ++i) h[i] = float_to_half_bits(f[i]);
}

F16wIsa f16w_auto_isa() {
  switch (gemm_auto_isa()) {
    case GemmIsa::Avx512f: return F16wIsa::Avx512f;  // AVX-512F includes the F16C conversions
    case GemmIsa::Avx2Fma: return isa::cpu().f16c ? F16wIsa::Avx2F16c : F16wIsa::Scalar;
#if defined(__aarch64__)
    case GemmIsa::Neon: return F16wIsa::Neon;
#endif
    default: return F16wIsa::Scalar;
  }
}

bool f16w_isa_supported(F16wIsa isa) {
  switch (isa) {
    case F16wIsa::Auto:
    case F16wIsa::Scalar: return true;
#if defined(__x86_64__)
    case F16wIsa::Avx2F16c: return cpu_has_avx2_fma() && isa::cpu().f16c;
    case F16wIsa::Avx512f: return cpu_has_avx512f();
#endif
#if defined(__aarch64__)
    case F16wIsa::Neon: return true;
#endif
    default: return false;
  }
}

namespace {

// The row conversions of this CPU, chosen once.
struct RowConversions {
  void (*to_f32)(const uint16_t*, float*, int64_t) = f16_to_f32_scalar;
  void (*to_f16)(const float*, uint16_t*, int64_t) = f32_to_f16_scalar;
};
const RowConversions& row_conversions() {
  static const RowConversions r = [] {
    RowConversions c;
    const F16wIsa isa = f16w_auto_isa();
#if defined(__x86_64__)
    if (isa == F16wIsa::Avx512f) c.to_f32 = f16_to_f32_avx512f, c.to_f16 = f32_to_f16_avx512f;
    if (isa == F16wIsa::Avx2F16c) c.to_f32 = f16_to_f32_f16c, c.to_f16 = f32_to_f16_f16c;
#elif defined(__aarch64__)
    if (isa == F16wIsa::Neon) c.to_f32 = f16_to_f32_neon, c.to_f16 = f32_to_f16_neon;
#endif
    (void)isa;
    return c;
  }();
  return r;
}

}  // namespace

void convert_f16_to_f32(const uint16_t* h, float* f, int64_t n) { row_conversions().to_f32(h, f, n); }
void convert_f32_to_f16(const float* f, uint16_t* h, int64_t n) { row_conversions().to_f16(f, h, n); }

void round_through_f16(const float* x, float* y, int64_t n) {
  const RowConversions& c = row_conversions();
  uint16_t h[512];
  for (int64_t i = 0; i < n; i += 512) {
    const int64_t m = std::min<int64_t>(512, n - i);
    c.to_f16(x + i, h, m);
    c.to_f32(h, y + i, m);
  }
}

float f16w_tail_dot(const float* x, const uint16_t* w, int64_t k0, int64_t K) {
  float s = 0.0f;
  for (int64_t k = k0; k < K; ++k) s += x[k] * half_bits_to_float(w[k]);
  return s;
}

void fc_f16w_ref(const FcF16w& p) {
  for (int64_t m = 0; m < p.M; ++m)
    for (int64_t n = 0; n < p.N; ++n) {
      float s = 0.0f;
      for (int64_t k = 0; k < p.K; ++k) s += p.x[m * p.x_rs + k] * half_bits_to_float(p.w[n * p.K + k]);
      p.y[m * p.y_rs + n] = p.bias ? s + p.bias[n] : s;
    }
}

void f16_to_sliver_scalar(const uint16_t* w, int64_t K, int64_t nc, int64_t kc, float* sl) {
  for (int64_t k = 0; k < kc; ++k)
    for (int64_t j = 0; j < kTileN; ++j) sl[k * kTileN + j] = j < nc ? half_bits_to_float(w[j * K + k]) : 0.0f;
}

void f16w_dots_scalar(const FcF16w& p, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n) {
    const uint16_t* w = p.w + n * p.K;
    for (int64_t m = 0; m < p.M; ++m) {
      const float* x = p.x + m * p.x_rs;
      const float s = f16w_tail_dot(x, w, 0, p.K);
      p.y[m * p.y_rs + n] = p.bias ? s + p.bias[n] : s;
    }
  }
}

namespace {

void run_dots(F16wIsa isa, const FcF16w& p, int64_t n0, int64_t n1) {
  switch (isa) {
#if defined(__x86_64__)
    case F16wIsa::Avx512f: return f16w_dots_avx512f(p, n0, n1);
    case F16wIsa::Avx2F16c: return f16w_dots_avx2(p, n0, n1);
#endif
#if defined(__aarch64__)
    case F16wIsa::Neon: return f16w_dots_neon(p, n0, n1);
#endif
    default: return f16w_dots_scalar(p, n0, n1);
  }
}

// Rows [m0, m1) x columns [n0, n1) (n1 - n0 <= kTileN): the weight tile converted K block
// by K block into `buf`, each block multiplied by the fp32 GEMM tile of the same ISA,
// accumulating into y (which first holds the bias or is overwritten by the first block).
void run_blocked_tile(F16wIsa isa, const FcF16w& p, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  alignas(64) float buf[kTileN * kTileK];
  const int64_t nc = n1 - n0;
  if (p.bias)
    for (int64_t m = m0; m < m1; ++m) std::copy(p.bias + n0, p.bias + n1, p.y + m * p.y_rs + n0);
  const int64_t nkb = (p.K + kTileK - 1) / kTileK;
  const int64_t kb = std::min(kTileK, round_up((p.K + nkb - 1) / nkb, 16));  // equal blocks
  for (int64_t k0 = 0; k0 < p.K; k0 += kb) {
    const int64_t kc = std::min(kb, p.K - k0);
    for (int64_t j = 0; j < nc; ++j) {
      const uint16_t* src = p.w + (n0 + j) * p.K + k0;
      float* dst = buf + j * kc;
      switch (isa) {
#if defined(__x86_64__)
        case F16wIsa::Avx512f:
        case F16wIsa::Avx2F16c: f16_to_f32_f16c(src, dst, kc); break;
#endif
#if defined(__aarch64__)
        case F16wIsa::Neon: f16_to_f32_neon(src, dst, kc); break;
#endif
        default: f16_to_f32_scalar(src, dst, kc);
      }
    }
    GemmF32 g;
    g.M = m1, g.N = nc, g.K = kc;  // rows [m0, m1) of it are computed
    g.a = p.x + k0, g.a_rs = p.x_rs, g.a_cs = 1;
    g.b = buf, g.b_rs = 1, g.b_cs = kc;  // B(k, j) = buf[j kc + k]
    g.c = p.y + n0, g.c_rs = p.y_rs, g.c_cs = 1;
    g.accumulate = k0 > 0 || p.bias != nullptr;
    switch (isa) {
#if defined(__x86_64__)
      case F16wIsa::Avx512f: gemm_f32_avx512f(g, 0, m0, m1, 0, nc); break;
      case F16wIsa::Avx2F16c: gemm_f32_avx2_fma(g, 0, m0, m1, 0, nc); break;
#endif
#if defined(__aarch64__)
      case F16wIsa::Neon: gemm_f32_neon(g, 0, m0, m1, 0, nc); break;
#endif
      default: gemm_f32_scalar(g, 0, m0, m1, 0, nc);
    }
  }
}

// Rows [m0, m1) x columns [n0, n1) (AVX-512F; aarch64 NEON), tile of 32 columns after tile: per K block
// the weight tile converted into a packed sliver, then conv_nhwc's micro-kernel over the
// rows (the bias on the first block), while the next block's weight rows (the next tile's
// first one after the last) are requested a slice per micro-tile: the weights stream from
// memory once a prompt, and the conversion would otherwise wait for every line.
static_assert(kTileN == kConvNhwcNr, "a column tile is one of conv_nhwc's slivers");
using SliverFn = void (*)(const uint16_t* w, int64_t K, int64_t nc, int64_t kc, float* sl);

void run_sliver_tiles(const FcF16w& p, ConvNhwcUkernel uk, int mr, SliverFn to_sliver, int64_t m0, int64_t m1,
                      int64_t n0, int64_t n1) {
  alignas(64) float sl[kTileK * kTileN];
  alignas(64) float bias[kTileN];
  const float* rows[kTileM];
  const int64_t rn = m1 - m0, tiles = (rn + mr - 1) / mr;
  const int64_t nkb = (p.K + kTileK - 1) / kTileK;
  const int64_t kb = std::min(kTileK, round_up((p.K + nkb - 1) / nkb, 16));  // equal blocks
  for (int64_t c0 = n0; c0 < n1; c0 += kTileN) {
    const int64_t nc = std::min(kTileN, n1 - c0);
    for (int64_t j = 0; j < kTileN; ++j) bias[j] = p.bias && j < nc ? p.bias[c0 + j] : 0.0f;
    for (int64_t k0 = 0; k0 < p.K; k0 += kb) {
      const int64_t kc = std::min(kb, p.K - k0);
      to_sliver(p.w + c0 * p.K + k0, p.K, nc, kc, sl);
      for (int64_t q = 0; q < rn; ++q) rows[q] = p.x + (m0 + q) * p.x_rs + k0;
      // the next block: this tile's next K block, or the next tile's first
      int64_t pc = c0, pk = k0 + kc;
      if (pk >= p.K) pc = c0 + kTileN, pk = 0;
      const int64_t pn = pc < n1 ? std::min(kTileN, n1 - pc) : 0, pkc = std::min(kb, p.K - pk);
      const int64_t lines = (pkc * 2 + 63) / 64, total = pn * lines, slice = (total + tiles - 1) / tiles;
      const uint16_t* pw = p.w + pc * p.K + pk;
      int64_t pf = 0;
      for (int64_t i = 0; i < rn; i += mr) {
        for (const int64_t e = std::min(total, pf + slice); pf < e; ++pf)
          __builtin_prefetch(pw + pf / lines * p.K + pf % lines * 32, 0, 2);
        uk(static_cast<int>(std::min<int64_t>(mr, rn - i)), kc, kc, rows + i, 0, sl, p.y + (m0 + i) * p.y_rs + c0,
           p.y_rs, nc, bias, nullptr, k0 == 0, k0 + kc == p.K, -__builtin_inff(), __builtin_inff(), nullptr, 0);
      }
    }
  }
}

}  // namespace

void fc_f16w(int threads, const FcF16w& p, F16wIsa isa) {
  if (p.M <= 0 || p.N <= 0) return;
  if (p.K <= 0) {
    for (int64_t m = 0; m < p.M; ++m)
      for (int64_t n = 0; n < p.N; ++n) p.y[m * p.y_rs + n] = p.bias ? p.bias[n] : 0.0f;
    return;
  }
  if (isa == F16wIsa::Auto) isa = f16w_auto_isa();
  if (p.M <= kDotsMaxM || (isa == F16wIsa::Avx512f && p.M <= kTilesMaxMAvx512)) {
    // bandwidth-bound: column tiles (multiples of 32, about four per thread) claimed by
    // the caller and the awake helpers
    const bool par = threads > 1 && 2.0 * static_cast<double>(p.N) * static_cast<double>(p.K) >= kMinParallelBytes;
    const int64_t t = par ? threads : 1;
    const int64_t align = p.M > kDotsMaxM ? 48 : 32;  // (more rows: whole tiles of 6 columns)
    const int64_t tn = t > 1 ? std::max<int64_t>(align, round_up((p.N + 4 * t - 1) / (4 * t), align)) : p.N;
    struct Job {
      const FcF16w* p;
      F16wIsa isa;
      int64_t tn;
    } job{&p, isa, tn};
    auto run = [](void* ctx, int64_t tile) {
      const Job& j = *static_cast<const Job*>(ctx);
      const int64_t n0 = tile * j.tn, n1 = std::min(j.p->N, n0 + j.tn);
      run_dots(j.isa, *j.p, n0, n1);
    };
    claim_parallel_for(static_cast<int>(t - 1), (p.N + tn - 1) / tn, run, &job);
    return;
  }
  const double flops = static_cast<double>(p.M) * static_cast<double>(p.N) * static_cast<double>(p.K);
  const int64_t t = threads > 1 && flops >= kMinParallelFlops ? threads : 1;
  const int64_t tm = std::min(round_up(p.M, 8), kTileM);
  struct Job {
    const FcF16w* p;
    F16wIsa isa;
    int64_t tm, mt, nt;
    ConvNhwcUkernel uk;  // the sliver form (AVX-512F, aarch64 NEON), or null
    int mr;
    SliverFn to_sliver;
  } job{&p, isa, tm, (p.M + tm - 1) / tm, (p.N + kTileN - 1) / kTileN, nullptr, 0, nullptr};
#if defined(__x86_64__)
  if (isa == F16wIsa::Avx512f) job.to_sliver = f16_to_sliver_avx512f;
#elif defined(__aarch64__)
  if (isa == F16wIsa::Neon) job.to_sliver = f16_to_sliver_neon;
#endif
  if (job.to_sliver) {
    job.uk = conv_nhwc_simd_ukernel(&job.mr);
    if (job.mr > 8 || job.mr < 1) job.uk = nullptr;
  }
  auto run = [](void* ctx, int64_t tile) {
    const Job& j = *static_cast<const Job*>(ctx);
    const int64_t i0 = tile / j.nt * j.tm, n0 = tile % j.nt * kTileN;
    const int64_t i1 = std::min(j.p->M, i0 + j.tm), n1 = std::min(j.p->N, n0 + kTileN);
    run_blocked_tile(j.isa, *j.p, i0, i1, n0, n1);
  };
  if (job.uk) {  // tasks of several column tiles each (about four a thread), walked in order
    const int64_t per = std::max<int64_t>(1, job.nt * job.mt / (4 * t)), groups = (job.nt + per - 1) / per;
    struct Sl {
      const Job* j;
      int64_t per, groups;
    } sj{&job, per, groups};
    auto run_sl = [](void* ctx, int64_t task) {
      const Sl& s = *static_cast<const Sl*>(ctx);
      const Job& j = *s.j;
      const int64_t i0 = task / s.groups * j.tm, n0 = task % s.groups * s.per * kTileN;
      run_sliver_tiles(*j.p, j.uk, j.mr, j.to_sliver, i0, std::min(j.p->M, i0 + j.tm), n0,
                       std::min(j.p->N, n0 + s.per * kTileN));
    };
    claim_parallel_for(static_cast<int>(t - 1), job.mt * groups, run_sl, &sj);
    return;
  }
  claim_parallel_for(static_cast<int>(t - 1), job.mt * job.nt, run, &job);
}

}  // namespace pte::linalg
