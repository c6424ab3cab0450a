#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::BFloat16;
using pte::Dynamism;

TEST_CASE("mean.out: dims, keepdim, broadcasting-shaped keepdim output") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({2, 1});
  REQUIRE(h.call("aten::mean.out", {x, h.ints({-1}), h.b(true), h.none(), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 1});
  CHECK(Harness::values<float>(o) == std::vector<float>{2, 5});

  auto* o2 = h.out<float>({});
  REQUIRE(h.call("aten::mean.out", {x, h.none(), h.b(false), h.none(), o2}));
  CHECK(Harness::values<float>(o2)[0] == doctest::Approx(3.5));

  auto* o3 = h.out<float>({});
  REQUIRE(h.call("aten::mean.dtype_out", {x, h.i(6), o3}));
  CHECK(Harness::values<float>(o3)[0] == doctest::Approx(3.5));
}

TEST_CASE("mean.out: channels-last spatial mean (NCHW dims 2,3), dynamic out") {
  Harness h;
  // x[n][c][hh][w] = c + 10*(hh*2 + w), N=1, C=2, H=2, W=2; dim order [0,2,3,1]:
  // physical index = ((n*H + hh)*W + w)*C + c.
  std::vector<float> phys(8);
  for (int c = 0; c < 2; ++c)
    for (int hh = 0; hh < 2; ++hh)
      for (int w = 0; w < 2; ++w) phys[(hh * 2 + w) * 2 + c] = c + 10.f * (hh * 2 + w);
  auto* x = h.tensor<float>({1, 2, 2, 2}, phys, Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.out<float>({1}, 8);
  REQUIRE(h.call("aten::mean.out", {x, h.ints({-1, -2}), h.b(true), h.none(), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 2, 1, 1});
  // mean over 4 positions of c + 10*p, p=0..3 -> c + 15
  CHECK(Harness::values<float>(o) == std::vector<float>{15, 16});
}

TEST_CASE("mean.out: bf16, int input with float dtype, errors") {
  Harness h;
  auto* x = h.tensor<BFloat16>({4}, {BFloat16(1.f), BFloat16(2.f), BFloat16(3.f), BFloat16(5.f)});
  auto* o = h.out<BFloat16>({});
  REQUIRE(h.call("aten::mean.out", {x, h.ints({0}), h.b(false), h.none(), o}));
  CHECK(float(Harness::values<BFloat16>(o)[0]) == 2.75f);

  auto* xi = h.tensor<int64_t>({2, 2}, {1, 2, 3, 5});
  auto* of = h.out<float>({2});
  REQUIRE(h.call("aten::mean.out", {xi, h.ints({0}), h.b(false), h.i(6), of}));
  CHECK(Harness::values<float>(of) == std::vector<float>{2, 3.5});

  // integral out is refused
  auto* oi = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::mean.out", {xi, h.ints({0}), h.b(false), h.none(), oi}));
  CHECK(h.message.find("floating") != std::string::npos);

  // empty reduction gives NaN
  auto* e = h.tensor<float>({0, 3}, {});
  auto* oe = h.out<float>({3});
  REQUIRE(h.call("aten::mean.out", {e, h.ints({0}), h.b(false), h.none(), oe}));
  CHECK(std::isnan(Harness::values<float>(oe)[0]));
}
