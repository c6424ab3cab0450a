// Tests of aten::minimum.out and aten::maximum.out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("minimum/maximum: nan propagates (f32), broadcast, resized output") {
  Harness h;
  const float nanf = std::numeric_limits<float>::quiet_NaN();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EValue* x = h.tensor<float>({4}, {1, nanf, -2, 3});
  EValue* y = h.tensor<float>({4}, {2, 0, nanf, -1});
  EValue* o = h.out<float>({4});
  REQUIRE(h.call("aten::minimum.out", {x, y, o}));
  check_close(Harness::values<float>(o), {1, nan, nan, -1});
  REQUIRE(h.call("aten::maximum.out", {x, y, o}));
  check_close(Harness::values<float>(o), {2, nan, nan, 3});
  EValue* a = h.tensor<int16_t>({2, 3}, {1, 5, -3, 4, 0, 9});
  EValue* b = h.tensor<int16_t>({3}, {2, 2, 2});
  EValue* oi = h.out<int16_t>({1}, 6);
  REQUIRE(h.call("aten::maximum.out", {a, b, oi}));
  check_equal(Harness::values<int16_t>(oi), {2, 5, 2, 4, 2, 9});
  // transposed input, mixed int32 / f32 -> f32
  EValue* t = h.tensor<int32_t>({2, 2}, {1, 7, -5, 3}, Dynamism::Static, {1, 0});  // [[1,-5],[7,3]]
  EValue* c = h.tensor<float>({}, {2.5f});
  EValue* of = h.out<float>({2, 2});
  REQUIRE(h.call("aten::minimum.out", {t, c, of}));
  check_close(Harness::values<float>(of), {1, -5, 2.5, 2.5});
}

TEST_CASE("minimum: errors") {
  Harness h;
  EValue* a = h.tensor<float>({2}, {1, 2});
  EValue* b = h.tensor<float>({3}, {1, 2, 3});
  EValue* o = h.out<float>({2});
  CHECK_FALSE(h.call("aten::minimum.out", {a, b, o}));
  CHECK(h.message == "shapes [2] and [3] are not broadcastable");
}
