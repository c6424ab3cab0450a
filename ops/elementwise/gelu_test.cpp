// Tests of aten::gelu.out (expected values printed by torch 2.13).
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("gelu.out: 'none' (erf) and 'tanh', f32 and bf16, transposed input, resized output") {
  Harness h;
  EValue* x = h.tensor<float>({7}, {-100, -3, -0.5f, 0, 0.5f, 3, 100});
  EValue* o = h.out<float>({1}, 7);
  REQUIRE(h.call("aten::gelu.out", {x, h.str("none"), o}));
  check_close(Harness::values<float>(o),
              {-0.0, -0.004050225019454956, -0.1542687714099884, 0.0, 0.3457312285900116, 2.9959497451782227, 100.0}, 2e-6,
              1e-6);  // PyTorch's float32 formula x/2*(1+erf(x/sqrt2)) cancels near x=-3: ~5e-7 absolute
  REQUIRE(h.call("aten::gelu.out", {x, h.str("tanh"), o}));
  check_close(Harness::values<float>(o),
              {-0.0, -0.0036374330520629883, -0.1542859971523285, 0.0, 0.3457140028476715, 2.9963626861572266, 100.0}, 1e-5,
              1e-6);  // the tanh form in float32 differs from the double reference by a few ulp
  EValue* xb = h.tensor<BFloat16>({3}, {BFloat16(-1.f), BFloat16(0.25f), BFloat16(4.f)});
  EValue* ob = h.out<BFloat16>({3});
  REQUIRE(h.call("aten::gelu.out", {xb, h.str("none"), ob}));
  check_close(Harness::values<BFloat16>(ob), {-0.158203125, 0.1494140625, 4.0}, 0, 0);
  EValue* t = h.tensor<float>({2, 2}, {-3, 3, 0.5f, -0.5f}, Dynamism::Static, {1, 0});  // [[-3,0.5],[3,-0.5]]
  EValue* ot = h.out<float>({2, 2});
  REQUIRE(h.call("aten::gelu.out", {t, h.str("none"), ot}));
  check_close(Harness::values<float>(ot), {-0.004050225019454956, 0.3457312285900116, 2.9959497451782227, -0.1542687714099884},
              2e-6, 1e-6);
  CHECK_FALSE(h.call("aten::gelu.out", {x, h.str("fast"), o}));
  CHECK(h.message == "gelu: approximate must be 'none' or 'tanh', got 'fast'");
}
