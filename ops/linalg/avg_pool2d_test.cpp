#include <doctest/doctest.h>

#include "ops/linalg/test_util.h"
#include "tests/op_harness.h"

using pte::test::Harness;
using pte::test::all_close;
using pte::Dynamism;

namespace {
const std::vector<float> kX = {0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5};

std::vector<pte::EValue*> args(Harness& h, pte::EValue* x, std::vector<int64_t> k, std::vector<int64_t> s,
                               std::vector<int64_t> p, bool ceil, bool cip, pte::EValue* div, pte::EValue* out) {
  return {x, h.ints(k), h.ints(s), h.ints(p), h.b(ceil), h.b(cip), div, out};
}
}  // namespace

TEST_CASE("avg_pool2d.out: count_include_pad, ceil_mode, divisor_override (torch values)") {
  Harness h;
  auto* x = h.tensor<float>({1, 1, 5, 6}, kX);
  auto* out = h.out<float>({1, 1, 6, 6});
  REQUIRE(h.call("aten::avg_pool2d.out", args(h, x, {3, 3}, {2, 2}, {1, 1}, false, true, h.none(), out)));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 1, 3, 3});
  CHECK(all_close(Harness::values<float>(out),
                  std::vector<float>{2.33333325f, 3.77777767f, 3.33333325f, 3.33333325f, 5.11111116f, 4.44444466f,
                                     2.11111116f, 3.44444442f, 3.f},
                  1e-6));
  REQUIRE(h.call("aten::avg_pool2d.out", args(h, x, {3}, {2}, {1}, true, false, h.none(), out)));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 1, 3, 4});
  CHECK(all_close(Harness::values<float>(out),
                  std::vector<float>{5.25f, 5.66666651f, 5.f, 1.f, 5.f, 5.11111116f, 4.44444466f, 5.33333349f, 4.75f,
                                     5.16666651f, 4.5f, 6.f},
                  1e-6));
  REQUIRE(h.call("aten::avg_pool2d.out", args(h, x, {2, 3}, {2, 2}, {1, 1}, true, true, h.i(5), out)));
  CHECK(all_close(Harness::values<float>(out),
                  std::vector<float>{1.4f, 4.f, 3.6f, 0.4f, 4.8f, 6.6f, 5.8f, 1.8f, 3.8f, 6.2f, 5.4f, 2.4f}, 1e-6));
}

TEST_CASE("avg_pool2d.out: channels-last f32 and f64, int64 truncating division") {
  Harness h;
  const std::vector<uint8_t> cl = {0, 2, 3, 1};
  auto logical = pte::test::two_channels(kX, 1.0f);
  auto* x = h.tensor<float>({1, 2, 5, 6}, pte::test::to_physical(logical, {1, 2, 5, 6}, cl), Dynamism::Static, cl);
  auto* out = h.tensor<float>({1, 2, 3, 3}, std::vector<float>(18), Dynamism::Static, cl);
  REQUIRE(h.call("aten::avg_pool2d.out", args(h, x, {3, 3}, {2, 2}, {1, 1}, false, false, h.none(), out)));
  // count_include_pad=False on channel 1 = channel 0 + 1
  auto got = Harness::values<float>(out);
  for (int i = 0; i < 9; ++i) CHECK(got[9 + i] == doctest::Approx(got[i] + 1).epsilon(1e-6));
  CHECK(got[0] == doctest::Approx((0 + 7 + 9 + 5) / 4.0));
  std::vector<double> xd(kX.begin(), kX.end());
  auto* x64 = h.tensor<double>({1, 5, 6}, xd);
  auto* o64 = h.out<double>({1, 2, 3});
  REQUIRE(h.call("aten::avg_pool2d.out", args(h, x64, {2, 2}, {2, 2}, {0, 0}, false, true, h.none(), o64)));
  CHECK(Harness::values<double>(o64) == std::vector<double>{5.25, 5.5, 3, 4, 7, 4.5});
  std::vector<int64_t> xi(kX.begin(), kX.end());
  auto* xl = h.tensor<int64_t>({1, 1, 5, 6}, xi);
  auto* ol = h.out<int64_t>({1, 1, 2, 3});
  REQUIRE(h.call("aten::avg_pool2d.out", args(h, xl, {2, 2}, {2, 2}, {0, 0}, false, true, h.none(), ol)));
  CHECK(Harness::values<int64_t>(ol) == std::vector<int64_t>{5, 5, 3, 4, 7, 4});
}

TEST_CASE("avg_pool2d.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({1, 1, 5, 6}, kX);
  auto* out = h.out<float>({1, 1, 6, 6});
  CHECK_FALSE(h.call("aten::avg_pool2d.out", args(h, x, {2, 2}, {2, 2}, {2, 2}, false, true, h.none(), out)));
  CHECK(h.message.find("at most half") != std::string::npos);
  CHECK_FALSE(h.call("aten::avg_pool2d.out", args(h, x, {2, 2}, {2, 2}, {0, 0}, false, true, h.i(0), out)));
  CHECK(h.message.find("divisor") != std::string::npos);
  auto* x2 = h.tensor<float>({5, 6}, kX);
  CHECK_FALSE(h.call("aten::avg_pool2d.out", args(h, x2, {2, 2}, {2, 2}, {0, 0}, false, true, h.none(), out)));
}
