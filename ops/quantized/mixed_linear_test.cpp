#include <doctest/doctest.h>

#include <cmath>

#include "tests/op_harness.h"

using pte::test::Harness;

TEST_CASE("mixed_linear.out: per-channel and per-group scales, zero points") {
  Harness h;
  auto* x = h.tensor<float>({2, 4}, {1, 2, 3, 4, -1, 0, 1, 0});
  auto* w = h.tensor<int8_t>({2, 4}, {1, 1, 1, 1, 2, -2, 2, -2});
  auto* s = h.tensor<float>({2}, {0.5f, 1.0f});
  auto* out = h.out<float>({2, 2});
  REQUIRE(h.call("quantized_decomposed::mixed_linear.out", {x, w, s, h.none(), h.none(), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{5, -4, 0, 0});
  // groups of 2 columns: scales [[1, 0.5], [0.25, 2]], zero points [[0, 1], [2, 0]]
  auto* sg = h.tensor<float>({2, 2}, {1.0f, 0.5f, 0.25f, 2.0f});
  auto* zg = h.tensor<float>({2, 2}, {0, 1, 2, 0});
  REQUIRE(h.call("quantized_decomposed::mixed_linear.out", {x, w, sg, zg, h.i(6), out}));
  // row0: ch0: (1+2)*1 + (3+4)*(1-1)*0.5 = 3; ch1: (1*0 + 2*-4)*0.25 + (3*2 + 4*-2)*2 = -2 - 4 = -6
  // row1: ch0: -1*1 + 1*0 = -1; ch1: (-1*0)*0.25 + (1*2)*2 = 4
  CHECK(Harness::values<float>(out) == std::vector<float>{3, -6, -1, 4});
}

TEST_CASE("mixed_linear.out: larger random product against a double loop; errors") {
  Harness h;
  const int M = 3, N = 70, P = 130;
  std::vector<float> xv(M * N), sv(P);
  std::vector<int8_t> wv(P * N);
  for (int i = 0; i < M * N; ++i) xv[i] = std::sin(0.3f * i);
  for (int i = 0; i < P * N; ++i) wv[i] = static_cast<int8_t>((i * 37) % 255 - 127);
  for (int i = 0; i < P; ++i) sv[i] = 0.01f * (i % 7 + 1);
  auto* x = h.tensor<float>({M, N}, xv);
  auto* w = h.tensor<int8_t>({P, N}, wv);
  auto* s = h.tensor<float>({P}, sv);
  auto* out = h.out<float>({M, P});
  REQUIRE(h.call("quantized_decomposed::mixed_linear.out", {x, w, s, h.none(), h.none(), out}));
  auto got = Harness::values<float>(out);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < P; ++j) {
      double acc = 0;
      for (int k = 0; k < N; ++k) acc += double(xv[i * N + k]) * wv[j * N + k] * sv[j];
      REQUIRE(std::fabs(got[i * P + j] - acc) < 1e-3);
    }
  auto* w2 = h.tensor<int8_t>({P, N + 1}, std::vector<int8_t>(P * (N + 1)));
  CHECK_FALSE(h.call("quantized_decomposed::mixed_linear.out", {x, w2, s, h.none(), h.none(), out}));
  CHECK(h.message.find("do not match") != std::string::npos);
}
