#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

// N=1, C=4, HxW=2, 2 groups. Channel values: c0 [1,3], c1 [5,7], c2 [0,0], c3 [4,4].
// group 0 = {1,3,5,7}: mean 4, rstd 1/sqrt(5+1e-5); group 1 = {0,0,4,4}: mean 2, rstd 1/sqrt(4+1e-5).
static const double kG0[4] = {-1.3416394448610998, -0.4472131482870333, 0.4472131482870333, 1.3416394448610998};
static const double kG1 = 0.9999987500023437;

TEST_CASE("native_group_norm.out: contiguous, weight and bias per channel") {
  Harness h;
  auto* x = h.tensor<float>({1, 4, 2}, {1, 3, 5, 7, 0, 0, 4, 4});
  auto* w = h.tensor<float>({4}, {1, 2, 1, 1});
  auto* b = h.tensor<float>({4}, {0, 0, 0, 1});
  auto* o = h.out<float>({1, 4, 2});
  auto* mean = h.out<float>({1, 2});
  auto* rstd = h.out<float>({1, 2});
  REQUIRE(h.call("aten::native_group_norm.out", {x, w, b, h.i(1), h.i(4), h.i(2), h.i(2), h.d(1e-5), o, mean, rstd,
                                                  h.list({o, mean, rstd})},
                 false));
  auto r = Harness::values<float>(o);
  const double want[8] = {kG0[0], kG0[1], 2 * kG0[2], 2 * kG0[3], -kG1, -kG1, kG1 + 1, kG1 + 1};
  for (int k = 0; k < 8; ++k) CHECK(r[k] == doctest::Approx(want[k]));
  CHECK(Harness::values<float>(mean) == std::vector<float>{4, 2});
  CHECK(Harness::values<float>(rstd)[0] == doctest::Approx(0.4472131482870333));
  CHECK(Harness::values<float>(rstd)[1] == doctest::Approx(0.49999937500117186));
}

TEST_CASE("native_group_norm.out: channels-last double input, dynamic outs, errors") {
  Harness h;
  // [1, 4, 1, 2] with dim order [0,2,3,1]: phys[(w)*C + c]
  std::vector<double> chan[4] = {{1, 3}, {5, 7}, {0, 0}, {4, 4}};
  std::vector<double> phys(8);
  for (int c = 0; c < 4; ++c)
    for (int w = 0; w < 2; ++w) phys[w * 4 + c] = chan[c][w];
  auto* x = h.tensor<double>({1, 4, 1, 2}, phys, Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.out<double>({1}, 8);
  auto* mean = h.out<double>({1}, 2);
  auto* rstd = h.out<double>({1}, 2);
  REQUIRE(h.call("aten::native_group_norm.out", {x, h.none(), h.none(), h.i(1), h.i(4), h.i(2), h.i(2), h.d(1e-5), o,
                                                  mean, rstd, h.list({o, mean, rstd})},
                 false));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 4, 1, 2});
  CHECK(Harness::shape(mean) == std::vector<int64_t>{1, 2});
  auto r = Harness::values<double>(o);
  const double want[8] = {kG0[0], kG0[1], kG0[2], kG0[3], -kG1, -kG1, kG1, kG1};
  for (int k = 0; k < 8; ++k) CHECK(r[k] == doctest::Approx(want[k]));

  CHECK_FALSE(h.call("aten::native_group_norm.out", {x, h.none(), h.none(), h.i(1), h.i(4), h.i(2), h.i(3), h.d(1e-5),
                                                      o, mean, rstd, h.list({o, mean, rstd})},
                     false));
  CHECK(h.message.find("groups") != std::string::npos);
  CHECK_FALSE(h.call("aten::native_group_norm.out", {x, h.none(), h.none(), h.i(2), h.i(4), h.i(2), h.i(2), h.d(1e-5),
                                                      o, mean, rstd, h.list({o, mean, rstd})},
                     false));
}
