// Tests of neg/abs/sign/floor/ceil/round/trunc and round.decimals (unary_same.cpp);
// expected values printed by torch 2.13.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("rounding ops: half to even, negative zero, f32 and f64") {
  Harness h;
  const std::vector<float> r = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4999f, -7.7f, 7.7f};
  EValue* x = h.tensor<float>({9}, r);
  EValue* o = h.out<float>({9});
  REQUIRE(h.call("aten::round.out", {x, o}));
  check_close(Harness::values<float>(o), {0, 2, 2, -0., -2, -2, 2, -8, 8}, 0, 0);
  CHECK(std::signbit(Harness::values<float>(o)[3]));
  REQUIRE(h.call("aten::floor.out", {x, o}));
  check_close(Harness::values<float>(o), {0, 1, 2, -1, -2, -3, 2, -8, 7}, 0, 0);
  REQUIRE(h.call("aten::ceil.out", {x, o}));
  check_close(Harness::values<float>(o), {1, 2, 3, -0., -1, -2, 3, -7, 8}, 0, 0);
  REQUIRE(h.call("aten::trunc.out", {x, o}));
  check_close(Harness::values<float>(o), {0, 1, 2, -0., -1, -2, 2, -7, 7}, 0, 0);
  EValue* xd = h.tensor<double>({2}, {2.5, 3.5});
  EValue* od = h.out<double>({2});
  REQUIRE(h.call("aten::round.out", {xd, od}));
  check_close(Harness::values<double>(od), {2, 4}, 0, 0);
  EValue* dec = h.tensor<float>({4}, {1.2345f, -2.5678f, 1250.f, 1350.f});
  EValue* o4 = h.out<float>({4});
  REQUIRE(h.call("aten::round.decimals_out", {dec, h.i(2), o4}));
  check_close(Harness::values<float>(o4), {1.2300000190734863, -2.569999933242798, 1250, 1350}, 1e-7, 0);
  REQUIRE(h.call("aten::round.decimals_out", {dec, h.i(-2), o4}));
  check_close(Harness::values<float>(o4), {0, -0., 1200, 1400}, 0, 0);
}

TEST_CASE("neg / abs / sign: f32 with nan, int8 wraps, transposed input, resized output") {
  Harness h;
  const float nanf = std::numeric_limits<float>::quiet_NaN();
  EValue* x = h.tensor<float>({5}, {-2.f, 0.f, -0.f, 3.f, nanf});
  EValue* o = h.out<float>({1}, 5);
  REQUIRE(h.call("aten::sign.out", {x, o}));
  check_close(Harness::values<float>(o), {-1, 0, 0, 1, 0}, 0, 0);
  REQUIRE(h.call("aten::abs.out", {x, o}));
  check_close(Harness::values<float>(o), {2, 0, 0, 3, std::numeric_limits<double>::quiet_NaN()}, 0, 0);
  REQUIRE(h.call("aten::neg.out", {x, o}));
  check_close(Harness::values<float>(o), {2, -0., 0, -3, std::numeric_limits<double>::quiet_NaN()}, 0, 0);
  EValue* i8 = h.tensor<int8_t>({3}, {-128, 5, -3});
  EValue* o8 = h.out<int8_t>({3});
  REQUIRE(h.call("aten::abs.out", {i8, o8}));
  check_equal(Harness::values<int8_t>(o8), {-128, 5, 3});
  REQUIRE(h.call("aten::neg.out", {i8, o8}));
  check_equal(Harness::values<int8_t>(o8), {-128, -5, 3});
  REQUIRE(h.call("aten::sign.out", {i8, o8}));
  check_equal(Harness::values<int8_t>(o8), {-1, 1, -1});
  REQUIRE(h.call("aten::floor.out", {i8, o8}));  // identity on integers
  check_equal(Harness::values<int8_t>(o8), {-128, 5, -3});
  EValue* t = h.tensor<float>({2, 2}, {1, -3, -2, 4}, Dynamism::Static, {1, 0});  // [[1,-2],[-3,4]]
  EValue* ot = h.out<float>({2, 2});
  REQUIRE(h.call("aten::neg.out", {t, ot}));
  check_close(Harness::values<float>(ot), {-1, 2, 3, -4}, 0, 0);
}

TEST_CASE("unary same-dtype ops: errors") {
  Harness h;
  EValue* b = h.tensor<bool>({2}, {true, false});
  EValue* ob = h.out<bool>({2});
  CHECK_FALSE(h.call("aten::neg.out", {b, ob}));
  CHECK(h.message.find("bool tensor is not supported") != std::string::npos);
  EValue* f = h.tensor<float>({2}, {1.5f, 2.5f});
  EValue* oi = h.out<int32_t>({2});
  CHECK_FALSE(h.call("aten::round.out", {f, oi}));
  CHECK(h.message == "result type float32 can't be cast to the desired output type int32");
  EValue* i = h.tensor<int32_t>({2}, {1, 2});
  CHECK_FALSE(h.call("aten::round.decimals_out", {i, h.i(1), oi}));
}
