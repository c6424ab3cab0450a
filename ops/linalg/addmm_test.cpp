#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "tests/op_harness.h"

using pte::test::Harness;

TEST_CASE("addmm.out: 1-D bias broadcast, beta and alpha") {
  Harness h;
  auto* bias = h.tensor<float>({2}, {10, 20});
  auto* a = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* b = h.tensor<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  auto* out = h.out<float>({2, 2});
  REQUIRE(h.call("aten::addmm.out", {bias, a, b, h.i(1), h.i(1), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{68, 84, 149, 174});
  // beta 0.5, alpha 2: 2*mm + 0.5*bias
  REQUIRE(h.call("aten::addmm.out", {bias, a, b, h.d(0.5), h.d(2.0), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{121, 138, 283, 318});
}

TEST_CASE("addmm.out: [M,1] bias, beta=0 ignores NaN, transposed mat2 (permute-free linear)") {
  Harness h;
  auto* bias = h.tensor<float>({2, 1}, {1, 2});
  auto* a = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  // logical mat2 = [[1,0],[0,1]] stored transposed
  auto* b = h.tensor<float>({2, 2}, {1, 0, 0, 1}, pte::Dynamism::Static, {1, 0});
  auto* out = h.out<float>({2, 2});
  REQUIRE(h.call("aten::addmm.out", {bias, a, b, h.i(1), h.i(1), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{2, 3, 5, 6});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto* nbias = h.tensor<float>({2, 2}, {nan, nan, nan, nan});
  REQUIRE(h.call("aten::addmm.out", {nbias, a, b, h.i(0), h.i(1), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("addmm.out: f64 and int64") {
  Harness h;
  auto* bias = h.tensor<double>({}, {0.25});
  auto* a = h.tensor<double>({1, 2}, {1, 2});
  auto* b = h.tensor<double>({2, 1}, {3, 4});
  auto* out = h.out<double>({1, 1});
  REQUIRE(h.call("aten::addmm.out", {bias, a, b, h.i(4), h.d(0.5), out}));
  CHECK(Harness::values<double>(out) == std::vector<double>{6.5});
  auto* ibias = h.tensor<int64_t>({2}, {1, -1});
  auto* ia = h.tensor<int64_t>({1, 1}, {3});
  auto* ib = h.tensor<int64_t>({1, 2}, {5, 7});
  auto* iout = h.out<int64_t>({1, 2});
  REQUIRE(h.call("aten::addmm.out", {ibias, ia, ib, h.i(2), h.i(3), iout}));
  CHECK(Harness::values<int64_t>(iout) == std::vector<int64_t>{47, 61});
}

TEST_CASE("addmm.out: errors") {
  Harness h;
  auto* bias = h.tensor<float>({3}, {1, 2, 3});
  auto* a = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* b = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* out = h.out<float>({2, 2});
  CHECK_FALSE(h.call("aten::addmm.out", {bias, a, b, h.i(1), h.i(1), out}));
  CHECK(h.message.find("broadcast") != std::string::npos);
}
