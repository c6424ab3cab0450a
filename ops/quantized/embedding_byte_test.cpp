// Expected values agree with the Python reference ops of ExecuTorch
// (torch.ops.quantized_decomposed.embedding_* from exir.passes._quant_patterns_and_replacements).
#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("embedding_byte.out: per-row scales and zero points, 2-D indices, dynamic out") {
  Harness h;
  // weight [3, 4] uint8
  auto* w = h.tensor<uint8_t>({3, 4}, {0, 1, 2, 3, 10, 20, 30, 40, 255, 128, 0, 7});
  auto* s = h.tensor<float>({3}, {1.0f, 0.5f, 0.25f});
  auto* z = h.tensor<float>({3}, {0, 10, 128});
  auto* idx = h.tensor<int64_t>({2, 1}, {2, 1});
  auto* out = h.out<float>({4, 4, 4});
  REQUIRE(h.call("quantized_decomposed::embedding_byte.out", {w, s, z, h.i(0), h.i(255), idx, out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{2, 1, 4});
  CHECK(Harness::values<float>(out) == std::vector<float>{31.75f, 0, -32, -30.25f, 0, 5, 10, 15});
}

TEST_CASE("embedding_byte.dtype_out: int8 weight, per-group scales, no zero points, f16 out, int32 indices") {
  Harness h;
  auto* w = h.tensor<int8_t>({2, 4}, {-1, 2, -3, 4, 5, -6, 7, -8});
  auto* s = h.tensor<float>({2, 2}, {1.0f, 0.5f, 2.0f, 0.25f});
  auto* idx = h.tensor<int32_t>({3}, {1, 0, 1});
  auto* out = h.out<pte::Half>({3, 4});
  REQUIRE(h.call("quantized_decomposed::embedding_byte.dtype_out", {w, s, h.none(), h.i(-128), h.i(127), idx, h.i(5), out}));
  auto v = Harness::values<pte::Half>(out);
  const float expect[12] = {10, -12, 1.75f, -2, -1, 2, -1.5f, 2, 10, -12, 1.75f, -2};
  for (int i = 0; i < 12; ++i) CHECK(float(v[i]) == expect[i]);
}

TEST_CASE("embedding_byte: errors") {
  Harness h;
  auto* w = h.tensor<uint8_t>({2, 4}, std::vector<uint8_t>(8, 1));
  auto* s = h.tensor<float>({2}, {1.0f, 1.0f});
  auto* idx = h.tensor<int64_t>({1}, {2});
  auto* out = h.out<float>({1, 4});
  CHECK_FALSE(h.call("quantized_decomposed::embedding_byte.out", {w, s, h.none(), h.i(0), h.i(255), idx, out}));
  CHECK(h.message.find("out of range") != std::string::npos);
  auto* idx0 = h.tensor<int64_t>({1}, {0});
  CHECK_FALSE(h.call("quantized_decomposed::embedding_byte.dtype_out", {w, s, h.none(), h.i(0), h.i(255), idx0, h.i(7), out}));
  CHECK(h.message.find("does not match dtype") != std::string::npos);
  auto* s3 = h.tensor<float>({2, 3}, std::vector<float>(6, 1.0f));
  CHECK_FALSE(h.call("quantized_decomposed::embedding_byte.out", {w, s3, h.none(), h.i(0), h.i(255), idx0, out}));
  CHECK(h.message.find("groups") != std::string::npos);
}
