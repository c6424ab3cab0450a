#include <doctest/doctest.h>

#include "ops/linalg/test_util.h"
#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

namespace {
// x2[1,2,2,3] = (arange(12) * 5) % 7; expected values from torch
const std::vector<float> kX = {0, 5, 3, 1, 6, 4, 2, 0, 5, 3, 1, 6};
const std::vector<float> kN1 = {0, 0, 5, 5, 3, 0, 0, 5, 5, 3, 1, 1, 6, 6, 4,
                                2, 2, 0, 0, 5, 2, 2, 0, 0, 5, 3, 3, 1, 1, 6};
}  // namespace

TEST_CASE("upsample_nearest2d.vec_out: output_size and scale_factors (torch values)") {
  Harness h;
  auto* x = h.tensor<float>({1, 2, 2, 3}, kX);
  auto* out = h.out<float>({1, 2, 8, 8});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.ints({3, 5}), h.none(), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 2, 3, 5});
  CHECK(Harness::values<float>(out) == kN1);
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.none(), h.doubles({1.5, 2.5}), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 2, 3, 7});
  CHECK(Harness::values<float>(out) == std::vector<float>{0, 0, 0, 5, 5, 3, 3, 0, 0, 0, 5, 5, 3, 3, 1, 1, 1, 6, 6, 4, 4,
                                                          2, 2, 2, 0, 0, 5, 5, 2, 2, 2, 0, 0, 5, 5, 3, 3, 3, 1, 1, 6, 6});
}

TEST_CASE("upsample_nearest2d.out: exact 2x; uint8 channels-last") {
  Harness h;
  auto* x = h.tensor<float>({1, 2, 2, 3}, kX);
  auto* out = h.out<float>({1, 2, 4, 6});
  REQUIRE(h.call("aten::upsample_nearest2d.out", {x, h.ints({4, 6}), h.none(), h.none(), out}));
  CHECK(Harness::values<float>(out) ==
        std::vector<float>{0, 0, 5, 5, 3, 3, 0, 0, 5, 5, 3, 3, 1, 1, 6, 6, 4, 4, 1, 1, 6, 6, 4, 4,
                           2, 2, 0, 0, 5, 5, 2, 2, 0, 0, 5, 5, 3, 3, 1, 1, 6, 6, 3, 3, 1, 1, 6, 6});
  const std::vector<uint8_t> cl = {0, 2, 3, 1};
  std::vector<uint8_t> xu(kX.begin(), kX.end());
  auto* xc = h.tensor<uint8_t>({1, 2, 2, 3}, pte::test::to_physical(xu, {1, 2, 2, 3}, cl), Dynamism::Static, cl);
  auto* oc = h.tensor<uint8_t>({1, 2, 3, 5}, std::vector<uint8_t>(30), Dynamism::Static, cl);
  REQUIRE(h.call("aten::upsample_nearest2d.out", {xc, h.ints({3, 5}), h.none(), h.none(), oc}));
  std::vector<uint8_t> expect(kN1.begin(), kN1.end());
  CHECK(Harness::values<uint8_t>(oc) == expect);
}

TEST_CASE("upsample_nearest2d: errors") {
  Harness h;
  auto* x = h.tensor<float>({1, 2, 2, 3}, kX);
  auto* out = h.out<float>({1, 2, 8, 8});
  CHECK_FALSE(h.call("aten::upsample_nearest2d.vec_out", {x, h.ints({3, 5}), h.doubles({2, 2}), out}));
  CHECK(h.message.find("exactly one") != std::string::npos);
  auto* x3 = h.tensor<float>({2, 2, 3}, kX);
  CHECK_FALSE(h.call("aten::upsample_nearest2d.out", {x3, h.ints({3, 5}), h.none(), h.none(), out}));
  CHECK(h.message.find("4-D") != std::string::npos);
}
