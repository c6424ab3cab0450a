// Tests of aten::logit.out (expected values printed by torch 2.13).
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("logit.out: without eps, with eps 0.1, int input, transposed, resized") {
  Harness h;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EValue* x = h.tensor<float>({6}, {0, 0.25f, 0.5f, 0.9f, 1, -0.1f});
  EValue* o = h.out<float>({1}, 6);
  REQUIRE(h.call("aten::logit.out", {x, h.none(), o}));
  check_close(Harness::values<float>(o), {-inf, -1.0986123085021973, 0.0, 2.1972243785858154, inf, nan}, 2e-6, 1e-7);
  REQUIRE(h.call("aten::logit.out", {x, h.d(0.1), o}));
  check_close(Harness::values<float>(o),
              {-2.1972246170043945, -1.0986123085021973, 0.0, 2.1972243785858154, 2.1972243785858154, -2.1972246170043945},
              2e-6, 1e-7);
  EValue* xi = h.tensor<int64_t>({2}, {0, 1});
  EValue* of = h.out<float>({2});
  REQUIRE(h.call("aten::logit.out", {xi, h.none(), of}));
  check_close(Harness::values<float>(of), {-inf, inf});
  EValue* xd = h.tensor<double>({2, 2}, {0.5, 0.75, 0.25, 0.5}, Dynamism::Static, {1, 0});  // [[0.5,0.25],[0.75,0.5]]
  EValue* od = h.out<double>({2, 2});
  REQUIRE(h.call("aten::logit.out", {xd, h.d(-1.0), od}));  // negative eps: no clamping
  check_close(Harness::values<double>(od), {0, std::log(1.0 / 3.0), std::log(3.0), 0}, 1e-15, 1e-15);
  CHECK_FALSE(h.call("aten::logit.out", {x, h.str("x"), o}));
}
