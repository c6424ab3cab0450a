// Expected values agree with the Python reference ops of ExecuTorch
// (torch.ops.quantized_decomposed.embedding_* from exir.passes._quant_patterns_and_replacements).
#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;

TEST_CASE("embedding_2bit.out: low bits first, values stored +2") {
  Harness h;
  // byte 0b11'10'01'00 = 0xE4 -> fields [0, 1, 2, 3] -> values [-2, -1, 0, 1]
  auto* w = h.tensor<uint8_t>({1, 1}, {0xE4});
  auto* s = h.tensor<float>({1}, {2.0f});
  auto* idx = h.tensor<int64_t>({1}, {0});
  auto* out = h.out<float>({1, 4});
  REQUIRE(h.call("quantized_decomposed::embedding_2bit.out", {w, s, h.none(), h.i(-2), h.i(1), idx, out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{-4, -2, 0, 2});
  auto* o2 = h.out<double>({1, 4});
  REQUIRE(h.call("quantized_decomposed::embedding_2bit.dtype_out", {w, s, h.none(), h.i(-2), h.i(1), idx, h.i(7), o2}));
  CHECK(Harness::values<double>(o2) == std::vector<double>{-4, -2, 0, 2});
  CHECK_FALSE(h.call("quantized_decomposed::embedding_2bit.dtype_out", {w, s, h.none(), h.i(-2), h.i(1), idx, h.i(6), o2}));
}
