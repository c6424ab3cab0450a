// fp32 -> qd8: the reference on known rows, the AVX-512 and NEON variants bit for bit against it.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ops/isa.h"
#include "ops/qd8/qgemm_qd8.h"
#include "ops/qd8/quantize_qd8.h"

using namespace pte::xnn;

TEST_CASE("quantize_qd8: reference parameters and values") {
  {  // [-1, 3]: scale 4/255, zero point from the nearer end (-128 + 1/s = -64.25 -> -64)
    std::vector<float> x{-1.0f, 0.0f, 3.0f, 1.0f};
    std::vector<int8_t> y(4);
    float s;
    int32_t z;
    quantize_qd8_row_scalar(x.data(), 4, y.data(), &s, &z);
    CHECK(s == doctest::Approx(4.0f / 255.0f));
    CHECK(z == -64);
    CHECK(y[0] == -128);
    CHECK(y[1] == -64);
    CHECK(y[2] == 127);
    CHECK(y[3] == static_cast<int8_t>(std::nearbyint(1.0f / s) - 64));
  }
  {  // all zeros: scale 1, the zero point from the upper end (127); every value dequantizes to 0
    std::vector<float> x(5, 0.0f);
    std::vector<int8_t> y(5, 9);
    float s;
    int32_t z;
    quantize_qd8_row_scalar(x.data(), 5, y.data(), &s, &z);
    CHECK(s == 1.0f);
    CHECK(z == 127);
    for (int8_t v : y) CHECK(v - z == 0);
  }
  {  // all positive: the range starts at 0, zero point -128
    std::vector<float> x{0.5f, 2.0f, 1.0f};
    std::vector<int8_t> y(3);
    float s;
    int32_t z;
    quantize_qd8_row_scalar(x.data(), 3, y.data(), &s, &z);
    CHECK(z == -128);
    CHECK(y[1] == 127);
  }
}

namespace {

using RowFn = void (*)(const float*, int64_t, int8_t*, float*, int32_t*);

// rows of every sign pattern, tiny values and many .5 ties: the variant equals the reference
void check_against_reference(RowFn variant) {
  std::mt19937 rng(17);
  std::normal_distribution<float> nd(0.0f, 2.0f);
  for (int64_t k : {int64_t(1), int64_t(7), int64_t(16), int64_t(31), int64_t(576), int64_t(1537)})
    for (int kind = 0; kind < 5; ++kind) {
      std::vector<float> x(k);
      for (auto& v : x) {
        v = nd(rng);
        if (kind == 1) v = std::fabs(v);          // all >= 0
        if (kind == 2) v = -std::fabs(v) * 1e6f;  // all <= 0, large
        if (kind == 3) v = (rng() % 3 == 0) ? 0.0f : v * 1e-30f;  // tiny
        if (kind == 4) v = static_cast<float>(static_cast<int>(v * 4)) * 0.5f;  // many ties (.5)
      }
      std::vector<int8_t> y0(k), y1(k, 5);
      float s0, s1;
      int32_t z0, z1;
      quantize_qd8_row_scalar(x.data(), k, y0.data(), &s0, &z0);
      variant(x.data(), k, y1.data(), &s1, &z1);
      CAPTURE(k);
      CAPTURE(kind);
      CHECK(s0 == s1);
      CHECK(z0 == z1);
      CHECK(y0 == y1);
    }
}

}  // namespace

#if defined(__x86_64__)
TEST_CASE("quantize_qd8: AVX-512 equals the reference bit for bit") {
  if (!cpu_has_avx512_vnni()) {
    MESSAGE("no AVX-512 on this CPU: only the reference is checked");
    return;
  }
  check_against_reference(quantize_qd8_row_avx512);
}
#else
TEST_CASE("quantize_qd8: AVX-512 equals the reference bit for bit") {
  MESSAGE("skipped: the AVX-512 variant is x86-64 only (this ISA runs the reference)");
}
#endif

#if defined(__aarch64__)
TEST_CASE("quantize_qd8: NEON equals the reference bit for bit") {
  if (!pte::isa::cpu().neon) {
    MESSAGE("skipped: NEON turned off (PTE_ISA_OFF): only the reference is checked");
    return;
  }
  check_against_reference(quantize_qd8_row_neon);
  std::vector<float> x(40, 1.0f);  // through quantize_qd8_rows: 2 rows of 20
  for (int i = 0; i < 40; ++i) x[i] = static_cast<float>(i % 7) - 2.5f;
  std::vector<int8_t> y0(40), y1(40);
  float s0[2], s1[2];
  int32_t z0[2], z1[2];
  for (int r = 0; r < 2; ++r) quantize_qd8_row_scalar(x.data() + 20 * r, 20, y0.data() + 20 * r, s0 + r, z0 + r);
  quantize_qd8_rows(x.data(), 2, 20, y1.data(), s1, z1);
  CHECK(y0 == y1);
  CHECK((s0[1] == s1[1] && z0[1] == z1[1]));
}
#else
TEST_CASE("quantize_qd8: NEON equals the reference bit for bit") {
  MESSAGE("skipped: the NEON variant is aarch64 only (this ISA runs the reference)");
}
#endif
