// Expected values from torch.ops.quantized_decomposed.choose_qparams.tensor (they agree
// with ExecuTorch's kernel for these inputs).
#include <doctest/doctest.h>

#include <cfloat>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("choose_qparams.Tensor_out: int8 range and uint8 range with a positive-only input") {
  Harness h;
  auto* x = h.tensor<float>({2, 4}, {0.5f, -1.0f, 2.0f, 0.25f, 3.0f, 1.0f, 0.0f, -0.5f});
  auto* s = h.out<double>({1});
  auto* z = h.out<int64_t>({1});
  REQUIRE(h.call("quantized_decomposed::choose_qparams.Tensor_out", {x, h.i(-128), h.i(127), h.d(FLT_EPSILON), h.i(1), s, z}));
  CHECK(Harness::values<double>(s)[0] == doctest::Approx(4.0 / 255).epsilon(1e-12));
  CHECK(Harness::values<int64_t>(z)[0] == -64);
  auto* x2 = h.tensor<float>({3}, {0.5f, 1.0f, 2.0f});
  REQUIRE(h.call("quantized_decomposed::choose_qparams.Tensor_out", {x2, h.i(0), h.i(255), h.d(FLT_EPSILON), h.i(0), s, z}));
  CHECK(Harness::values<double>(s)[0] == doctest::Approx(2.0 / 255).epsilon(1e-12));
  CHECK(Harness::values<int64_t>(z)[0] == 0);
}

TEST_CASE("choose_qparams.Tensor_out: all-zero input (scale 0.1), tiny range (6.1e-5 floor), f32 outputs") {
  Harness h;
  auto* x = h.tensor<float>({2}, {0.0f, 0.0f});
  auto* s = h.out<float>({1});
  auto* z = h.out<int32_t>({1});
  REQUIRE(h.call("quantized_decomposed::choose_qparams.Tensor_out", {x, h.i(-128), h.i(127), h.d(FLT_EPSILON), h.i(1), s, z}));
  CHECK(Harness::values<float>(s)[0] == 0.1f);
  // ExecuTorch's rule picks the (max, qmax) pair on a tie-free 128 vs 127 error: 127
  // (torch's eager decomposition would give -128 here).
  CHECK(Harness::values<int32_t>(z)[0] == 127);
  auto* t = h.tensor<float>({2}, {0.0f, 0.001f});
  REQUIRE(h.call("quantized_decomposed::choose_qparams.Tensor_out", {t, h.i(-128), h.i(127), h.d(FLT_EPSILON), h.i(1), s, z}));
  CHECK(Harness::values<float>(s)[0] == 6.1e-5f);
  CHECK(Harness::values<int32_t>(z)[0] == -128);
}

TEST_CASE("choose_qparams.Tensor_out: errors") {
  Harness h;
  auto* x = h.tensor<double>({2}, {0.0, 1.0});
  auto* s = h.out<double>({1});
  auto* z = h.out<int64_t>({1});
  CHECK_FALSE(h.call("quantized_decomposed::choose_qparams.Tensor_out", {x, h.i(-128), h.i(127), h.d(FLT_EPSILON), h.i(1), s, z}));
  CHECK(h.message.find("float32") != std::string::npos);
  auto* xf = h.tensor<float>({2}, {0.0f, 1.0f});
  CHECK_FALSE(h.call("quantized_decomposed::choose_qparams.Tensor_out", {xf, h.i(127), h.i(-128), h.d(FLT_EPSILON), h.i(1), s, z}));
}
