#include <doctest/doctest.h>

#include "ops/linalg/test_util.h"
#include "tests/op_harness.h"

using pte::test::Harness;
using pte::test::all_close;
using pte::Dynamism;

namespace {
const std::vector<float> kX = {0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5};
const std::vector<float> kExpect = {5.25f, 4.f, 7.f, 3.f, 5.f, 4.66666651f, 4.f, 3.66666675f, 4.75f, 6.25f, 3.75f, 5.25f};
}  // namespace

TEST_CASE("_adaptive_avg_pool2d.out: 5x6 -> 3x4 (torch values), dynamic output") {
  Harness h;
  auto* x = h.tensor<float>({1, 1, 5, 6}, kX);
  auto* out = h.out<float>({1, 1, 5, 5});
  REQUIRE(h.call("aten::_adaptive_avg_pool2d.out", {x, h.ints({3, 4}), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 1, 3, 4});
  CHECK(all_close(Harness::values<float>(out), kExpect, 1e-6));
}

TEST_CASE("_adaptive_avg_pool2d.out: channels-last, global pooling, f64") {
  Harness h;
  const std::vector<uint8_t> cl = {0, 2, 3, 1};
  auto logical = pte::test::two_channels(kX, 2.0f);
  auto* x = h.tensor<float>({1, 2, 5, 6}, pte::test::to_physical(logical, {1, 2, 5, 6}, cl), Dynamism::Static, cl);
  auto* out = h.out<float>({1, 2, 3, 4});
  REQUIRE(h.call("aten::_adaptive_avg_pool2d.out", {x, h.ints({3, 4}), out}));
  auto got = Harness::values<float>(out);
  for (int i = 0; i < 12; ++i) {
    CHECK(got[i] == doctest::Approx(kExpect[i]).epsilon(1e-6));
    CHECK(got[12 + i] == doctest::Approx(kExpect[i] + 2).epsilon(1e-6));
  }
  std::vector<double> xd(kX.begin(), kX.end());
  auto* x64 = h.tensor<double>({1, 5, 6}, xd);
  auto* o64 = h.out<double>({1, 1, 1});
  REQUIRE(h.call("aten::_adaptive_avg_pool2d.out", {x64, h.ints({1, 1}), o64}));
  CHECK(Harness::values<double>(o64)[0] == doctest::Approx(152.0 / 30.0));
}

TEST_CASE("_adaptive_avg_pool2d.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({1, 1, 5, 6}, kX);
  auto* out = h.out<float>({1, 1, 3, 4});
  CHECK_FALSE(h.call("aten::_adaptive_avg_pool2d.out", {x, h.ints({0, 4}), out}));
  CHECK(h.message.find("positive") != std::string::npos);
  auto* small = h.tensor<float>({1, 1, 1, 1}, {0});
  CHECK_FALSE(h.call("aten::_adaptive_avg_pool2d.out", {x, h.ints({3, 4}), small}));
  CHECK(h.message.find("cannot resize") != std::string::npos);
}
