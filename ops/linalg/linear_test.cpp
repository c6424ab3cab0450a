#include <doctest/doctest.h>

#include <cmath>

#include "tests/op_harness.h"

using pte::test::Harness;

TEST_CASE("linear.out: 2-D input with bias") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* w = h.tensor<float>({2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f});
  auto* bias = h.tensor<float>({2}, {10, 20});
  auto* out = h.out<float>({2, 2});
  REQUIRE(h.call("aten::linear.out", {x, w, bias, out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{8, 23, 8, 27.5f});
}

TEST_CASE("linear.out: 1-D and 3-D inputs, no bias, dynamic output") {
  Harness h;
  auto* w = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* x1 = h.tensor<float>({2}, {1, 1});
  auto* o1 = h.out<float>({5});
  REQUIRE(h.call("aten::linear.out", {x1, w, h.none(), o1}));
  CHECK(Harness::shape(o1) == std::vector<int64_t>{2});
  CHECK(Harness::values<float>(o1) == std::vector<float>{3, 7});
  auto* x3 = h.tensor<float>({2, 1, 2}, {1, 0, 0, 1});
  auto* o3 = h.tensor<float>({2, 3, 2}, std::vector<float>(12), pte::Dynamism::DynamicBound);
  REQUIRE(h.call("aten::linear.out", {x3, w, h.none(), o3}));
  CHECK(Harness::shape(o3) == std::vector<int64_t>{2, 1, 2});
  CHECK(Harness::values<float>(o3) == std::vector<float>{1, 3, 2, 4});
}

TEST_CASE("linear.out: non-contiguous 3-D input (dim_order [1,0,2] and [2,0,1])") {
  Harness h;
  // logical x [2,2,2] = [[[1,2],[3,4]],[[5,6],[7,8]]]
  // dim_order [1,0,2]: physical [d1][d0][d2]
  auto* x = h.tensor<float>({2, 2, 2}, {1, 2, 5, 6, 3, 4, 7, 8}, pte::Dynamism::Static, {1, 0, 2});
  auto* w = h.tensor<float>({1, 2}, {1, 10});
  auto* out = h.out<float>({2, 2, 1});
  REQUIRE(h.call("aten::linear.out", {x, w, h.none(), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{21, 43, 65, 87});
  // dim_order [2,0,1]: physical [d2][d0][d1]
  auto* x2 = h.tensor<float>({2, 2, 2}, {1, 3, 5, 7, 2, 4, 6, 8}, pte::Dynamism::Static, {2, 0, 1});
  auto* out2 = h.out<float>({2, 2, 1});
  REQUIRE(h.call("aten::linear.out", {x2, w, h.none(), out2}));
  CHECK(Harness::values<float>(out2) == std::vector<float>{21, 43, 65, 87});
}

TEST_CASE("linear.out: decode-shaped GEMV (M=1, large N/K) against a double loop; f64") {
  Harness h;
  const int K = 300, N = 77;
  std::vector<float> xv(K), wv(N * K), bv(N);
  for (int i = 0; i < K; ++i) xv[i] = std::sin(0.3f * i);
  for (int i = 0; i < N * K; ++i) wv[i] = std::cos(0.07f * i);
  for (int i = 0; i < N; ++i) bv[i] = 0.01f * i;
  auto* x = h.tensor<float>({1, K}, xv);
  auto* w = h.tensor<float>({N, K}, wv);
  auto* b = h.tensor<float>({N}, bv);
  auto* out = h.out<float>({1, N});
  REQUIRE(h.call("aten::linear.out", {x, w, b, out}));
  auto got = Harness::values<float>(out);
  for (int j = 0; j < N; ++j) {
    double s = bv[j];
    for (int k = 0; k < K; ++k) s += double(xv[k]) * wv[j * K + k];
    REQUIRE(std::fabs(got[j] - s) < 1e-3);
  }
  auto* dx = h.tensor<double>({1, 2}, {1, 2});
  auto* dw = h.tensor<double>({1, 2}, {0.5, 0.25});
  auto* dout = h.out<double>({1, 1});
  REQUIRE(h.call("aten::linear.out", {dx, dw, h.none(), dout}));
  CHECK(Harness::values<double>(dout) == std::vector<double>{1.0});
}

TEST_CASE("linear.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* w = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* out = h.out<float>({2, 2});
  CHECK_FALSE(h.call("aten::linear.out", {x, w, h.none(), out}));
  CHECK(h.message.find("do not match") != std::string::npos);
  auto* w3 = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* bias = h.tensor<float>({3}, {1, 2, 3});
  CHECK_FALSE(h.call("aten::linear.out", {x, w3, bias, out}));
  CHECK(h.message.find("bias") != std::string::npos);
}
