#include <doctest/doctest.h>

#include "op_harness.h"

using pte::test::Harness;

TEST_CASE("linspace.out: float, int64, steps 1 and 0") {
  Harness h;
  auto* o = h.out<float>({1}, 8);
  REQUIRE(h.call("aten::linspace.out", {h.i(0), h.i(1), h.i(5), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 0.25, 0.5, 0.75, 1});
  REQUIRE(h.call("aten::linspace.out", {h.d(-1), h.d(1), h.i(4), o}));
  auto r = Harness::values<float>(o);
  CHECK(r[0] == -1.0f);
  CHECK(r[1] == doctest::Approx(-1.0 / 3));
  CHECK(r[2] == doctest::Approx(1.0 / 3));
  CHECK(r[3] == 1.0f);  // exact end
  auto* oi = h.out<int64_t>({1}, 8);
  REQUIRE(h.call("aten::linspace.out", {h.i(0), h.i(10), h.i(4), oi}));
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{0, 3, 6, 10});
  REQUIRE(h.call("aten::linspace.out", {h.d(2.5), h.d(7), h.i(1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{2.5});
  REQUIRE(h.call("aten::linspace.out", {h.d(2.5), h.d(7), h.i(0), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{0});
}

TEST_CASE("linspace.out: errors") {
  Harness h;
  auto* o = h.out<float>({1}, 4);
  CHECK_FALSE(h.call("aten::linspace.out", {h.i(0), h.i(1), h.i(-1), o}));
  CHECK_FALSE(h.call("aten::linspace.out", {h.i(0), h.i(1), h.i(5), o}));  // over capacity
}
