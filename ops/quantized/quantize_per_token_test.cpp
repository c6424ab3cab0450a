#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("quantize_per_token.out: one scale/zero point per row (scales [2,1])") {
  Harness h;
  auto* x = h.tensor<float>({2, 4}, {0.5f, -1.0f, 2.0f, 0.25f, 3.0f, 1.0f, 0.0f, -0.5f});
  auto* s = h.tensor<float>({2, 1}, {0.0117647061f, 0.0137254903f});
  auto* z = h.tensor<float>({2, 1}, {-43, -92});
  auto* q = h.out<int8_t>({2, 4});
  REQUIRE(h.call("quantized_decomposed::quantize_per_token.out", {x, s, z, h.i(-128), h.i(127), h.i(1), q}));
  // x/scale + zp, rounded half to even: row 0: 42.5->42-43=-1, -85-43=-128, 170-43=127, 21.25->21-43=-22
  CHECK(Harness::values<int8_t>(q) == std::vector<int8_t>{-1, -128, 127, -22, 127, -19, -92, -128});
}

TEST_CASE("quantize_per_token.out: 3-D f64 input with f64 scales / int64 zero points, dynamic out; errors") {
  Harness h;
  auto* x = h.tensor<double>({1, 2, 2}, {1.0, -1.0, 0.25, 0.75});
  auto* s = h.tensor<double>({1, 2, 1}, {0.5, 0.25});
  auto* z = h.tensor<int64_t>({1, 2, 1}, {0, 10});
  auto* q = h.out<int8_t>({1, 4, 4});
  REQUIRE(h.call("quantized_decomposed::quantize_per_token.out", {x, s, z, h.i(-128), h.i(127), h.i(1), q}));
  CHECK(Harness::shape(q) == std::vector<int64_t>{1, 2, 2});
  CHECK(Harness::values<int8_t>(q) == std::vector<int8_t>{2, -2, 11, 13});
  auto* s3 = h.tensor<double>({3}, {1, 1, 1});
  CHECK_FALSE(h.call("quantized_decomposed::quantize_per_token.out", {x, s3, z, h.i(-128), h.i(127), h.i(1), q}));
  CHECK(h.message.find("tokens") != std::string::npos);
}
