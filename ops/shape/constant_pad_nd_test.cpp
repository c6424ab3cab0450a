#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::constant_pad_nd.out: pads the last dims with a value") {
  Harness h;
  auto* x = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* o = h.out<float>({3, 5});
  REQUIRE(h.call("aten::constant_pad_nd.out", {x, h.ints({1, 2, 0, 1}), h.d(-1.5), o}));
  CHECK(Harness::values<float>(o) ==
        std::vector<float>{-1.5f, 1, 2, -1.5f, -1.5f, -1.5f, 3, 4, -1.5f, -1.5f, -1.5f, -1.5f, -1.5f, -1.5f, -1.5f});
  auto* xi = h.tensor<int64_t>({3}, {5, 6, 7});
  auto* oi = h.out<int64_t>({4});
  REQUIRE(h.call("aten::constant_pad_nd.out", {xi, h.ints({2, -1}), h.i(9), oi}));
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{9, 9, 5, 6});
}

TEST_CASE("aten::constant_pad_nd.out: negative pads crop; channels-last input; dynamic output") {
  Harness h;
  // logical x[0,c,h,w] = 10c + 2h + w, C=H=W=2, stored channels-last
  auto* x = h.tensor<float>({1, 2, 2, 2}, {0, 10, 1, 11, 2, 12, 3, 13}, Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.out<float>({1, 2, 4, 4}, 32);
  // W: crop 1 on the left, pad 1 on the right; H: pad 1 on top
  REQUIRE(h.call("aten::constant_pad_nd.out", {x, h.ints({-1, 1, 1, 0}), h.i(0), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 2, 3, 2});
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 0, 1, 0, 3, 0, 0, 0, 11, 0, 13, 0});
  CHECK_FALSE(h.call("aten::constant_pad_nd.out", {x, h.ints({1}), h.i(0), o}));
  CHECK(h.message.find("even") != std::string::npos);
  CHECK_FALSE(h.call("aten::constant_pad_nd.out", {x, h.ints({-3, 0}), h.i(0), o}));
  CHECK(h.message.find("negative") != std::string::npos);
}
