#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("argmax.out / argmin.out: along a dim, keepdim, ties") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 7, 7, 4, -2, 4});
  auto* o = h.out<int64_t>({2});
  REQUIRE(h.call("aten::argmax.out", {x, h.i(1), h.b(false), o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{1, 0});
  REQUIRE(h.call("aten::argmin.out", {x, h.i(-1), h.b(false), o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{0, 1});
  auto* ok = h.out<int64_t>({1, 3});
  REQUIRE(h.call("aten::argmax.out", {x, h.i(0), h.b(true), ok}));
  CHECK(Harness::values<int64_t>(ok) == std::vector<int64_t>{1, 0, 0});
}

TEST_CASE("argmax.out: dim=None flattens in logical order, non-contiguous, NaN, keepdim") {
  Harness h;
  // logical [[1,5,2],[8,0,3]] stored column-major: flattened logical argmax is 3
  auto* x = h.tensor<int32_t>({2, 3}, {1, 8, 5, 0, 2, 3}, Dynamism::Static, {1, 0});
  auto* o = h.out<int64_t>({}, 4);
  REQUIRE(h.call("aten::argmax.out", {x, h.none(), h.b(false), o}));
  CHECK(Harness::shape(o).empty());
  CHECK(Harness::values<int64_t>(o)[0] == 3);
  REQUIRE(h.call("aten::argmin.out", {x, h.none(), h.b(true), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 1});
  CHECK(Harness::values<int64_t>(o)[0] == 4);

  auto* xn = h.tensor<double>({4}, {1, NAN, 9, NAN});
  auto* on = h.out<int64_t>({});
  REQUIRE(h.call("aten::argmax.out", {xn, h.none(), h.b(false), on}));
  CHECK(Harness::values<int64_t>(on)[0] == 1);
  REQUIRE(h.call("aten::argmin.out", {xn, h.none(), h.b(false), on}));
  CHECK(Harness::values<int64_t>(on)[0] == 1);
}

TEST_CASE("argmax.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 0}, {});
  auto* o = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::argmax.out", {x, h.i(1), h.b(false), o}));
  CHECK(h.message.find("empty") != std::string::npos);
  auto* y = h.tensor<float>({2}, {1, 2});
  auto* of = h.out<float>({});
  CHECK_FALSE(h.call("aten::argmax.out", {y, h.none(), h.b(false), of}));
  CHECK(h.message.find("int64") != std::string::npos);
}
