// Tests of aten::leaky_relu.out (expected values printed by torch 2.13).
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("leaky_relu.out: slope 0.1, f32 and f64, transposed input, resized output") {
  Harness h;
  EValue* x = h.tensor<float>({7}, {-100, -3, -0.5f, 0, 0.5f, 3, 100});
  EValue* o = h.out<float>({1}, 7);
  REQUIRE(h.call("aten::leaky_relu.out", {x, h.d(0.1), o}));
  check_close(Harness::values<float>(o), {-10.0, -0.30000001192092896, -0.05000000074505806, 0.0, 0.5, 3.0, 100.0});
  EValue* xd = h.tensor<double>({2, 2}, {-1, 2, -4, 8}, Dynamism::Static, {1, 0});  // [[-1,-4],[2,8]]
  EValue* od = h.out<double>({2, 2});
  REQUIRE(h.call("aten::leaky_relu.out", {xd, h.d(0.01), od}));
  check_close(Harness::values<double>(od), {-0.01, -0.04, 2, 8}, 1e-15, 0);
  CHECK_FALSE(h.call("aten::leaky_relu.out", {x, h.str("x"), o}));
  CHECK(h.message.find("negative_slope") != std::string::npos);
}
