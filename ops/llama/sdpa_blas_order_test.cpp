#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "ops/isa.h"
#include "ops/llama/sdpa_blas_order.h"

// The summation orders of sdpa_blas_order.h. Probes as MKL was probed (see
// scripts/mkl_gemv_order.py --tree): ones everywhere but +2^100 at a and -2^100 at b;
// the result counts the ones outside the smallest partial sum holding both. The
// expected counts are MKL's (2024.2, AVX-512, one thread); the scalar and AVX-512 forms
// must agree with them and with each other bit for bit. Bit equality with the official
// runtime end to end: the llama_custom_sdpa conformance fixture.

namespace {

// The SIMD forms of this build: AVX-512F on x86-64, NEON on aarch64 (none elsewhere).
struct SimdForms {
  const char* name;
  bool available;
  float (*dot1)(const float*, const float*, int64_t, int64_t, int64_t);
  float (*dot2)(const float*, const float*, int64_t);
  void (*value1)(const float*, int64_t, const float*, int64_t, int64_t, float*);
};
const SimdForms& simd_forms() {
#if defined(__x86_64__)
  static const SimdForms f{"AVX-512F", pte::isa::cpu().avx512f, pte::blas_gemv1_dot_avx512, pte::blas_gemm2_dot_avx512,
                           pte::blas_gemv1_value_avx512};
#elif defined(__aarch64__)
  static const SimdForms f{"NEON", pte::isa::cpu().neon, pte::blas_gemv1_dot_neon, pte::blas_gemm2_dot_neon,
                           pte::blas_gemv1_value_neon};
#else
  static const SimdForms f{"SIMD", false, nullptr, nullptr, nullptr};
#endif
  return f;
}
bool has_simd() { return simd_forms().available; }

constexpr float kBig = 1.2676506e30f;  // 2^100

float probe_dot(bool simd, int64_t k, int64_t col, int64_t ncols, int64_t a, int64_t b) {
  std::vector<float> kr(k, 1.f), q(k, 1.f);
  kr[a] = kBig;
  kr[b] = -kBig;
  if (simd) return simd_forms().dot1(kr.data(), q.data(), k, col, ncols);
  return pte::blas_gemv1_dot(kr.data(), q.data(), k, col, ncols);
}

float probe_value(bool simd, int64_t L, int64_t a, int64_t b) {
  const int64_t D = 16;
  std::vector<float> v(L * D, 1.f), p(L, 1.f), out(D);
  for (int64_t d = 0; d < D; ++d) v[a * D + d] = kBig, v[b * D + d] = -kBig;
  if (simd)
    simd_forms().value1(v.data(), D, p.data(), L, D, out.data());
  else
    pte::blas_gemv1_value(v.data(), D, p.data(), L, D, out.data());
  for (int64_t d = 1; d < D; ++d) REQUIRE(out[d] == out[0]);
  return out[0];
}

std::vector<bool> forms() {
  if (has_simd()) return {false, true};
  return {false};
}

}  // namespace

TEST_CASE("sdpa_blas_order: q.k^T summation trees of MKL's one-row kernels") {
  for (bool simd : forms()) {
    CAPTURE(simd);
    // head dim 64, a key in a group of four: x_0 opens lane 0, 1..48 in three vectors,
    // then the 15 left (49..63) with the sum so far in lane 0
    CHECK(probe_dot(simd, 64, 0, 4, 1, 17) == 61.f);   // lane 0: {0, 1, 17}
    CHECK(probe_dot(simd, 64, 2, 5, 0, 49) == 14.f);   // {0..48} + 49
    CHECK(probe_dot(simd, 64, 3, 8, 50, 58) == 62.f);  // tail lanes 1 and 9 meet first
    CHECK(probe_dot(simd, 64, 0, 4, 2, 49) == 14.f);
    // a key left over alone (the 5th of 5): x_0 last, after the 16-lane reduction
    CHECK(probe_dot(simd, 64, 4, 5, 0, 1) == 0.f);
    CHECK(probe_dot(simd, 64, 4, 5, 1, 9) == 56.f);    // lanes 0 and 8: 4 + 4 products
    // head dim 128, alone: two vectors over pairs of vectors (1, 33, 65 | 17, 49, 81)
    CHECK(probe_dot(simd, 128, 0, 1, 1, 33) == 126.f);
    CHECK(probe_dot(simd, 128, 0, 1, 1, 17) == 122.f);  // {1,33,65} + {17,49,81}
    CHECK(probe_dot(simd, 128, 2, 3, 1, 97) == 121.f);  // + 97
    // the second key of a pair: one vector (1, 17, 33, ...)
    CHECK(probe_dot(simd, 128, 1, 2, 1, 33) == 125.f);
    CHECK(probe_dot(simd, 128, 5, 7, 1, 17) == 126.f);
  }
}

TEST_CASE("sdpa_blas_order: p.V summation trees of MKL's one-row kernel") {
  for (bool simd : forms()) {
    CAPTURE(simd);
    CHECK(probe_value(simd, 16, 0, 2) == 14.f);
    CHECK(probe_value(simd, 16, 0, 1) == 12.f);   // (0,2) + (1,3)
    CHECK(probe_value(simd, 16, 0, 14) == 7.f);   // the first eight, then 14
    CHECK(probe_value(simd, 16, 0, 12) == 6.f);   // ... then 12
    CHECK(probe_value(simd, 16, 13, 15) == 14.f);
    CHECK(probe_value(simd, 16, 8, 14) == 0.f);
    CHECK(probe_value(simd, 17, 0, 16) == 0.f);   // the key left over comes last
    CHECK(probe_value(simd, 5, 1, 2) == 2.f);     // under eight keys: a chain ({0, 1, 2})
  }
}

static float probe_dot2(bool simd, int64_t k, int64_t a, int64_t b) {
  std::vector<float> kr(k, 1.f), q(k, 1.f);
  kr[a] = kBig;
  kr[b] = -kBig;
  if (simd) return simd_forms().dot2(kr.data(), q.data(), k);
  return pte::blas_gemm2_dot(kr.data(), q.data(), k);
}

TEST_CASE("sdpa_blas_order: q.k^T summation tree of MKL's two-row kernel") {
  for (bool simd : forms()) {
    CAPTURE(simd);
    CHECK(probe_dot2(simd, 64, 0, 16) == 62.f);  // lane 0 in order: {0, 16}
    CHECK(probe_dot2(simd, 64, 0, 4) == 56.f);   // lanes 0 and 4 first: 4 + 4
    CHECK(probe_dot2(simd, 64, 0, 8) == 52.f);   // ... then lane 8
    CHECK(probe_dot2(simd, 64, 0, 1) == 32.f);   // (s0 + s1)
    CHECK(probe_dot2(simd, 64, 0, 2) == 0.f);
    CHECK(probe_dot2(simd, 128, 3, 7) == 112.f);
  }
}

TEST_CASE("sdpa_blas_order: the SIMD forms (AVX-512F, NEON) equal the scalar forms bit for bit") {
  if (!has_simd()) {
    MESSAGE("skipped: no " << simd_forms().name << " form on this CPU");
    return;
  }
  std::mt19937 g(5);
  std::normal_distribution<float> n;
  int checked = 0;
  for (int64_t k : {1, 7, 8, 16, 17, 31, 32, 33, 48, 64, 80, 100, 128, 256}) {
    for (int64_t ncols : {1, 2, 3, 4, 5, 6, 7, 9, 13, 40}) {
      std::vector<float> K(static_cast<size_t>(k * ncols)), q(k);
      for (auto& x : K) x = n(g);
      for (auto& x : q) x = n(g);
      for (int64_t j = 0; j < ncols; ++j) {
        const float s = pte::blas_gemv1_dot(K.data() + j * k, q.data(), k, j, ncols);
        const float v = simd_forms().dot1(K.data() + j * k, q.data(), k, j, ncols);
        REQUIRE(std::isfinite(s));
        CHECK(s == v);
        ++checked;
      }
    }
  }
  for (int64_t D : {1, 5, 16, 20, 40, 48, 64, 80, 112, 128}) {
    for (int64_t L : {1, 3, 7, 8, 9, 15, 16, 17, 33, 100}) {
      std::vector<float> V(static_cast<size_t>(L * (D + 3))), p(L), a(D), b(D);
      for (auto& x : V) x = n(g);
      for (auto& x : p) x = std::fabs(n(g));
      pte::blas_gemv1_value(V.data(), D + 3, p.data(), L, D, a.data());
      simd_forms().value1(V.data(), D + 3, p.data(), L, D, b.data());
      for (int64_t d = 0; d < D; ++d) CHECK(a[d] == b[d]);
      ++checked;
    }
  }
  for (int64_t k : {48, 64, 96, 128, 256}) {
    std::vector<float> K(static_cast<size_t>(k)), q(k);
    for (int rep = 0; rep < 50; ++rep) {
      for (auto& x : K) x = n(g);
      for (auto& x : q) x = n(g);
      CHECK(pte::blas_gemm2_dot(K.data(), q.data(), k) == simd_forms().dot2(K.data(), q.data(), k));
      ++checked;
    }
  }
  CHECK(checked > 1000);
}

TEST_CASE("sdpa_blas_order: sixteen transposed keys at once (AVX-512F) equal the scalar one-row dot bit for bit" *
          doctest::skip(!pte::isa::cpu().avx512f)) {
#if defined(__x86_64__)
  std::mt19937 g(9);
  std::normal_distribution<float> n;
  int checked = 0;
  for (int64_t k : {1, 2, 16, 17, 20, 33, 48, 64, 65, 80, 128}) {
    const int64_t ncols = 36;  // groups of four: keys 0 .. 35
    std::vector<float> K(static_cast<size_t>(k * ncols)), q(k);
    for (auto& x : K) x = n(g);
    for (auto& x : q) x = n(g);
    K[5 * k] = 1e30f, K[5 * k + k / 2] = -1e30f;  // a key whose result depends on the order
    for (int64_t col : {0, 16}) {
      std::vector<float> kt(static_cast<size_t>(k * 16) + 16);
      float* ktp = kt.data();
      while (reinterpret_cast<uintptr_t>(ktp) % 64) ++ktp;  // (the form loads aligned rows)
      for (int64_t e = 0; e < k; ++e)
        for (int l = 0; l < 16; ++l) ktp[e * 16 + l] = K[static_cast<size_t>((col + l) * k + e)];
      float out[16];
      pte::blas_gemv1_dot16_avx512(ktp, q.data(), k, out);
      for (int l = 0; l < 16; ++l) {
        const float s = pte::blas_gemv1_dot(K.data() + (col + l) * k, q.data(), k, col + l, ncols);
        CHECK(std::memcmp(&s, &out[l], 4) == 0);
        ++checked;
      }
    }
  }
  CHECK(checked == 11 * 2 * 16);
#else
  FAIL("the AVX-512F form ran off x86-64");  // (skipped there by the decorator)
#endif
}
