// Tests of aten::isnan.out and aten::isinf.out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("isnan / isinf: f32, f16, int, transposed input, resized output") {
  Harness h;
  const float nanf = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EValue* f = h.tensor<float>({2, 2}, {nanf, inf, 1.f, -inf}, Dynamism::Static, {1, 0});  // [[nan,1],[inf,-inf]]
  EValue* o = h.out<bool>({1}, 4);
  REQUIRE(h.call("aten::isnan.out", {f, o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2});
  check_equal(Harness::values<bool>(o), {true, false, false, false});
  REQUIRE(h.call("aten::isinf.out", {f, o}));
  check_equal(Harness::values<bool>(o), {false, false, true, true});
  EValue* hv = h.tensor<Half>({3}, {Half(nanf), Half(65504.f), Half(inf)});
  EValue* o3 = h.out<bool>({3});
  REQUIRE(h.call("aten::isinf.out", {hv, o3}));
  check_equal(Harness::values<bool>(o3), {false, false, true});
  REQUIRE(h.call("aten::isnan.out", {hv, o3}));
  check_equal(Harness::values<bool>(o3), {true, false, false});
  EValue* i = h.tensor<int64_t>({3}, {0, -1, 7});
  REQUIRE(h.call("aten::isnan.out", {i, o3}));
  check_equal(Harness::values<bool>(o3), {false, false, false});
  EValue* fixed = h.tensor<bool>({2}, {false, false});
  CHECK_FALSE(h.call("aten::isinf.out", {i, fixed}));
  CHECK(h.message.find("cannot resize output") != std::string::npos);
}
