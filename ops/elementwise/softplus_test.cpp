// Tests of aten::softplus.out (expected values printed by torch 2.13).
#include "ops/elementwise/ew_test.h"

#include <cmath>

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("softplus.out: beta 2, threshold 10; defaults on f64; transposed; resized") {
  Harness h;
  EValue* x = h.tensor<float>({7}, {-100, -3, -0.5f, 0, 0.5f, 3, 100});
  EValue* o = h.out<float>({1}, 7);
  REQUIRE(h.call("aten::softplus.out", {x, h.d(2.0), h.d(10.0), o}));
  check_close(Harness::values<float>(o),
              {0.0, 0.0012378426035866141, 0.15663084387779236, 0.3465735912322998, 0.65663081407547, 3.0012378692626953, 100.0},
              2e-6, 1e-7);
  EValue* xd = h.tensor<double>({2, 2}, {-1, 25, 0, 2}, Dynamism::Static, {1, 0});  // [[-1,0],[25,2]]
  EValue* od = h.out<double>({2, 2});
  REQUIRE(h.call("aten::softplus.out", {xd, h.i(1), h.i(20), od}));
  check_close(Harness::values<double>(od), {std::log1p(std::exp(-1.0)), std::log(2.0), 25, std::log1p(std::exp(2.0))}, 1e-15,
              0);
  CHECK_FALSE(h.call("aten::softplus.out", {x, h.none(), h.d(10.0), o}));
  CHECK(h.message.find("beta") != std::string::npos);
}
