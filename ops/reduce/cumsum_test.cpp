#include <doctest/doctest.h>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::BFloat16;

TEST_CASE("cumsum.out / cumprod.out along each dim") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({2, 3});
  REQUIRE(h.call("aten::cumsum.out", {x, h.i(1), h.none(), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 3, 6, 4, 9, 15});
  REQUIRE(h.call("aten::cumsum.out", {x, h.i(0), h.none(), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 5, 7, 9});
  REQUIRE(h.call("aten::cumprod.out", {x, h.i(-1), h.none(), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 6, 4, 20, 120});
}

TEST_CASE("cumsum.out: int32 -> int64 (torch default), bool, bf16, non-contiguous, dynamic out") {
  Harness h;
  auto* x = h.tensor<int32_t>({4}, {1, -2, 3, 10});
  auto* o = h.out<int64_t>({1}, 8);
  REQUIRE(h.call("aten::cumsum.out", {x, h.i(0), h.i(4), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{4});
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{1, -1, 2, 12});

  auto* b = h.tensor<bool>({4}, {true, false, true, true});
  auto* ob = h.out<int64_t>({4});
  REQUIRE(h.call("aten::cumsum.out", {b, h.i(0), h.none(), ob}));
  CHECK(Harness::values<int64_t>(ob) == std::vector<int64_t>{1, 1, 2, 3});

  auto* xb = h.tensor<BFloat16>({3}, {BFloat16(0.5f), BFloat16(0.25f), BFloat16(2.f)});
  auto* obf = h.out<BFloat16>({3});
  REQUIRE(h.call("aten::cumsum.out", {xb, h.i(0), h.none(), obf}));
  auto r = Harness::values<BFloat16>(obf);
  CHECK(float(r[0]) == 0.5f);
  CHECK(float(r[1]) == 0.75f);
  CHECK(float(r[2]) == 2.75f);

  // logical [[1,2,3],[4,5,6]] stored column-major; cumsum along dim 1
  auto* xn = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});
  auto* on = h.out<float>({2, 3});
  REQUIRE(h.call("aten::cumsum.out", {xn, h.i(1), h.none(), on}));
  CHECK(Harness::values<float>(on) == std::vector<float>{1, 3, 6, 4, 9, 15});
}

TEST_CASE("cumsum.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({2, 3});
  CHECK_FALSE(h.call("aten::cumsum.out", {x, h.i(2), h.none(), o}));
  auto* oi = h.out<int64_t>({2, 3});
  CHECK_FALSE(h.call("aten::cumsum.out", {x, h.i(1), h.none(), oi}));
  auto* small = h.tensor<float>({2, 2}, {0, 0, 0, 0});  // static, wrong shape
  CHECK_FALSE(h.call("aten::cumsum.out", {x, h.i(1), h.none(), small}));
}
