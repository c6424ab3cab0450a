// Tests of aten::clamp.out, aten::clamp.Tensor_out and aten::hardtanh.out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("clamp.out: [-2, 2] as in ops_mix, one-sided, min > max, nan, transposed input") {
  Harness h;
  const float nanf = std::numeric_limits<float>::quiet_NaN();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EValue* x = h.tensor<float>({5}, {-3, -1, 0.5f, 7, nanf});
  EValue* o = h.out<float>({1}, 5);
  REQUIRE(h.call("aten::clamp.out", {x, h.d(-2.0), h.d(2.0), o}));
  check_close(Harness::values<float>(o), {-2, -1, 0.5, 2, nan}, 0, 0);
  REQUIRE(h.call("aten::clamp.out", {x, h.none(), h.i(0), o}));
  check_close(Harness::values<float>(o), {-3, -1, 0, 0, nan}, 0, 0);
  REQUIRE(h.call("aten::clamp.out", {x, h.d(0.0), h.none(), o}));
  check_close(Harness::values<float>(o), {0, 0, 0.5, 7, nan}, 0, 0);
  REQUIRE(h.call("aten::clamp.out", {x, h.d(5.0), h.d(1.0), o}));  // min > max: everything is max
  check_close(Harness::values<float>(o), {1, 1, 1, 1, nan}, 0, 0);
  EValue* t = h.tensor<float>({2, 2}, {-5, 5, 1, 0}, Dynamism::Static, {1, 0});  // [[-5,1],[5,0]]
  EValue* ot = h.out<float>({2, 2});
  REQUIRE(h.call("aten::clamp.out", {t, h.i(-1), h.i(1), ot}));
  check_close(Harness::values<float>(ot), {-1, 1, 1, 0}, 0, 0);
}

TEST_CASE("clamp.out: int tensor with int bounds stays int; float bound promotes") {
  Harness h;
  EValue* x = h.tensor<int64_t>({4}, {-10, 0, 3, 10});
  EValue* o = h.out<int64_t>({4});
  REQUIRE(h.call("aten::clamp.out", {x, h.i(-1), h.i(5), o}));
  check_equal(Harness::values<int64_t>(o), {-1, 0, 3, 5});
  EValue* of = h.out<float>({4});
  REQUIRE(h.call("aten::clamp.out", {x, h.d(0.5), h.none(), of}));
  check_close(Harness::values<float>(of), {0.5, 0.5, 3, 10}, 0, 0);
  CHECK_FALSE(h.call("aten::clamp.out", {x, h.d(0.5), h.none(), o}));  // float result into int64
}

TEST_CASE("hardtanh.out: default [-1, 1], f16") {
  Harness h;
  EValue* x = h.tensor<Half>({4}, {Half(-3.f), Half(-0.25f), Half(0.75f), Half(9.f)});
  EValue* o = h.out<Half>({4});
  REQUIRE(h.call("aten::hardtanh.out", {x, h.d(-1.0), h.d(1.0), o}));
  check_close(Harness::values<Half>(o), {-1, -0.25, 0.75, 1}, 0, 0);
  EValue* y = h.tensor<float>({3}, {-1, 3, 8});
  EValue* oy = h.out<float>({3});
  REQUIRE(h.call("aten::hardtanh.out", {y, h.i(0), h.i(6), oy}));  // relu6
  check_close(Harness::values<float>(oy), {0, 3, 6}, 0, 0);
}

TEST_CASE("clamp.Tensor_out: broadcast bounds, one-sided, nan bounds") {
  Harness h;
  const float nanf = std::numeric_limits<float>::quiet_NaN();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EValue* x = h.tensor<float>({2, 3}, {-5, 0, 5, -5, 0, 5});
  EValue* lo = h.tensor<float>({2, 1}, {-1, nanf});
  EValue* hi = h.tensor<float>({3}, {1, 2, 3});
  EValue* o = h.out<float>({1}, 6);
  REQUIRE(h.call("aten::clamp.Tensor_out", {x, lo, hi, o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  check_close(Harness::values<float>(o), {-1, 0, 3, nan, nan, nan}, 0, 0);
  REQUIRE(h.call("aten::clamp.Tensor_out", {x, h.none(), hi, o}));
  check_close(Harness::values<float>(o), {-5, 0, 3, -5, 0, 3}, 0, 0);
  EValue* xi = h.tensor<int32_t>({3}, {-5, 0, 5});
  EValue* li = h.tensor<int32_t>({}, {-2});
  EValue* oi = h.out<int32_t>({3});
  REQUIRE(h.call("aten::clamp.Tensor_out", {xi, li, h.none(), oi}));
  check_equal(Harness::values<int32_t>(oi), {-2, 0, 5});
}

TEST_CASE("clamp: errors") {
  Harness h;
  EValue* x = h.tensor<float>({2}, {1, 2});
  EValue* o = h.out<float>({2});
  CHECK_FALSE(h.call("aten::clamp.out", {x, h.none(), h.none(), o}));
  CHECK(h.message == "clamp: at least one of 'min' or 'max' must not be None");
  CHECK_FALSE(h.call("aten::clamp.Tensor_out", {x, h.none(), h.none(), o}));
  EValue* bad = h.tensor<float>({3}, {1, 2, 3});
  CHECK_FALSE(h.call("aten::clamp.Tensor_out", {x, bad, h.none(), o}));
  CHECK(h.message == "shapes [2] and [3] are not broadcastable");
}
