#include <doctest/doctest.h>

#include "ops/linalg/test_util.h"
#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

namespace {
const std::vector<float> kX = {0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5};
}

TEST_CASE("adaptive_max_pool2d.out: 5x6 -> 2x4 (torch values), dynamic outputs, int32") {
  Harness h;
  auto* x = h.tensor<float>({1, 1, 5, 6}, kX);
  auto* out = h.out<float>({1, 1, 4, 4});
  auto* idx = h.out<int64_t>({1, 1, 4, 4});
  REQUIRE(h.call("aten::adaptive_max_pool2d.out", {x, h.ints({2, 4}), out, idx}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 1, 2, 4});
  CHECK(Harness::values<float>(out) == std::vector<float>{9, 10, 10, 9, 10, 10, 9, 9});
  CHECK(Harness::values<int64_t>(idx) == std::vector<int64_t>{6, 14, 3, 17, 25, 14, 28, 17});
  std::vector<int32_t> xi(kX.begin(), kX.end());
  auto* x32 = h.tensor<int32_t>({1, 5, 6}, xi);
  auto* o32 = h.out<int32_t>({1, 2, 4});
  auto* i32 = h.out<int64_t>({1, 2, 4});
  REQUIRE(h.call("aten::adaptive_max_pool2d.out", {x32, h.ints({2, 4}), o32, i32}));
  CHECK(Harness::values<int32_t>(o32) == std::vector<int32_t>{9, 10, 10, 9, 10, 10, 9, 9});
}

TEST_CASE("adaptive_max_pool2d.out: channels-last input; errors") {
  Harness h;
  const std::vector<uint8_t> cl = {0, 2, 3, 1};
  auto logical = pte::test::two_channels(kX, -20.0f);
  auto* x = h.tensor<float>({1, 2, 5, 6}, pte::test::to_physical(logical, {1, 2, 5, 6}, cl), Dynamism::Static, cl);
  auto* out = h.out<float>({1, 2, 2, 4});
  auto* idx = h.out<int64_t>({1, 2, 2, 4});
  REQUIRE(h.call("aten::adaptive_max_pool2d.out", {x, h.ints({2, 4}), out, idx}));
  CHECK(Harness::values<float>(out) == std::vector<float>{9, 10, 10, 9, 10, 10, 9, 9, -11, -10, -10, -11, -10, -10, -11, -11});
  CHECK(Harness::values<int64_t>(idx) == std::vector<int64_t>{6, 14, 3, 17, 25, 14, 28, 17, 6, 14, 3, 17, 25, 14, 28, 17});
  auto* bad = h.out<float>({1, 2, 2, 4});
  CHECK_FALSE(h.call("aten::adaptive_max_pool2d.out", {x, h.ints({2, 4}), out, bad}));
  CHECK(h.message.find("int64") != std::string::npos);
}
