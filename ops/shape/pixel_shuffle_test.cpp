#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

// x[n, c*r*r + i*r + j, h, w] = 1000c + 100i + 10j... computed independently here.
TEST_CASE("aten::pixel_shuffle.out and pixel_unshuffle.out: inverse pair, values by formula") {
  Harness h;
  const int C = 2, r = 2, H = 2, W = 3;
  std::vector<float> xv(C * r * r * H * W);
  for (int ch = 0; ch < C * r * r; ++ch)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) xv[(ch * H + y) * W + x] = ch * 100 + y * 10 + x;
  auto* x = h.tensor<float>({1, C * r * r, H, W}, xv);
  auto* o = h.out<float>({1, C, H * r, W * r});
  REQUIRE(h.call("aten::pixel_shuffle.out", {x, h.i(r), o}));
  auto got = Harness::values<float>(o);
  for (int c = 0; c < C; ++c)
    for (int Y = 0; Y < H * r; ++Y)
      for (int X = 0; X < W * r; ++X) {
        int ch = c * r * r + (Y % r) * r + (X % r);
        CHECK(got[(c * H * r + Y) * W * r + X] == ch * 100 + (Y / r) * 10 + (X / r));
      }
  // spot value: out[0,1,3,5] = in[0, 1*4 + 1*2 + 1, 1, 2] = 7*100 + 10 + 2
  CHECK(got[(1 * 4 + 3) * 6 + 5] == 712);
  auto* back = h.out<float>({1, C * r * r, H, W});
  REQUIRE(h.call("aten::pixel_unshuffle.out", {o, h.i(r), back}));
  CHECK(Harness::values<float>(back) == xv);
}

TEST_CASE("aten::pixel_shuffle.out: channels-last input, batch dims, dynamic out, errors") {
  Harness h;
  // [2, 4, 1, 1] (two batches), r = 2 -> [2, 1, 2, 2]; channels-last memory equals logical here
  auto* x = h.tensor<int32_t>({2, 4, 1, 1}, {1, 2, 3, 4, 5, 6, 7, 8}, Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.out<int32_t>({2, 1, 4, 4}, 32);
  REQUIRE(h.call("aten::pixel_shuffle.out", {x, h.i(2), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 1, 2, 2});
  CHECK(Harness::values<int32_t>(o) == std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8});
  // channels-last [1, 4, 1, 2]: memory (w, c)
  auto* y = h.tensor<int32_t>({1, 4, 1, 2}, {0, 1, 2, 3, 10, 11, 12, 13}, Dynamism::Static, {0, 2, 3, 1});
  auto* oy = h.out<int32_t>({1, 1, 2, 4});
  REQUIRE(h.call("aten::pixel_shuffle.out", {y, h.i(2), oy}));
  // logical y[c, 0, w] = 10w + c; out[0, Y, X] = y[(Y%2)*2 + X%2, 0, X/2]
  CHECK(Harness::values<int32_t>(oy) == std::vector<int32_t>{0, 1, 10, 11, 2, 3, 12, 13});
  CHECK_FALSE(h.call("aten::pixel_shuffle.out", {h.tensor<float>({1, 3, 1, 1}, {1, 2, 3}), h.i(2), h.out<float>({1, 1, 2, 2})}));
  CHECK(h.message.find("divisible") != std::string::npos);
  CHECK_FALSE(h.call("aten::pixel_unshuffle.out", {h.tensor<float>({1, 1, 3, 2}, iota<float>(6)), h.i(2), h.out<float>({1, 4, 1, 1})}));
  CHECK_FALSE(h.call("aten::pixel_shuffle.out", {h.tensor<float>({4, 1}, iota<float>(4)), h.i(2), h.out<float>({1})}));
}
