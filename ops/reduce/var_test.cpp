#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::Half;

TEST_CASE("var.correction_out / var.out / std: per row and overall") {
  Harness h;
  auto* x = h.tensor<float>({2, 4}, {1, 2, 3, 4, 2, 4, 6, 8});
  auto* o = h.out<float>({2});
  REQUIRE(h.call("aten::var.correction_out", {x, h.ints({1}), h.none(), h.b(false), o}));
  auto r = Harness::values<float>(o);
  CHECK(r[0] == doctest::Approx(5.0 / 3));
  CHECK(r[1] == doctest::Approx(20.0 / 3));
  REQUIRE(h.call("aten::var.correction_out", {x, h.ints({1}), h.i(0), h.b(false), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1.25, 5});
  REQUIRE(h.call("aten::var.out", {x, h.ints({-1}), h.b(false), h.b(false), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1.25, 5});
  REQUIRE(h.call("aten::std.out", {x, h.ints({1}), h.b(true), h.b(false), o}));
  r = Harness::values<float>(o);
  CHECK(r[0] == doctest::Approx(1.2909944487358056));
  CHECK(r[1] == doctest::Approx(2.581988897471611));

  auto* oa = h.out<float>({1}, 4);  // dynamic, resized to [1,1] with keepdim
  REQUIRE(h.call("aten::var.correction_out", {x, h.none(), h.d(1.0), h.b(true), oa}));
  CHECK(Harness::shape(oa) == std::vector<int64_t>{1, 1});
  CHECK(Harness::values<float>(oa)[0] == doctest::Approx(37.5 / 7));
  REQUIRE(h.call("aten::std.correction_out", {x, h.ints({}), h.i(1), h.b(true), oa}));
  CHECK(Harness::values<float>(oa)[0] == doctest::Approx(std::sqrt(37.5 / 7)));
}

TEST_CASE("var_mean / std_mean, non-contiguous input, half, NaN for a single sample") {
  Harness h;
  // logical [[1,2,3,4],[2,4,6,8]] stored column-major
  auto* x = h.tensor<double>({2, 4}, {1, 2, 2, 4, 3, 6, 4, 8}, Dynamism::Static, {1, 0});
  auto* v = h.out<double>({2});
  auto* m = h.out<double>({2});
  REQUIRE(h.call("aten::var_mean.correction_out", {x, h.ints({1}), h.none(), h.b(false), v, m, h.list({v, m})}, false));
  CHECK(Harness::values<double>(v)[0] == doctest::Approx(5.0 / 3));
  CHECK(Harness::values<double>(v)[1] == doctest::Approx(20.0 / 3));
  CHECK(Harness::values<double>(m) == std::vector<double>{2.5, 5});
  auto* v0 = h.out<double>({4});
  auto* m0 = h.out<double>({4});
  REQUIRE(h.call("aten::std_mean.correction_out", {x, h.ints({0}), h.i(0), h.b(false), v0, m0, h.list({v0, m0})}, false));
  CHECK(Harness::values<double>(v0) == std::vector<double>{0.5, 1, 1.5, 2});
  CHECK(Harness::values<double>(m0) == std::vector<double>{1.5, 3, 4.5, 6});

  auto* xh = h.tensor<Half>({1, 2}, {Half(1.f), Half(3.f)});
  auto* oh = h.out<Half>({1});
  REQUIRE(h.call("aten::var.correction_out", {xh, h.ints({1}), h.none(), h.b(false), oh}));
  CHECK(float(Harness::values<Half>(oh)[0]) == 2.0f);
  auto* on = h.out<Half>({2});
  REQUIRE(h.call("aten::var.correction_out", {xh, h.ints({0}), h.none(), h.b(false), on}));
  CHECK(std::isnan(float(Harness::values<Half>(on)[0])));
}

TEST_CASE("var: errors") {
  Harness h;
  auto* xi = h.tensor<int32_t>({3}, {1, 2, 3});
  auto* o = h.out<float>({});
  CHECK_FALSE(h.call("aten::var.correction_out", {xi, h.none(), h.none(), h.b(false), o}));
  CHECK(h.message.find("floating") != std::string::npos);
  auto* x = h.tensor<float>({3}, {1, 2, 3});
  CHECK_FALSE(h.call("aten::var.correction_out", {x, h.ints({1}), h.none(), h.b(false), o}));
}
