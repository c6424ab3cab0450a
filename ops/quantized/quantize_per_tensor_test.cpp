// Expected values from torch.ops.quantized_decomposed.quantize_per_tensor.
#include <doctest/doctest.h>

#include "ops/linalg/test_util.h"
#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

namespace {
const std::vector<float> kX = {-1.0f, -0.75f, -0.25f, 0.0f, 0.25f, 0.75f, 1.25f, 60.0f, -70.0f};
constexpr int64_t kU8 = 0, kI8 = 1, kI16 = 2, kF32 = 6;
}  // namespace

TEST_CASE("quantize_per_tensor.out: round half to even, clamp; uint8 and int8") {
  Harness h;
  auto* x = h.tensor<float>({9}, kX);
  auto* q = h.out<uint8_t>({9});
  REQUIRE(h.call("quantized_decomposed::quantize_per_tensor.out", {x, h.d(0.5), h.i(3), h.i(0), h.i(255), h.i(kU8), q}));
  CHECK(Harness::values<uint8_t>(q) == std::vector<uint8_t>{1, 1, 3, 3, 3, 5, 5, 123, 0});
  auto* q8 = h.out<int8_t>({9});
  REQUIRE(h.call("quantized_decomposed::quantize_per_tensor.out", {x, h.d(0.5), h.i(-2), h.i(-128), h.i(127), h.i(kI8), q8}));
  CHECK(Harness::values<int8_t>(q8) == std::vector<int8_t>{-4, -4, -2, -2, -2, 0, 0, 118, -128});
}

TEST_CASE("quantize_per_tensor.Tensor_out: f64 scale / int64 zero point tensors, narrowed range, int16, dynamic out") {
  Harness h;
  auto* x = h.tensor<float>({9}, kX);
  auto* s = h.tensor<double>({1}, {0.5});
  auto* z = h.tensor<int64_t>({1}, {3});
  auto* q = h.out<uint8_t>({16});
  REQUIRE(h.call("quantized_decomposed::quantize_per_tensor.Tensor_out", {x, s, z, h.i(2), h.i(100), h.i(kU8), q}));
  CHECK(Harness::shape(q) == std::vector<int64_t>{9});
  CHECK(Harness::values<uint8_t>(q) == std::vector<uint8_t>{2, 2, 3, 3, 3, 5, 5, 100, 2});
  auto* q16 = h.out<int16_t>({9});
  REQUIRE(h.call("quantized_decomposed::quantize_per_tensor.out", {x, h.d(0.25), h.i(0), h.i(-32768), h.i(32767), h.i(kI16), q16}));
  CHECK(Harness::values<int16_t>(q16) == std::vector<int16_t>{-4, -3, -1, 0, 1, 3, 5, 240, -280});
}

TEST_CASE("quantize_per_tensor.out: non-contiguous f64 input ([1,0] dim order) into a [1,0] output") {
  Harness h;
  // logical [[0.5, 1.0], [1.5, -0.5]] stored column-major
  auto* x = h.tensor<double>({2, 2}, {0.5, 1.5, 1.0, -0.5}, Dynamism::Static, {1, 0});
  auto* q = h.tensor<int8_t>({2, 2}, {0, 0, 0, 0}, Dynamism::Static, {1, 0});
  REQUIRE(h.call("quantized_decomposed::quantize_per_tensor.out", {x, h.d(0.5), h.i(0), h.i(-128), h.i(127), h.i(kI8), q}));
  CHECK(Harness::values<int8_t>(q) == std::vector<int8_t>{1, 2, 3, -1});
}

TEST_CASE("quantize_per_tensor.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({9}, kX);
  auto* q = h.out<uint8_t>({9});
  CHECK_FALSE(h.call("quantized_decomposed::quantize_per_tensor.out", {x, h.d(0.5), h.i(3), h.i(0), h.i(300), h.i(kU8), q}));
  CHECK(h.message.find("exceeds") != std::string::npos);
  CHECK_FALSE(h.call("quantized_decomposed::quantize_per_tensor.out", {x, h.d(0.5), h.i(3), h.i(0), h.i(255), h.i(kI8), q}));
  CHECK(h.message.find("does not match") != std::string::npos);
  auto* xi = h.tensor<int32_t>({1}, {1});
  CHECK_FALSE(h.call("quantized_decomposed::quantize_per_tensor.out", {xi, h.d(0.5), h.i(3), h.i(0), h.i(255), h.i(kU8), q}));
  auto* qf = h.out<float>({9});
  CHECK_FALSE(h.call("quantized_decomposed::quantize_per_tensor.out", {x, h.d(0.5), h.i(3), h.i(0), h.i(255), h.i(kF32), qf}));
}
