#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("dequantize_per_token.out: int8 -> f32 and -> bf16") {
  Harness h;
  auto* q = h.tensor<int8_t>({2, 3}, {-1, 0, 1, 10, 20, -30});
  auto* s = h.tensor<float>({2, 1}, {0.5f, 0.25f});
  auto* z = h.tensor<int64_t>({2, 1}, {1, -2});
  auto* out = h.out<float>({2, 3});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_token.out", {q, s, z, h.i(-128), h.i(127), h.i(1), h.i(6), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{-1, -0.5f, 0, 3, 5.5f, -7});
  auto* ob = h.out<pte::BFloat16>({2, 3});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_token.out", {q, s, z, h.i(-128), h.i(127), h.i(1), h.i(15), ob}));
  auto v = Harness::values<pte::BFloat16>(ob);
  CHECK(float(v[4]) == 5.5f);
  CHECK(float(v[5]) == -7.0f);
}

TEST_CASE("dequantize_per_token.out: transposed input, errors") {
  Harness h;
  auto* q = h.tensor<int8_t>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});  // logical [[1,2],[3,4]]
  auto* s = h.tensor<double>({2, 1}, {1.0, 2.0});
  auto* z = h.tensor<float>({2, 1}, {0, 1});
  auto* out = h.out<float>({2, 2});
  REQUIRE(h.call("quantized_decomposed::dequantize_per_token.out", {q, s, z, h.i(-128), h.i(127), h.i(1), h.i(6), out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{1, 2, 4, 6});
  CHECK_FALSE(h.call("quantized_decomposed::dequantize_per_token.out", {q, s, z, h.i(-128), h.i(127), h.i(1), h.i(7), out}));
  CHECK(h.message.find("output_dtype") != std::string::npos);
}
