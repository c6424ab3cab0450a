#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::Half;

// x [N=2, C=2, L=2]: n0: c0 [1,2], c1 [3,4]; n1: c0 [5,6], c1 [7,8]
static const std::vector<float> kX = {1, 2, 3, 4, 5, 6, 7, 8};

TEST_CASE("_native_batch_norm_legit_no_training.out: running stats, per-channel weight/bias") {
  Harness h;
  auto* x = h.tensor<float>({2, 2, 2}, kX);
  auto* w = h.tensor<float>({2}, {2, 1});
  auto* b = h.tensor<float>({2}, {0, 1});
  auto* rm = h.tensor<float>({2}, {1, 2});
  auto* rv = h.tensor<float>({2}, {4, 0.25});
  auto* o = h.out<float>({2, 2, 2});
  auto* sm = h.out<float>({0}, 2);
  auto* si = h.out<float>({0}, 2);
  REQUIRE(h.call("aten::_native_batch_norm_legit_no_training.out",
                 {x, w, b, rm, rv, h.d(0.1), h.d(0.0), o, sm, si, h.list({o, sm, si})}, false));
  // c0: (x-1)*0.5*2 = x-1; c1: (x-2)*2*1+1 = 2x-3
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 1, 3, 5, 4, 5, 11, 13});
  CHECK(Harness::shape(sm) == std::vector<int64_t>{0});
  CHECK(Harness::shape(si) == std::vector<int64_t>{0});

  // the same through native_batch_norm.out in eval mode
  REQUIRE(h.call("aten::native_batch_norm.out",
                 {x, w, b, rm, rv, h.b(false), h.d(0.1), h.d(0.0), o, sm, si, h.list({o, sm, si})}, false));
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 1, 3, 5, 4, 5, 11, 13});
}

TEST_CASE("_native_batch_norm_legit.out: training updates running stats in place") {
  Harness h;
  auto* x = h.tensor<float>({2, 2, 2}, kX);
  auto* rm = h.tensor<float>({2}, {0, 0});
  auto* rv = h.tensor<float>({2}, {1, 1});
  auto* o = h.out<float>({2, 2, 2});
  auto* sm = h.out<float>({2});
  auto* si = h.out<float>({2});
  REQUIRE(h.call("aten::_native_batch_norm_legit.out",
                 {x, h.none(), h.none(), rm, rv, h.b(true), h.d(0.1), h.d(0.0), o, sm, si, h.list({o, sm, si})},
                 false));
  // per channel: {1,2,5,6} and {3,4,7,8}: mean 3.5 / 5.5, biased var 4.25, unbiased 17/3
  CHECK(Harness::values<float>(sm) == std::vector<float>{3.5, 5.5});
  CHECK(Harness::values<float>(si)[0] == doctest::Approx(0.48507125007266594));
  auto r = Harness::values<float>(o);
  const double c0[4] = {-1.212678125181665, -0.7276068751089989, 0.7276068751089989, 1.212678125181665};
  CHECK(r[0] == doctest::Approx(c0[0]));
  CHECK(r[1] == doctest::Approx(c0[1]));
  CHECK(r[4] == doctest::Approx(c0[2]));
  CHECK(r[5] == doctest::Approx(c0[3]));
  CHECK(r[2] == doctest::Approx(c0[0]));  // channel 1 has the same spread
  CHECK(Harness::values<float>(rm)[0] == doctest::Approx(0.35));
  CHECK(Harness::values<float>(rm)[1] == doctest::Approx(0.55));
  CHECK(Harness::values<float>(rv)[0] == doctest::Approx(1.4666666666666668));

  auto* sm2 = h.out<float>({2});
  auto* si2 = h.out<float>({2});
  REQUIRE(h.call("aten::_native_batch_norm_legit.no_stats_out",
                 {x, h.none(), h.none(), h.b(true), h.d(0.1), h.d(0.0), o, sm2, si2, h.list({o, sm2, si2})}, false));
  CHECK(Harness::values<float>(sm2) == std::vector<float>{3.5, 5.5});
  CHECK(Harness::values<float>(o)[0] == doctest::Approx(c0[0]));
}

TEST_CASE("batch norm: channels-last half input, errors") {
  Harness h;
  // [1, 2, 1, 2] dim order [0,2,3,1]: c0 [1,2], c1 [3,4] -> phys[w*2 + c]
  auto* x = h.tensor<Half>({1, 2, 1, 2}, {Half(1.f), Half(3.f), Half(2.f), Half(4.f)}, Dynamism::Static, {0, 2, 3, 1});
  auto* rm = h.tensor<float>({2}, {1, 2});
  auto* rv = h.tensor<float>({2}, {4, 0.25});
  auto* o = h.out<Half>({1}, 4);
  auto* sm = h.out<Half>({0});
  auto* si = h.out<Half>({0});
  REQUIRE(h.call("aten::_native_batch_norm_legit_no_training.out",
                 {x, h.none(), h.none(), rm, rv, h.d(0.1), h.d(0.0), o, sm, si, h.list({o, sm, si})}, false));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 2, 1, 2});
  auto r = Harness::values<Half>(o);
  // c0: (x-1)*0.5 -> 0, 0.5; c1: (x-2)*2 -> 2, 4
  CHECK(float(r[0]) == 0.0f);
  CHECK(float(r[1]) == 0.5f);
  CHECK(float(r[2]) == 2.0f);
  CHECK(float(r[3]) == 4.0f);

  auto* rm3 = h.tensor<float>({3}, {0, 0, 0});
  CHECK_FALSE(h.call("aten::_native_batch_norm_legit_no_training.out",
                     {x, h.none(), h.none(), rm3, rv, h.d(0.1), h.d(1e-5), o, sm, si, h.list({o, sm, si})}, false));
  CHECK(h.message.find("C=2") != std::string::npos);
  auto* x1 = h.tensor<float>({4}, {1, 2, 3, 4});
  auto* o1 = h.out<float>({4});
  CHECK_FALSE(h.call("aten::native_batch_norm.out",
                     {x1, h.none(), h.none(), h.none(), h.none(), h.b(true), h.d(0.1), h.d(1e-5), o1, sm, si,
                      h.list({o1, sm, si})},
                     false));
}
