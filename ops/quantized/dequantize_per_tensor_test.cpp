#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

namespace {
constexpr int64_t kU8 = 0, kI8 = 1, kI32 = 3, kF16 = 5, kF32 = 6, kF64 = 7;
}

TEST_CASE("dequantize_per_tensor.out: uint8 -> f32 (torch values), out_dtype None and given") {
  Harness h;
  auto* q = h.tensor<uint8_t>({5}, {0, 3, 5, 255, 128});
  auto* out = h.out<float>({8});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_tensor.out", {q, h.d(0.1), h.i(3), h.i(0), h.i(255), h.i(kU8), h.none(), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{5});
  CHECK(Harness::values<float>(out) == std::vector<float>{-0.300000012f, 0.f, 0.200000003f, 25.2000008f, 12.5f});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_tensor.out", {q, h.d(0.1), h.i(3), h.i(0), h.i(255), h.i(kU8), h.i(kF32), out}));
  CHECK(Harness::values<float>(out)[3] == 25.2000008f);
}

TEST_CASE("dequantize_per_tensor.Tensor_out: int8 -> f16 and int32 -> f64, transposed input") {
  Harness h;
  auto* q = h.tensor<int8_t>({2, 2}, {-128, 1, 0, 127}, Dynamism::Static, {1, 0});  // logical [[-128,0],[1,127]]
  auto* s = h.tensor<double>({1}, {0.5});
  auto* z = h.tensor<int64_t>({1}, {-1});
  auto* out = h.out<pte::Half>({2, 2});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_tensor.Tensor_out", {q, s, z, h.i(-128), h.i(127), h.i(kI8), h.i(kF16), out}));
  auto v = Harness::values<pte::Half>(out);
  CHECK(float(v[0]) == -63.5f);
  CHECK(float(v[1]) == 0.5f);
  CHECK(float(v[2]) == 1.0f);
  CHECK(float(v[3]) == 64.0f);
  auto* q32 = h.tensor<int32_t>({2}, {100000, -7});
  auto* o64 = h.out<double>({2});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_tensor.out", {q32, h.d(0.25), h.i(0), h.i(-2147483648LL), h.i(2147483647LL), h.i(kI32), h.none(), o64}));
  CHECK(Harness::values<double>(o64) == std::vector<double>{25000.0, -1.75});
}

TEST_CASE("dequantize_per_tensor.out: errors") {
  Harness h;
  auto* q = h.tensor<uint8_t>({2}, {1, 2});
  auto* out = h.out<float>({2});
  CHECK_FALSE(h.call("quantized_decomposed::dequantize_per_tensor.out", {q, h.d(0.1), h.i(3), h.i(0), h.i(255), h.i(kI8), h.none(), out}));
  CHECK(h.message.find("does not match dtype") != std::string::npos);
  CHECK_FALSE(h.call("quantized_decomposed::dequantize_per_tensor.out", {q, h.d(0.1), h.i(3), h.i(0), h.i(255), h.i(kU8), h.i(kF64), out}));
  CHECK(h.message.find("out_dtype") != std::string::npos);
}
