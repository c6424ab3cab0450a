// Expected values agree with the Python reference ops of ExecuTorch
// (torch.ops.quantized_decomposed.embedding_* from exir.passes._quant_patterns_and_replacements).
#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("embedding_4bit.out: high nibble first, values stored +8, per-group scales and zero points") {
  Harness h;
  // row 0 bytes 0x0F, 0x80 -> nibbles [0, 15, 8, 0] -> values [-8, 7, 0, -8]
  // row 1 bytes 0x9A, 0x7F -> nibbles [9, 10, 7, 15] -> values [1, 2, -1, 7]
  auto* w = h.tensor<uint8_t>({2, 2}, {0x0F, 0x80, 0x9A, 0x7F});
  auto* s = h.tensor<float>({2, 2}, {1.0f, 2.0f, 0.5f, 0.25f});
  auto* z = h.tensor<float>({2, 2}, {0, 1, 1, -1});
  auto* idx = h.tensor<int64_t>({2}, {0, 1});
  auto* out = h.out<float>({2, 4});
  REQUIRE(h.call("quantized_decomposed::embedding_4bit.out", {w, s, z, h.i(-8), h.i(7), idx, out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{-8, 7, -2, -18, 0, 0.5f, 0, 2});
}

TEST_CASE("embedding_4bit.dtype_out: bf16 out, no zero points, dynamic out; error") {
  Harness h;
  auto* w = h.tensor<uint8_t>({1, 1}, {0x3C});  // nibbles 3, 12 -> -5, 4
  auto* s = h.tensor<float>({1}, {0.5f});
  auto* idx = h.tensor<int64_t>({1, 1}, {0});
  auto* out = h.out<pte::BFloat16>({4, 4, 4});
  REQUIRE(h.call("quantized_decomposed::embedding_4bit.dtype_out", {w, s, h.none(), h.i(-8), h.i(7), idx, h.none(), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 1, 2});
  auto v = Harness::values<pte::BFloat16>(out);
  CHECK(float(v[0]) == -2.5f);
  CHECK(float(v[1]) == 2.0f);
  auto* bad = h.tensor<int64_t>({1}, {-1});
  CHECK_FALSE(h.call("quantized_decomposed::embedding_4bit.out", {w, s, h.none(), h.i(-8), h.i(7), bad, out}));
  CHECK(h.message.find("out of range") != std::string::npos);
}
