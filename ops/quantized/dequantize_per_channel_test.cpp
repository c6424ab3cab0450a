#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

namespace {
constexpr int64_t kI8 = 1, kF32 = 6;
}

TEST_CASE("dequantize_per_channel.out: axis 0 with zero points, axis 1 without") {
  Harness h;
  auto* q = h.tensor<int8_t>({2, 3}, {1, -2, 3, 3, 3, -3});
  auto* s = h.tensor<double>({2}, {0.5, 2.0});
  auto* z = h.tensor<int64_t>({2}, {1, -1});
  auto* out = h.out<float>({2, 3});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_channel.out", {q, s, z, h.i(0), h.i(-128), h.i(127), h.i(kI8), h.none(), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{0, -1.5f, 1, 8, 8, -4});
  auto* s1 = h.tensor<float>({3}, {1.0f, 0.25f, 4.0f});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_channel.out", {q, s1, h.none(), h.i(1), h.i(-128), h.i(127), h.i(kI8), h.i(kF32), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{1, -0.5f, 12, 3, 0.75f, -12});
}

TEST_CASE("dequantize_per_channel.out: channels-last int8 weight [O,I,H,W] along axis 0 -> f64, dynamic out") {
  Harness h;
  // logical q[2,1,1,2] = [[[[1, 2]]], [[[3, 4]]]], stored with dim_order [0,2,3,1] (same bytes here for I=1)
  auto* q = h.tensor<int8_t>({2, 1, 1, 2}, {1, 2, 3, 4}, Dynamism::Static, {0, 2, 3, 1});
  auto* s = h.tensor<double>({2}, {0.5, 0.25});
  auto* z = h.tensor<int32_t>({2}, {0, 4});
  auto* out = h.out<double>({4, 4});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_channel.out", {q, s, z, h.i(0), h.i(-128), h.i(127), h.i(kI8), h.none(), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{2, 1, 1, 2});
  CHECK(Harness::values<double>(out) == std::vector<double>{0.5, 1.0, -0.25, 0.0});
}

TEST_CASE("dequantize_per_channel.out: errors") {
  Harness h;
  auto* q = h.tensor<int8_t>({2, 3}, {1, -2, 3, 3, 3, -3});
  auto* s = h.tensor<double>({3}, {0.5, 2.0, 1.0});
  auto* out = h.out<float>({2, 3});
  CHECK_FALSE(h.call("quantized_decomposed::dequantize_per_channel.out", {q, s, h.none(), h.i(0), h.i(-128), h.i(127), h.i(kI8), h.none(), out}));
  CHECK(h.message.find("channels") != std::string::npos);
}
