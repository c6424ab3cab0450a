#include <doctest/doctest.h>

#include "op_harness.h"

using pte::test::Harness;

TEST_CASE("arange.out / arange.start_out: int64") {
  Harness h;
  auto* o = h.out<int64_t>({1}, 16);
  REQUIRE(h.call("aten::arange.out", {h.i(5), o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{0, 1, 2, 3, 4});
  REQUIRE(h.call("aten::arange.start_out", {h.i(0), h.i(10), h.i(3), o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{0, 3, 6, 9});
  REQUIRE(h.call("aten::arange.start_out", {h.i(5), h.i(0), h.i(-2), o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{5, 3, 1});
  REQUIRE(h.call("aten::arange.start_out", {h.i(3), h.i(3), h.i(1), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{0});
}

TEST_CASE("arange.start_out: floating and int32 outs") {
  Harness h;
  auto* o = h.out<float>({1}, 16);
  REQUIRE(h.call("aten::arange.start_out", {h.i(0), h.i(1), h.d(0.25), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 0.25, 0.5, 0.75});
  REQUIRE(h.call("aten::arange.start_out", {h.d(0.5), h.d(3.0), h.i(1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{0.5, 1.5, 2.5});
  auto* od = h.out<double>({1}, 16);
  REQUIRE(h.call("aten::arange.out", {h.d(2.5), od}));
  CHECK(Harness::values<double>(od) == std::vector<double>{0, 1, 2});
  auto* oi = h.out<int32_t>({1}, 16);
  REQUIRE(h.call("aten::arange.start_out", {h.i(-2), h.i(2), h.i(1), oi}));
  CHECK(Harness::values<int32_t>(oi) == std::vector<int32_t>{-2, -1, 0, 1});
}

TEST_CASE("arange: errors") {
  Harness h;
  auto* o = h.out<int64_t>({1}, 4);
  CHECK_FALSE(h.call("aten::arange.start_out", {h.i(0), h.i(5), h.i(0), o}));
  CHECK(h.message.find("nonzero") != std::string::npos);
  CHECK_FALSE(h.call("aten::arange.start_out", {h.i(0), h.i(5), h.i(-1), o}));
  CHECK(h.message.find("sign") != std::string::npos);
  CHECK_FALSE(h.call("aten::arange.out", {h.i(10), o}));  // 10 elements > capacity 4
}
