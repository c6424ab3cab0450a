#include <doctest/doctest.h>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("any / all: dim, dims, all") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {0, 0, 0, 0, 2, 0});
  auto* o = h.out<bool>({2});
  REQUIRE(h.call("aten::any.out", {x, h.i(1), h.b(false), o}));
  CHECK(Harness::values<bool>(o) == std::vector<bool>{false, true});
  auto* o3 = h.out<bool>({3});
  REQUIRE(h.call("aten::any.dims_out", {x, h.ints({0}), h.b(false), o3}));
  CHECK(Harness::values<bool>(o3) == std::vector<bool>{false, true, false});
  auto* oa = h.out<bool>({});
  REQUIRE(h.call("aten::any.all_out", {x, oa}));
  CHECK(Harness::values<bool>(oa)[0] == true);
  REQUIRE(h.call("aten::all.all_out", {x, oa}));
  CHECK(Harness::values<bool>(oa)[0] == false);

  auto* y = h.tensor<int64_t>({2, 2}, {1, 3, 0, 5});
  auto* oy = h.out<bool>({2});
  REQUIRE(h.call("aten::all.out", {y, h.i(1), h.b(false), oy}));
  CHECK(Harness::values<bool>(oy) == std::vector<bool>{true, false});
  auto* ok = h.out<bool>({1}, 4);
  REQUIRE(h.call("aten::all.dims_out", {y, h.none(), h.b(true), ok}));
  CHECK(Harness::shape(ok) == std::vector<int64_t>{1, 1});
  CHECK(Harness::values<bool>(ok)[0] == false);
}

TEST_CASE("any.dims_out: [] reduces nothing; empty reductions; non-contiguous; uint8 out") {
  Harness h;
  auto* x = h.tensor<int32_t>({3}, {0, 7, 0});
  auto* o = h.out<bool>({3});
  REQUIRE(h.call("aten::any.dims_out", {x, h.ints({}), h.b(false), o}));
  CHECK(Harness::values<bool>(o) == std::vector<bool>{false, true, false});

  auto* e = h.tensor<float>({2, 0}, {});
  auto* oe = h.out<bool>({2});
  REQUIRE(h.call("aten::any.out", {e, h.i(1), h.b(false), oe}));
  CHECK(Harness::values<bool>(oe) == std::vector<bool>{false, false});
  REQUIRE(h.call("aten::all.out", {e, h.i(1), h.b(false), oe}));
  CHECK(Harness::values<bool>(oe) == std::vector<bool>{true, true});

  // logical [[1,0,1],[0,0,1]] stored column-major, out uint8
  auto* xn = h.tensor<bool>({2, 3}, {true, false, false, false, true, true}, Dynamism::Static, {1, 0});
  auto* on = h.out<uint8_t>({2});
  REQUIRE(h.call("aten::all.out", {xn, h.i(1), h.b(false), on}));
  CHECK(Harness::values<uint8_t>(on) == std::vector<uint8_t>{0, 0});
  auto* on3 = h.out<uint8_t>({3});
  REQUIRE(h.call("aten::any.out", {xn, h.i(0), h.b(false), on3}));
  CHECK(Harness::values<uint8_t>(on3) == std::vector<uint8_t>{1, 0, 1});
  REQUIRE(h.call("aten::all.dims_out", {xn, h.ints({0}), h.b(false), on3}));
  CHECK(Harness::values<uint8_t>(on3) == std::vector<uint8_t>{0, 0, 1});
}

TEST_CASE("any.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {0, 0, 0, 0, 2, 0});
  auto* o = h.out<bool>({2});
  CHECK_FALSE(h.call("aten::any.out", {x, h.i(5), h.b(false), o}));
  CHECK(h.message.find("out of range") != std::string::npos);
  CHECK_FALSE(h.call("aten::any.dims_out", {x, h.ints({0, 0}), h.b(false), o}));
}
