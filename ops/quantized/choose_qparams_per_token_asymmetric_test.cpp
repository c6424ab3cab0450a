// Expected values from torch.ops.quantized_decomposed.choose_qparams_per_token_asymmetric.
#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("choose_qparams_per_token_asymmetric.out: per row scales and zero points, outputs resized to [2,1]") {
  Harness h;
  auto* x = h.tensor<float>({2, 4}, {0.5f, -1.0f, 2.0f, 0.25f, 3.0f, 1.0f, 0.0f, -0.5f});
  auto* s = h.out<float>({4, 1});
  auto* z = h.out<float>({4, 1});
  REQUIRE(h.call("quantized_decomposed::choose_qparams_per_token_asymmetric.out", {x, h.i(6), s, z}));
  CHECK(Harness::shape(s) == std::vector<int64_t>{2, 1});
  CHECK(Harness::shape(z) == std::vector<int64_t>{2, 1});
  auto sv = Harness::values<float>(s);
  CHECK(sv[0] == doctest::Approx(0.0117647061f));
  CHECK(sv[1] == doctest::Approx(0.0137254903f));
  CHECK(Harness::values<float>(z) == std::vector<float>{-43, -92});
}

TEST_CASE("choose_qparams_per_token_asymmetric.out: 3-D transposed input, f64/int64 outputs; errors") {
  Harness h;
  // logical x[1,2,2] = [[[1, 2], [-2, 0]]], dim_order [0,2,1]
  auto* x = h.tensor<float>({1, 2, 2}, {1, -2, 2, 0}, Dynamism::Static, {0, 2, 1});
  auto* s = h.out<double>({1, 2, 1});
  auto* z = h.out<int64_t>({1, 2, 1});
  REQUIRE(h.call("quantized_decomposed::choose_qparams_per_token_asymmetric.out", {x, h.i(6), s, z}));
  auto sv = Harness::values<double>(s);
  CHECK(sv[0] == doctest::Approx(2.0 / 255));
  CHECK(sv[1] == doctest::Approx(2.0 / 255));
  CHECK(Harness::values<int64_t>(z) == std::vector<int64_t>{-128, 127});
  auto* zb = h.out<int8_t>({1, 2, 1});
  CHECK_FALSE(h.call("quantized_decomposed::choose_qparams_per_token_asymmetric.out", {x, h.i(6), s, zb}));
  CHECK(h.message.find("unsupported output dtypes") != std::string::npos);
}
