// Tests of aten::logical_{and,or,xor,not}.out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("logical ops: bool broadcast, non-bool inputs read as != 0, float output") {
  Harness h;
  EValue* p = h.tensor<bool>({2, 2}, {false, true, false, true});
  EValue* q = h.tensor<bool>({2, 1}, {false, true});
  EValue* o = h.out<bool>({1}, 4);
  REQUIRE(h.call("aten::logical_and.out", {p, q, o}));
  check_equal(Harness::values<bool>(o), {false, false, false, true});
  REQUIRE(h.call("aten::logical_or.out", {p, q, o}));
  check_equal(Harness::values<bool>(o), {false, true, true, true});
  REQUIRE(h.call("aten::logical_xor.out", {p, q, o}));
  check_equal(Harness::values<bool>(o), {false, true, true, false});
  const float nanf = std::numeric_limits<float>::quiet_NaN();
  EValue* f = h.tensor<float>({4}, {0.f, -0.f, nanf, 2.f});
  EValue* i = h.tensor<int64_t>({4}, {5, 0, 0, -1});
  EValue* of = h.out<float>({4});
  REQUIRE(h.call("aten::logical_and.out", {f, i, of}));
  check_close(Harness::values<float>(of), {0, 0, 0, 1}, 0, 0);
  EValue* on = h.out<bool>({4});
  REQUIRE(h.call("aten::logical_not.out", {f, on}));
  check_equal(Harness::values<bool>(on), {true, true, false, false});
  // transposed bool input, logical_not into uint8
  EValue* t = h.tensor<bool>({2, 2}, {true, false, true, true}, Dynamism::Static, {1, 0});  // [[1,1],[0,1]]
  EValue* ou = h.out<uint8_t>({2, 2});
  REQUIRE(h.call("aten::logical_not.out", {t, ou}));
  check_equal(Harness::values<uint8_t>(ou), {0, 0, 1, 0});
}

TEST_CASE("logical ops: errors") {
  Harness h;
  EValue* p = h.tensor<bool>({2}, {false, true});
  EValue* q = h.tensor<bool>({3}, {false, true, true});
  EValue* o = h.out<bool>({2});
  CHECK_FALSE(h.call("aten::logical_or.out", {p, q, o}));
  CHECK(h.message == "shapes [2] and [3] are not broadcastable");
  EValue* fixed = h.tensor<bool>({3}, {false, false, false});
  CHECK_FALSE(h.call("aten::logical_not.out", {p, fixed}));
  CHECK(h.message.find("cannot resize output") != std::string::npos);
}
