// Tests of aten::sigmoid.out (expected values printed by torch 2.13).
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("sigmoid.out: f32 incl. +-100 (no overflow), f16, int input, transposed, resized") {
  Harness h;
  EValue* x = h.tensor<float>({7}, {-100, -3, -0.5f, 0, 0.5f, 3, 100});
  EValue* o = h.out<float>({1}, 7);
  REQUIRE(h.call("aten::sigmoid.out", {x, o}));
  check_close(Harness::values<float>(o),
              {0.0, 0.04742587357759476, 0.3775406777858734, 0.5, 0.622459352016449, 0.9525741338729858, 1.0}, 1e-6, 1e-7);
  EValue* xh = h.tensor<Half>({3}, {Half(-1.f), Half(0.25f), Half(4.f)});
  EValue* oh = h.out<Half>({3});
  REQUIRE(h.call("aten::sigmoid.out", {xh, oh}));
  check_close(Harness::values<Half>(oh), {0.26904296875, 0.56201171875, 0.98193359375}, 0, 0);
  EValue* xi = h.tensor<int32_t>({2, 2}, {0, 1, 2, 3}, Dynamism::Static, {1, 0});  // [[0,2],[1,3]]
  EValue* of = h.out<float>({2, 2});
  REQUIRE(h.call("aten::sigmoid.out", {xi, of}));
  check_close(Harness::values<float>(of), {0.5, 0.8807970779778823, 0.7310585786300049, 0.9525741268224334});
  EValue* oi = h.out<int32_t>({2, 2});
  CHECK_FALSE(h.call("aten::sigmoid.out", {xi, oi}));
  CHECK(h.message == "result type float32 can't be cast to the desired output type int32");
}
