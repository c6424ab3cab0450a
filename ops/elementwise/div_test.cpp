// Tests of aten::div.out, div.out_mode, div.Scalar_out, div.Scalar_mode_out and
// floor_divide.out. Expected values printed by torch 2.13.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();
const std::vector<float> kA = {-7.f, -7.5f, 7.f, 7.5f, 0.f, -0.f, 5.f, -5.f, 1e-30f, 3.f};
const std::vector<float> kB = {2.f, 2.f, -2.f, -2.f, 3.f, 3.f, 0.f, 0.f, -1.f, 0.1f};
}  // namespace

TEST_CASE("div: f32 true, trunc and floor modes (torch's values, incl. x/0)") {
  Harness h;
  EValue* a = h.tensor<float>({10}, kA);
  EValue* b = h.tensor<float>({10}, kB);
  EValue* o = h.out<float>({10});
  REQUIRE(h.call("aten::div.out", {a, b, o}));
  check_close(Harness::values<float>(o), {-3.5, -3.75, -3.5, -3.75, 0, -0., kInf, -kInf, -1.0000000031710769e-30, 30.0});
  REQUIRE(h.call("aten::div.out_mode", {a, b, h.none(), o}));
  check_close(Harness::values<float>(o), {-3.5, -3.75, -3.5, -3.75, 0, -0., kInf, -kInf, -1.0000000031710769e-30, 30.0});
  REQUIRE(h.call("aten::div.out_mode", {a, b, h.str("trunc"), o}));
  check_close(Harness::values<float>(o), {-3, -3, -3, -3, 0, -0., kInf, -kInf, -0., 30});
  REQUIRE(h.call("aten::div.out_mode", {a, b, h.str("floor"), o}));
  check_close(Harness::values<float>(o), {-4, -4, -4, -4, 0, -0., kInf, -kInf, -1, 29});  // 3/0.1f floors to 29
  REQUIRE(h.call("aten::floor_divide.out", {a, b, o}));
  check_close(Harness::values<float>(o), {-4, -4, -4, -4, 0, -0., kInf, -kInf, -1, 29});
  CHECK(std::signbit(Harness::values<float>(o)[5]));
}

TEST_CASE("div: integers (true division gives float, modes keep int)") {
  Harness h;
  EValue* a = h.tensor<int64_t>({7}, {-7, 7, -7, 7, 0, -8, 9});
  EValue* b = h.tensor<int64_t>({7}, {2, 2, -2, -2, 5, 3, -4});
  EValue* of = h.out<float>({7});
  REQUIRE(h.call("aten::div.out", {a, b, of}));
  check_close(Harness::values<float>(of), {-3.5, 3.5, 3.5, -3.5, 0, -2.6666667461395264, -2.25});
  EValue* oi = h.out<int64_t>({7});
  REQUIRE(h.call("aten::div.out_mode", {a, b, h.str("trunc"), oi}));
  check_equal(Harness::values<int64_t>(oi), {-3, 3, 3, -3, 0, -2, -2});
  REQUIRE(h.call("aten::div.out_mode", {a, b, h.str("floor"), oi}));
  check_equal(Harness::values<int64_t>(oi), {-4, 3, 3, -4, 0, -3, -3});
  REQUIRE(h.call("aten::floor_divide.out", {a, b, oi}));
  check_equal(Harness::values<int64_t>(oi), {-4, 3, 3, -4, 0, -3, -3});
  // int / 0 in true division: inf / nan
  EValue* x = h.tensor<int32_t>({3}, {1, 0, -3});
  EValue* y = h.tensor<int32_t>({3}, {0, 0, 2});
  EValue* o3 = h.out<float>({3});
  REQUIRE(h.call("aten::div.out", {x, y, o3}));
  check_close(Harness::values<float>(o3), {kInf, kNan, -1.5});
}

TEST_CASE("div: broadcast, transposed input, resized output, Scalar forms, f16") {
  Harness h;
  EValue* a = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  EValue* b = h.tensor<float>({}, {2.f});
  EValue* o = h.out<float>({1}, 6);
  REQUIRE(h.call("aten::div.out", {a, b, o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  check_close(Harness::values<float>(o), {0.5, 1, 1.5, 2, 2.5, 3});
  REQUIRE(h.call("aten::div.Scalar_out", {a, h.i(4), o}));
  check_close(Harness::values<float>(o), {0.25, 0.5, 0.75, 1, 1.25, 1.5});
  EValue* i = h.tensor<int32_t>({4}, {-7, 7, 8, -9});
  EValue* oi = h.out<int32_t>({4});
  REQUIRE(h.call("aten::div.Scalar_mode_out", {i, h.i(2), h.str("floor"), oi}));
  check_equal(Harness::values<int32_t>(oi), {-4, 3, 4, -5});
  EValue* of = h.out<float>({4});
  REQUIRE(h.call("aten::div.Scalar_mode_out", {i, h.i(2), h.none(), of}));
  check_close(Harness::values<float>(of), {-3.5, 3.5, 4, -4.5});
  EValue* hx = h.tensor<Half>({4}, {Half(7.f), Half(-7.f), Half(1.f), Half(2.5f)});
  EValue* hy = h.tensor<Half>({1}, {Half(3.f)});
  EValue* oh = h.out<Half>({4});
  REQUIRE(h.call("aten::div.out", {hx, hy, oh}));
  check_close(Harness::values<Half>(oh), {2.333984375, -2.333984375, 0.333251953125, 0.83349609375}, 0, 0);
  REQUIRE(h.call("aten::div.out_mode", {hx, hy, h.str("floor"), oh}));
  check_close(Harness::values<Half>(oh), {2, -3, 0, 0}, 0, 0);
}

TEST_CASE("div: errors") {
  Harness h;
  EValue* a = h.tensor<int64_t>({2}, {1, 2});
  EValue* z = h.tensor<int64_t>({2}, {1, 0});
  EValue* oi = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::div.out_mode", {a, z, h.str("floor"), oi}));
  CHECK(h.message.find("ZeroDivisionError") != std::string::npos);
  CHECK_FALSE(h.call("aten::div.out_mode", {a, z, h.str("round"), oi}));
  CHECK(h.message.find("rounding_mode") != std::string::npos);
  CHECK_FALSE(h.call("aten::div.out", {a, a, oi}));  // true division result is float
  CHECK(h.message == "result type float32 can't be cast to the desired output type int64");
  EValue* b = h.tensor<int64_t>({3}, {1, 2, 3});
  CHECK_FALSE(h.call("aten::floor_divide.out", {a, b, oi}));
  CHECK(h.message == "shapes [2] and [3] are not broadcastable");
}
