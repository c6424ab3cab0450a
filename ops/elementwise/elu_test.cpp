// Tests of aten::elu.out (expected values printed by torch 2.13).
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("elu.out: alpha 1.5, scale 2, input_scale 0.5; defaults on f64; resized output") {
  Harness h;
  EValue* x = h.tensor<float>({7}, {-100, -3, -0.5f, 0, 0.5f, 3, 100});
  EValue* o = h.out<float>({1}, 7);
  REQUIRE(h.call("aten::elu.out", {x, h.d(1.5), h.d(2.0), h.d(0.5), o}));
  check_close(Harness::values<float>(o), {-3.0, -2.3306095600128174, -0.6635976433753967, 0.0, 1.0, 6.0, 200.0});
  EValue* xd = h.tensor<double>({2, 2}, {-1, 2, -4, 8}, Dynamism::Static, {1, 0});  // [[-1,-4],[2,8]]
  EValue* od = h.out<double>({2, 2});
  REQUIRE(h.call("aten::elu.out", {xd, h.i(1), h.i(1), h.i(1), od}));
  check_close(Harness::values<double>(od), {std::expm1(-1.0), std::expm1(-4.0), 2, 8}, 1e-15, 0);
  EValue* xi = h.tensor<int64_t>({1}, {1});
  CHECK_FALSE(h.call("aten::elu.out", {xi, h.i(1), h.i(1), h.i(1), h.out<int64_t>({1})}));
  CHECK(h.message == "input dtype int64 is not supported (floating dtypes only)");
}
