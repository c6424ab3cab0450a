#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "ops/elementwise/vbinary_f32.h"
#include "ops/isa.h"

TEST_CASE("vbinary_f32: the scalar rows, and the SIMD rows equal them bit for bit") {
  std::mt19937 g(3);
  std::normal_distribution<float> nd(0.f, 3.f);
  std::vector<float> a(70), b(70);
  for (auto& v : a) v = nd(g);
  for (auto& v : b) v = nd(g);
  std::vector<float> y(70);
  pte::ew::vadd_row_f32_scalar(y.data(), a.data(), 1, b.data(), 0, 5);
  for (int j = 0; j < 5; ++j) CHECK(y[j] == a[j] + b[0]);
  pte::ew::vmul_row_f32_scalar(y.data(), a.data(), 2, b.data(), 1, 5);
  for (int j = 0; j < 5; ++j) CHECK(y[j] == a[2 * j] * b[j]);
  int checked = 0;
  for (bool mul : {false, true}) {
    const pte::ew::VRowF32 simd = pte::ew::vaddmul_row_f32_simd(mul);
    if (!simd) {
      MESSAGE("skipped: no SIMD add/mul row on this CPU (" << std::string(pte::isa::describe()) << ")");
      continue;
    }
    const pte::ew::VRowF32 ref = mul ? pte::ew::vmul_row_f32_scalar : pte::ew::vadd_row_f32_scalar;
    for (int64_t n : {1, 3, 4, 7, 8, 12, 15, 16, 17, 33}) {
      for (int64_t ia : {0, 1, 2})
        for (int64_t ib : {0, 1}) {
          std::vector<float> y0(n), y1(n, -7.f);
          ref(y0.data(), a.data(), ia, b.data(), ib, n);
          simd(y1.data(), a.data(), ia, b.data(), ib, n);
          CHECK(std::memcmp(y0.data(), y1.data(), 4 * n) == 0);
          ++checked;
        }
    }
  }
  if (pte::ew::vaddmul_row_f32_simd(false)) CHECK(checked == 120);
}
