// Tests of aten::atan2.out (values from torch 2.13).
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("atan2.out: quadrants, broadcast, int promotion, f64") {
  Harness h;
  EValue* y = h.tensor<float>({4}, {1, -1, 0, 1});
  EValue* x = h.tensor<float>({4}, {1, 1, -1, 0});
  EValue* o = h.out<float>({1}, 4);
  REQUIRE(h.call("aten::atan2.out", {y, x, o}));
  check_close(Harness::values<float>(o), {0.7853981852531433, -0.7853981852531433, 3.1415927410125732, 1.5707963705062866});
  EValue* yi = h.tensor<int64_t>({2}, {1, 2});
  EValue* xi = h.tensor<int64_t>({2}, {2, 1});
  EValue* of = h.out<float>({2});
  REQUIRE(h.call("aten::atan2.out", {yi, xi, of}));
  check_close(Harness::values<float>(of), {0.46364760398864746, 1.1071487665176392});
  EValue* yd = h.tensor<double>({2, 1}, {1, -1});
  EValue* xd = h.tensor<double>({2}, {1, -1});
  EValue* od = h.out<double>({2, 2});
  REQUIRE(h.call("aten::atan2.out", {yd, xd, od}));
  check_close(Harness::values<double>(od), {0.78539816339744828, 2.3561944901923448, -0.78539816339744828, -2.3561944901923448},
              1e-15, 0);
  EValue* oi = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::atan2.out", {yi, xi, oi}));
  CHECK(h.message == "result type float32 can't be cast to the desired output type int64");
}
