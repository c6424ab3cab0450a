// Tests of aten::fill.{Scalar,Tensor}_out, full_like.out, zeros_like.out, ones_like.out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("full_like.out: f32 (fill 0, memory_format preserve), int64 keeps 64 bits, resized output") {
  Harness h;
  EValue* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EValue* o = h.out<float>({1}, 6);
  REQUIRE(h.call("aten::full_like.out", {x, h.i(0), h.i(1), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  check_close(Harness::values<float>(o), {0, 0, 0, 0, 0, 0}, 0, 0);
  REQUIRE(h.call("aten::full_like.out", {x, h.d(-std::numeric_limits<double>::infinity()), h.none(), o}));
  check_close(Harness::values<float>(o), std::vector<double>(6, -std::numeric_limits<double>::infinity()), 0, 0);
  EValue* l = h.tensor<int64_t>({2}, {0, 0});
  EValue* ol = h.out<int64_t>({2});
  REQUIRE(h.call("aten::full_like.out", {l, h.i((int64_t{1} << 60) + 1), h.none(), ol}));
  check_equal(Harness::values<int64_t>(ol), {(int64_t{1} << 60) + 1, (int64_t{1} << 60) + 1});
}

TEST_CASE("fill / zeros_like / ones_like: half, bool, channels-last output") {
  Harness h;
  EValue* x = h.tensor<Half>({3}, {Half(1.f), Half(2.f), Half(3.f)});
  EValue* o = h.out<Half>({3});
  REQUIRE(h.call("aten::fill.Scalar_out", {x, h.d(0.1), o}));
  check_close(Harness::values<Half>(o), {0.0999755859375, 0.0999755859375, 0.0999755859375}, 0, 0);
  EValue* v = h.tensor<int32_t>({}, {7});
  REQUIRE(h.call("aten::fill.Tensor_out", {x, v, o}));
  check_close(Harness::values<Half>(o), {7, 7, 7}, 0, 0);
  EValue* b = h.tensor<bool>({2}, {false, false});
  EValue* ob = h.out<bool>({2});
  REQUIRE(h.call("aten::ones_like.out", {b, h.none(), ob}));
  check_equal(Harness::values<bool>(ob), {true, true});
  EValue* cl = h.tensor<float>({1, 2, 1, 2}, {1, 1, 1, 1}, Dynamism::Static, {0, 2, 3, 1});
  REQUIRE(h.call("aten::zeros_like.out", {cl, h.i(2), cl}));
  check_close(Harness::values<float>(cl), {0, 0, 0, 0}, 0, 0);
}

TEST_CASE("fill: errors") {
  Harness h;
  EValue* x = h.tensor<float>({2}, {1, 2});
  EValue* v = h.tensor<float>({1}, {3});
  CHECK_FALSE(h.call("aten::fill.Tensor_out", {x, v, h.out<float>({2})}));
  CHECK(h.message == "fill only supports a 0-dimension value tensor, got one with 1 dimension(s)");
  CHECK_FALSE(h.call("aten::full_like.out", {x, h.none(), h.none(), h.out<float>({2})}));
  CHECK(h.message.find("fill_value") != std::string::npos);
}
