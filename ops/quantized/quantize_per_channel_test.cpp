// Expected values from torch.ops.quantized_decomposed.quantize_per_channel.
#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

namespace {
const std::vector<float> kX = {0.1f, -0.2f, 0.3f, 1.5f, 2.5f, -3.5f};
constexpr int64_t kI8 = 1;
}

TEST_CASE("quantize_per_channel.out: axis 0 and axis -1 (=1)") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, kX);
  auto* s0 = h.tensor<double>({2}, {0.1, 1.0});
  auto* z0 = h.tensor<int64_t>({2}, {0, 1});
  auto* q = h.out<int8_t>({2, 3});
  REQUIRE(h.call("quantized_decomposed::quantize_per_channel.out", {x, s0, z0, h.i(0), h.i(-128), h.i(127), h.i(kI8), q}));
  CHECK(Harness::values<int8_t>(q) == std::vector<int8_t>{1, -2, 3, 3, 3, -3});
  auto* s1 = h.tensor<double>({3}, {0.1, 0.2, 0.5});
  auto* z1 = h.tensor<int64_t>({3}, {1, 0, -1});
  REQUIRE(h.call("quantized_decomposed::quantize_per_channel.out", {x, s1, z1, h.i(-1), h.i(-128), h.i(127), h.i(kI8), q}));
  CHECK(Harness::values<int8_t>(q) == std::vector<int8_t>{2, -1, 0, 16, 12, -8});
}

TEST_CASE("quantize_per_channel.out: f32 scales / int32 zero points, transposed bf16 input, dynamic out") {
  Harness h;
  // logical [[1, 2], [3, 4]] stored column-major, channels along axis 1
  std::vector<pte::BFloat16> xv = {pte::BFloat16(1.f), pte::BFloat16(3.f), pte::BFloat16(2.f), pte::BFloat16(4.f)};
  auto* x = h.tensor<pte::BFloat16>({2, 2}, xv, Dynamism::Static, {1, 0});
  auto* s = h.tensor<float>({2}, {0.5f, 2.0f});
  auto* z = h.tensor<int32_t>({2}, {10, 0});
  auto* q = h.out<uint8_t>({3, 3});
  REQUIRE(h.call("quantized_decomposed::quantize_per_channel.out", {x, s, z, h.i(1), h.i(0), h.i(255), h.i(0), q}));
  CHECK(Harness::shape(q) == std::vector<int64_t>{2, 2});
  CHECK(Harness::values<uint8_t>(q) == std::vector<uint8_t>{12, 1, 16, 2});
}

TEST_CASE("quantize_per_channel.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, kX);
  auto* s = h.tensor<double>({2}, {0.1, 1.0});
  auto* z = h.tensor<int64_t>({2}, {0, 1});
  auto* q = h.out<int8_t>({2, 3});
  CHECK_FALSE(h.call("quantized_decomposed::quantize_per_channel.out", {x, s, z, h.i(1), h.i(-128), h.i(127), h.i(kI8), q}));
  CHECK(h.message.find("channels") != std::string::npos);
  CHECK_FALSE(h.call("quantized_decomposed::quantize_per_channel.out", {x, s, z, h.i(2), h.i(-128), h.i(127), h.i(kI8), q}));
  CHECK(h.message.find("axis") != std::string::npos);
}
