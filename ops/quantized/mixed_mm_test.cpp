#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;

TEST_CASE("mixed_mm.out: int8 weight [n,p] scaled per row k") {
  Harness h;
  auto* x = h.tensor<float>({1, 2}, {1.0f, 2.0f});
  auto* w = h.tensor<int8_t>({2, 3}, {1, -2, 3, 4, 5, -6});
  auto* s = h.tensor<float>({2}, {0.5f, 0.25f});
  auto* out = h.out<float>({2, 4});
  REQUIRE(h.call("quantized_decomposed::mixed_mm.out", {x, w, s, h.none(), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 3});
  // 1*0.5*[1,-2,3] + 2*0.25*[4,5,-6] = [2.5, 1.5, -1.5]
  CHECK(Harness::values<float>(out) == std::vector<float>{2.5f, 1.5f, -1.5f});
}

TEST_CASE("mixed_mm.out: f16, errors") {
  Harness h;
  auto* x = h.tensor<pte::Half>({1, 1}, {pte::Half(2.f)});
  auto* w = h.tensor<int8_t>({1, 2}, {3, -4});
  auto* s = h.tensor<pte::Half>({1}, {pte::Half(0.5f)});
  auto* out = h.out<pte::Half>({1, 2});
  REQUIRE(h.call("quantized_decomposed::mixed_mm.out", {x, w, s, h.none(), out}));
  auto v = Harness::values<pte::Half>(out);
  CHECK(float(v[0]) == 3.f);
  CHECK(float(v[1]) == -4.f);
  auto* sf = h.tensor<float>({1}, {0.5f});
  CHECK_FALSE(h.call("quantized_decomposed::mixed_mm.out", {x, w, sf, h.none(), out}));
  CHECK(h.message.find("share a dtype") != std::string::npos);
}
