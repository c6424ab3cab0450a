#include <doctest/doctest.h>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("prod.int_out / prod.out") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 0.5});
  auto* o = h.out<float>({2});
  REQUIRE(h.call("aten::prod.int_out", {x, h.i(1), h.b(false), h.none(), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{6, 10});
  auto* ok = h.out<float>({1}, 3);
  REQUIRE(h.call("aten::prod.int_out", {x, h.i(0), h.b(true), h.none(), ok}));
  CHECK(Harness::shape(ok) == std::vector<int64_t>{1, 3});
  CHECK(Harness::values<float>(ok) == std::vector<float>{4, 10, 1.5});
  auto* oa = h.out<float>({});
  REQUIRE(h.call("aten::prod.out", {x, h.none(), oa}));
  CHECK(Harness::values<float>(oa)[0] == 60.0f);
}

TEST_CASE("prod: int32 -> int64, non-contiguous, empty dim gives 1, bad dtype arg") {
  Harness h;
  // logical [[1,5,2],[8,-1,3]] stored column-major
  auto* x = h.tensor<int32_t>({2, 3}, {1, 8, 5, -1, 2, 3}, Dynamism::Static, {1, 0});
  auto* o = h.out<int64_t>({2});
  REQUIRE(h.call("aten::prod.int_out", {x, h.i(1), h.b(false), h.i(4), o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{10, -24});
  auto* e = h.tensor<float>({2, 0}, {});
  auto* oe = h.out<float>({2});
  REQUIRE(h.call("aten::prod.int_out", {e, h.i(1), h.b(false), h.none(), oe}));
  CHECK(Harness::values<float>(oe) == std::vector<float>{1, 1});
  CHECK_FALSE(h.call("aten::prod.int_out", {x, h.i(1), h.b(false), h.i(6), o}));
}
