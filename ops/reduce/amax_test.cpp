#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("amax.out / amin.out: dims, keepdim, all dims") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 7, -2, 4, 0, 9});
  auto* o = h.out<float>({2});
  REQUIRE(h.call("aten::amax.out", {x, h.ints({1}), h.b(false), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{7, 9});
  REQUIRE(h.call("aten::amin.out", {x, h.ints({1}), h.b(false), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{-2, 0});

  auto* ok = h.out<float>({1, 3});
  REQUIRE(h.call("aten::amax.out", {x, h.ints({0}), h.b(true), ok}));
  CHECK(Harness::shape(ok) == std::vector<int64_t>{1, 3});
  CHECK(Harness::values<float>(ok) == std::vector<float>{4, 7, 9});

  auto* oa = h.out<float>({}, 4);
  REQUIRE(h.call("aten::amin.out", {x, h.ints({}), h.b(false), oa}));  // [] = all dims
  CHECK(Harness::shape(oa).empty());
  CHECK(Harness::values<float>(oa)[0] == -2.0f);
}

TEST_CASE("amax.out: NaN propagates, int dtype, non-contiguous input") {
  Harness h;
  auto* x = h.tensor<float>({2, 2}, {1, NAN, 3, 2});
  auto* o = h.out<float>({2});
  REQUIRE(h.call("aten::amax.out", {x, h.ints({1}), h.b(false), o}));
  auto r = Harness::values<float>(o);
  CHECK(std::isnan(r[0]));
  CHECK(r[1] == 3.0f);

  // logical [[1,5,2],[8,0,3]] stored transposed (dim order [1,0]): physical = column-major
  auto* xi = h.tensor<int32_t>({2, 3}, {1, 8, 5, 0, 2, 3}, Dynamism::Static, {1, 0});
  auto* oi = h.out<int32_t>({2});
  REQUIRE(h.call("aten::amax.out", {xi, h.ints({-1}), h.b(false), oi}));
  CHECK(Harness::values<int32_t>(oi) == std::vector<int32_t>{5, 8});
  auto* oi0 = h.out<int32_t>({3});
  REQUIRE(h.call("aten::amin.out", {xi, h.ints({0}), h.b(false), oi0}));
  CHECK(Harness::values<int32_t>(oi0) == std::vector<int32_t>{1, 0, 2});
}

TEST_CASE("amax.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 0}, {});
  auto* o = h.out<float>({2});
  CHECK_FALSE(h.call("aten::amax.out", {x, h.ints({1}), h.b(false), o}));
  CHECK(h.message.find("zero-size") != std::string::npos);
  auto* y = h.tensor<float>({2}, {1, 2});
  auto* od = h.out<double>({});
  CHECK_FALSE(h.call("aten::amax.out", {y, h.ints({0}), h.b(false), od}));
  CHECK(h.message.find("dtype") != std::string::npos);
}
