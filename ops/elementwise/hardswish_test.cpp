// Tests of aten::hardswish.out and aten::hardsigmoid.out (values printed by torch 2.13).
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("hardswish / hardsigmoid: f32, f16, transposed input, resized output") {
  Harness h;
  EValue* x = h.tensor<float>({7}, {-100, -3, -0.5f, 0, 0.5f, 3, 100});
  EValue* o = h.out<float>({1}, 7);
  REQUIRE(h.call("aten::hardswish.out", {x, o}));
  check_close(Harness::values<float>(o), {-0.0, -0.0, -0.2083333283662796, 0.0, 0.2916666567325592, 3.0, 100.0});
  REQUIRE(h.call("aten::hardsigmoid.out", {x, o}));
  check_close(Harness::values<float>(o), {0.0, 0.0, 0.4166666567325592, 0.5, 0.5833333134651184, 1.0, 1.0});
  EValue* xh = h.tensor<Half>({2, 2}, {Half(-4.f), Half(1.f), Half(6.f), Half(-1.f)}, Dynamism::Static, {1, 0});
  EValue* oh = h.out<Half>({2, 2});  // [[-4,6],[1,-1]]
  REQUIRE(h.call("aten::hardswish.out", {xh, oh}));
  // -4 -> 0; 6 -> 6; 1 -> 1*4/6 = 0.6665 (f16); -1 -> -1*2/6 = -0.3333 (f16)
  check_close(Harness::values<Half>(oh), {-0.0, 6.0, 0.66650390625, -0.333251953125}, 0, 0);
  EValue* xi = h.tensor<int32_t>({1}, {1});
  CHECK_FALSE(h.call("aten::hardsigmoid.out", {xi, h.out<int32_t>({1})}));
}
