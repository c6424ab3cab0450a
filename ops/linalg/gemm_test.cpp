// Tests of the GEMM engine: the reference against hand-computed values, then the
// portable blocked kernel, the AVX2+FMA kernel, the GEMV paths and the threaded
// dispatcher against the reference over many shapes and layouts.
#include "ops/linalg/gemm.h"
#include "ops/isa.h"

#include <doctest/doctest.h>
#include <pthreadpool.h>

#include <cmath>
#include <cstdlib>
#include <vector>

using namespace pte::linalg;

namespace {

struct Lcg {
  uint32_t s = 12345;
  float next() {
    s = s * 1664525u + 1013904223u;
    return static_cast<float>((s >> 8) & 0xffff) / 32768.0f - 1.0f;  // [-1, 1)
  }
};

struct Case {
  int64_t batch, M, N, K;
  bool a_trans, b_trans, c_trans, accumulate;
  float alpha;
};

// Builds operands for a case, runs `fn` into C and the reference into R, and
// checks |C - R| <= 1e-5 * sum_k |a||b| + 1e-6 elementwise.
template <class Fn>
void check_case(const Case& cs, Fn fn) {
  Lcg rng;
  const int64_t B = cs.batch, M = cs.M, N = cs.N, K = cs.K;
  std::vector<float> a(B * M * K + 1), b(B * K * N + 1), c(B * M * N + 1), r;
  for (auto& v : a) v = rng.next();
  for (auto& v : b) v = rng.next();
  for (auto& v : c) v = rng.next();
  r = c;
  GemmF32 g;
  g.batch = B, g.M = M, g.N = N, g.K = K;
  g.a = a.data(), g.a_bs = M * K;
  if (cs.a_trans) g.a_rs = 1, g.a_cs = M; else g.a_rs = K, g.a_cs = 1;
  g.b = b.data(), g.b_bs = K * N;
  if (cs.b_trans) g.b_rs = 1, g.b_cs = K; else g.b_rs = N, g.b_cs = 1;
  g.c = c.data(), g.c_bs = M * N;
  if (cs.c_trans) g.c_rs = 1, g.c_cs = M; else g.c_rs = N, g.c_cs = 1;
  g.alpha = cs.alpha;
  g.accumulate = cs.accumulate;
  GemmF32 gr = g;
  gr.c = r.data();
  gemm_f32_ref(gr);
  fn(g);
  for (int64_t n = 0; n < B; ++n)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float mag = 0;
        for (int64_t k = 0; k < K; ++k)
          mag += std::fabs(a[n * g.a_bs + i * g.a_rs + k * g.a_cs] * b[n * g.b_bs + k * g.b_rs + j * g.b_cs]);
        int64_t o = n * g.c_bs + i * g.c_rs + j * g.c_cs;
        float tol = 1e-5f * std::fabs(cs.alpha) * mag + 1e-6f;
        if (std::fabs(c[o] - r[o]) > tol) {
          FAIL_CHECK("mismatch at batch " << n << " (" << i << "," << j << "): " << c[o] << " vs " << r[o] << " case M="
                                          << M << " N=" << N << " K=" << K << " at=" << cs.a_trans
                                          << " bt=" << cs.b_trans << " ct=" << cs.c_trans);
          return;
        }
      }
  // The element past the end is a guard: never written.
  CHECK(c.back() == r.back());
}

std::vector<Case> cases() {
  std::vector<Case> v;
  const int64_t dims[][3] = {{1, 1, 1},   {1, 37, 5},  {1, 100, 300}, {2, 3, 4},   {6, 16, 8},   {7, 17, 9},
                             {13, 33, 70}, {5, 64, 257}, {64, 48, 300}, {130, 20, 31}, {3, 600, 20}, {25, 1, 40}};
  int flip = 0;
  for (auto& d : dims)
    for (int t = 0; t < 8; ++t) {
      ++flip;
      v.push_back({1 + (flip % 3 == 0), d[0], d[1], d[2], (t & 1) != 0, (t & 2) != 0, (t & 4) != 0, flip % 2 == 0,
                   flip % 4 == 1 ? 0.5f : 1.0f});
    }
  return v;
}

// The ISA's tile kernels (the scalar ones where this build has no such ISA).
using GemvFn = void (*)(const GemmF32&, int64_t, int64_t, int64_t);
using TileFn = void (*)(const GemmF32&, int64_t, int64_t, int64_t, int64_t, int64_t);
GemvFn gemv_of(GemmIsa isa) {
#if defined(__x86_64__)
  if (isa == GemmIsa::Avx512f) return gemv_f32_avx512f;
  if (isa == GemmIsa::Avx2Fma) return gemv_f32_avx2_fma;
#endif
#if defined(__aarch64__) || defined(__arm__)
  if (isa == GemmIsa::Neon) return gemv_f32_neon;
#endif
  (void)isa;
  return gemv_f32_scalar;
}
TileFn tile_of(GemmIsa isa) {
#if defined(__x86_64__)
  if (isa == GemmIsa::Avx512f) return gemm_f32_avx512f;
  if (isa == GemmIsa::Avx2Fma) return gemm_f32_avx2_fma;
#endif
#if defined(__aarch64__) || defined(__arm__)
  if (isa == GemmIsa::Neon) return gemm_f32_neon;
#endif
  (void)isa;
  return gemm_f32_scalar;
}
GemvFn small_m_of(GemmIsa isa) {
#if defined(__x86_64__)
  if (isa == GemmIsa::Avx512f) return gemm_small_m_f32_avx512f;
  if (isa == GemmIsa::Avx2Fma) return gemm_small_m_f32_avx2_fma;
#endif
#if defined(__aarch64__) || defined(__arm__)
  if (isa == GemmIsa::Neon) return gemm_small_m_f32_neon;
#endif
  (void)isa;
  return gemm_small_m_f32_scalar;
}

void run_tiles(const GemmF32& g, GemmIsa isa) {
  for (int64_t n = 0; n < g.batch; ++n) {
    if (g.M == 1) {
      // two uneven column ranges
      auto gemv = gemv_of(isa);
      gemv(g, n, 0, g.N / 3);
      gemv(g, n, g.N / 3, g.N);
    } else {
      // two uneven tiles along each axis, to exercise tile edges
      int64_t mh = g.M / 2, nh = g.N / 3;
      auto tile = tile_of(isa);
      tile(g, n, 0, mh, 0, nh);
      tile(g, n, 0, mh, nh, g.N);
      tile(g, n, mh, g.M, 0, nh);
      tile(g, n, mh, g.M, nh, g.N);
    }
  }
}

}  // namespace

TEST_CASE("gemm_f32_ref: hand-computed 2x3 @ 3x2, alpha and accumulate") {
  const float a[6] = {1, 2, 3, 4, 5, 6};        // [[1,2,3],[4,5,6]]
  const float b[6] = {7, 8, 9, 10, 11, 12};     // [[7,8],[9,10],[11,12]]
  float c[4] = {1, 1, 1, 1};
  GemmF32 g;
  g.M = 2, g.N = 2, g.K = 3;
  g.a = a, g.a_rs = 3, g.a_cs = 1;
  g.b = b, g.b_rs = 2, g.b_cs = 1;
  g.c = c, g.c_rs = 2, g.c_cs = 1;
  gemm_f32_ref(g);
  CHECK(c[0] == 58);
  CHECK(c[1] == 64);
  CHECK(c[2] == 139);
  CHECK(c[3] == 154);
  g.alpha = 2.0f;
  g.accumulate = true;
  gemm_f32_ref(g);  // c += 2 * (a @ b)
  CHECK(c[0] == 58 * 3);
  CHECK(c[3] == 154 * 3);
}

TEST_CASE("gemm_f32_scalar matches the reference (tiles, strides, accumulate)") {
  for (const Case& cs : cases()) check_case(cs, [](const GemmF32& g) { run_tiles(g, GemmIsa::Scalar); });
}

TEST_CASE("gemm_f32_avx2_fma matches the reference") {
  if (!cpu_has_avx2_fma()) {
    MESSAGE("CPU has no AVX2+FMA: skipped");
    return;
  }
  for (const Case& cs : cases()) check_case(cs, [](const GemmF32& g) { run_tiles(g, GemmIsa::Avx2Fma); });
}

TEST_CASE("gemm_f32_neon (6x16 micro-kernel, GEMV, small M) matches the reference") {
#if defined(__aarch64__) || defined(__arm__)
#if defined(__arm__)
  if (!pte::isa::cpu().neon) {
    MESSAGE("skipped: this 32-bit ARM CPU has no NEON with VFPv4");
    return;
  }
#endif
  REQUIRE(pte::isa::cpu().neon);  // every aarch64 CPU has Advanced SIMD
  for (const Case& cs : cases()) {
    check_case(cs, [](const GemmF32& g) { run_tiles(g, GemmIsa::Neon); });
    check_case(cs, [](const GemmF32& g) { gemm_f32(2, g, GemmIsa::Neon); });
  }
  const int64_t dims[][3] = {{1, 31, 15}, {1, 64, 513}, {3, 7, 1}, {6, 16, 9}, {7, 17, 33}, {8, 40, 100}, {13, 50, 70}};
  for (auto& d : dims)
    for (int t = 0; t < 4; ++t) {
      Case cs{1 + (t == 3), d[0], d[1], d[2], false, true, (t & 1) != 0, t == 2, t == 1 ? -2.0f : 1.0f};
      check_case(cs, [](const GemmF32& g) {
        for (int64_t n = 0; n < g.batch; ++n)
          if (g.M <= 8) {
            small_m_of(GemmIsa::Neon)(g, n, 0, g.N / 3);
            small_m_of(GemmIsa::Neon)(g, n, g.N / 3, g.N);
          } else {
            tile_of(GemmIsa::Neon)(g, n, 0, g.M, 0, g.N);
          }
      });
    }
#else
  MESSAGE("skipped: the NEON kernels are for ARM");
#endif
}

TEST_CASE("gemm_f32_avx512f (8x32 micro-kernel, GEMV) matches the reference") {
  if (!cpu_has_avx512f()) {
    MESSAGE("CPU has no AVX-512F: skipped");
    return;
  }
  for (const Case& cs : cases()) check_case(cs, [](const GemmF32& g) { run_tiles(g, GemmIsa::Avx512f); });
  // shapes around the 8x32 tile, the 16-lane K tail and the 256 K block
  const int64_t dims[][3] = {{8, 32, 16}, {9, 33, 17}, {16, 64, 256}, {17, 95, 257}, {1, 31, 15}, {1, 64, 513}, {3, 7, 1}};
  for (auto& d : dims)
    for (int t = 0; t < 8; ++t) {
      Case cs{1 + (t == 3), d[0], d[1], d[2], (t & 1) != 0, (t & 2) != 0, (t & 4) != 0, t % 3 == 0, t == 5 ? -2.0f : 1.0f};
      check_case(cs, [](const GemmF32& g) { run_tiles(g, GemmIsa::Avx512f); });
      check_case(cs, [](const GemmF32& g) { gemm_f32(nullptr, g, GemmIsa::Avx512f); });
    }
}

TEST_CASE("gemv_f32_avx512f: the two-stream and eight-stream forms (per CPU vendor) both match the reference" *
          doctest::skip(!cpu_has_avx512f())) {
#if defined(__x86_64__)  // the AVX-512F kernels exist in x86-64 builds only
  // Weight rows from 1 to 3 x 8 + 5 (the segments, the four-row and the one-row tails), K
  // around the 16-lane tail; [N, K] weights (b_trans) take the stream forms.
  const GemvFn forms[] = {gemv_f32_avx512f_streams2, gemv_f32_avx512f_streams8};
  for (GemvFn form : forms)
    for (int64_t n : {1, 2, 3, 7, 8, 9, 16, 29, 64, 101})
      for (int64_t k : {1, 15, 16, 17, 100, 576}) {
        Case cs{1, 1, n, k, false, true, false, n % 2 == 0, n % 3 == 0 ? 0.5f : 1.0f};
        check_case(cs, [form](const GemmF32& g) {
          form(g, 0, 0, g.N / 3);
          form(g, 0, g.N / 3, g.N);
        });
      }
#else
  FAIL("the AVX-512F GEMV forms ran off x86-64");  // (skipped there by the decorator)
#endif
}

TEST_CASE("gemm_f32 dispatcher with a thread pool matches the reference") {
  pthreadpool_t pool = pthreadpool_create(3);
  for (const Case& cs : cases()) {
    check_case(cs, [&](const GemmF32& g) { gemm_f32(pool, g); });
    check_case(cs, [&](const GemmF32& g) { gemm_f32(pool, g, GemmIsa::Scalar); });
    if (cpu_has_avx2_fma()) check_case(cs, [&](const GemmF32& g) { gemm_f32(pool, g, GemmIsa::Avx2Fma); });
    if (cpu_has_avx512f()) check_case(cs, [&](const GemmF32& g) { gemm_f32(pool, g, GemmIsa::Avx512f); });
    check_case(cs, [&](const GemmF32& g) { gemm_f32(nullptr, g); });
  }
  pthreadpool_destroy(pool);
}

TEST_CASE("gemm_f32 with K == 0 writes zeros (or leaves C when accumulating)") {
  float c[4] = {5, 5, 5, 5};
  GemmF32 g;
  g.M = 2, g.N = 2, g.K = 0;
  g.c = c, g.c_rs = 2, g.c_cs = 1;
  g.accumulate = true;
  gemm_f32(nullptr, g);
  CHECK(c[0] == 5);
  g.accumulate = false;
  gemm_f32(nullptr, g);
  CHECK(c[0] == 0);
  CHECK(c[3] == 0);
}

TEST_CASE("gemm_ref<double> and <int64_t> with bias and beta") {
  const double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, bias[2] = {10, 20};
  double c[4] = {};
  MatRef<const double> bv{bias, 0, 0, 1};
  gemm_ref<double, double>(1, 2, 2, 2, {a, 0, 2, 1}, {b, 0, 2, 1}, {c, 0, 2, 1}, 2.0, 0.5, &bv);
  // a@b = [[19,22],[43,50]]; 2*that + 0.5*[10,20]
  CHECK(c[0] == 43);
  CHECK(c[1] == 54);
  CHECK(c[2] == 91);
  CHECK(c[3] == 110);
  const int64_t ia[2] = {3, -4}, ib[2] = {5, 6};
  int64_t ic[1];
  gemm_ref<int64_t, int64_t>(1, 1, 1, 2, {ia, 0, 2, 1}, {ib, 0, 1, 1}, {ic, 0, 1, 1}, int64_t(1), int64_t(0), nullptr);
  CHECK(ic[0] == -9);
}

TEST_CASE("gemm_auto_isa picks the widest ISA this CPU has") {
  const GemmIsa isa = gemm_auto_isa();
  if (std::getenv("PTE_GEMM_ISA") == nullptr)
#if defined(__aarch64__) || defined(__arm__)
    CHECK(isa == (pte::isa::cpu().neon ? GemmIsa::Neon : GemmIsa::Scalar));
#else
    CHECK(isa == (cpu_has_avx512f() ? GemmIsa::Avx512f : cpu_has_avx2_fma() ? GemmIsa::Avx2Fma : GemmIsa::Scalar));
#endif
  CHECK((isa != GemmIsa::Avx512f || cpu_has_avx512f()));
  CHECK((isa != GemmIsa::Avx2Fma || cpu_has_avx2_fma()));
}

TEST_CASE("gemm_small_m_f32 (scalar, AVX2+FMA, AVX-512F) match the reference for [N, K] weights") {
  const int64_t dims[][3] = {{2, 1, 1}, {2, 37, 5}, {3, 100, 300}, {5, 17, 9}, {8, 33, 70}, {7, 64, 257}, {8, 3, 600}, {4, 20, 33}, {6, 48, 16}};
  int flip = 0;
  for (auto& d : dims)
    for (int ct = 0; ct < 2; ++ct) {
      ++flip;
      Case cs{1 + (flip % 3 == 0), d[0], d[1], d[2], false, true, ct != 0, flip % 2 == 0, flip % 4 == 1 ? 0.5f : 1.0f};
      check_case(cs, [](const GemmF32& g) {
        for (int64_t n = 0; n < g.batch; ++n) {
          gemm_small_m_f32_scalar(g, n, 0, g.N / 2);
          gemm_small_m_f32_scalar(g, n, g.N / 2, g.N);
        }
      });
      if (cpu_has_avx2_fma())
        check_case(cs, [](const GemmF32& g) {
          for (int64_t n = 0; n < g.batch; ++n) {
            small_m_of(GemmIsa::Avx2Fma)(g, n, 0, g.N / 3);
            small_m_of(GemmIsa::Avx2Fma)(g, n, g.N / 3, g.N);
          }
        });
      if (cpu_has_avx512f())
        check_case(cs, [](const GemmF32& g) {
          for (int64_t n = 0; n < g.batch; ++n) {
            small_m_of(GemmIsa::Avx512f)(g, n, 0, g.N / 3);
            small_m_of(GemmIsa::Avx512f)(g, n, g.N / 3, g.N);
          }
        });
    }
  if (cpu_has_avx512f())  // the AVX-512 path takes up to 16 rows
    for (int64_t m = 9; m <= 16; ++m) {
      Case cs{1 + (m % 3 == 0), m, 21 + m, 40 + 3 * m, false, true, m % 2 == 0, m % 4 == 1, m == 10 ? 0.5f : 1.0f};
      check_case(cs, [](const GemmF32& g) {
        for (int64_t n = 0; n < g.batch; ++n) {
          small_m_of(GemmIsa::Avx512f)(g, n, 0, 5);
          small_m_of(GemmIsa::Avx512f)(g, n, 5, g.N);
        }
      });
      check_case(cs, [](const GemmF32& g) { gemm_f32(2, g, GemmIsa::Avx512f); });
    }
}

#if defined(__x86_64__)
TEST_CASE("gemm_dots_f32_avx512f (4 x 6 tiles of dot products, any M) matches the reference for [N, K] weights" *
          doctest::skip(!cpu_has_avx512f())) {
  // M: whole tiles of 4 rows and 1-3 left over; N: whole tiles of 6 and columns left over;
  // K: multiples of 16 and masked tails; batches, strides, accumulate and alpha as above
  const int64_t dims[][3] = {{9, 7, 13}, {16, 576, 70}, {17, 33, 48}, {18, 100, 31}, {19, 1, 6}, {32, 1536, 12}, {40, 64, 5}, {150, 40, 61}};
  int flip = 0;
  for (auto& d : dims)
    for (int ct = 0; ct < 2; ++ct) {
      ++flip;
      Case cs{1 + (flip % 3 == 0), d[0], d[1], d[2], false, true, ct != 0, flip % 2 == 0, flip % 4 == 1 ? 0.5f : 1.0f};
      INFO("M=" << d[0] << " N=" << d[1] << " K=" << d[2]);
      check_case(cs, [](const GemmF32& g) {
        for (int64_t n = 0; n < g.batch; ++n) {  // two column ranges, the first not a multiple of 6
          gemm_dots_f32_avx512f(g, n, 0, g.N / 3);
          gemm_dots_f32_avx512f(g, n, g.N / 3, g.N);
        }
      });
    }
}
#endif  // defined(__x86_64__)
