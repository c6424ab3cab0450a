#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;

TEST_CASE("baddbmm.out: f32 broadcast self, beta/alpha, dynamic out") {
  Harness h;
  auto* self = h.tensor<float>({1, 1, 2}, {1, 2});
  auto* a = h.tensor<float>({2, 1, 2}, {1, 2, 3, 4});
  auto* b = h.tensor<float>({2, 2, 2}, {1, 0, 0, 1, 2, 1, 1, 2});
  auto* out = h.out<float>({4, 4, 4});
  REQUIRE(h.call("aten::baddbmm.out", {self, a, b, h.d(2.0), h.d(0.5), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{2, 1, 2});
  // 0.5*[[1,2]] + 2*[1,2] = [2.5, 5]; 0.5*[[10,11]] + 2*[1,2] = [7, 9.5]
  CHECK(Harness::values<float>(out) == std::vector<float>{2.5f, 5.f, 7.f, 9.5f});
}

TEST_CASE("baddbmm.out: f64 full self, errors") {
  Harness h;
  auto* self = h.tensor<double>({1, 2, 1}, {100, 200});
  auto* a = h.tensor<double>({1, 2, 1}, {1, 2});
  auto* b = h.tensor<double>({1, 1, 1}, {3});
  auto* out = h.out<double>({1, 2, 1});
  REQUIRE(h.call("aten::baddbmm.out", {self, a, b, h.i(1), h.i(1), out}));
  CHECK(Harness::values<double>(out) == std::vector<double>{103, 206});
  auto* bad = h.tensor<double>({3, 1, 1}, {1, 2, 3});
  CHECK_FALSE(h.call("aten::baddbmm.out", {bad, a, b, h.i(1), h.i(1), out}));
  CHECK(h.message.find("broadcast") != std::string::npos);
}
