// Tests of aten::relu.out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("relu.out: f32 with nan, int64, bf16, channels-last input, resized output") {
  Harness h;
  const float nanf = std::numeric_limits<float>::quiet_NaN();
  EValue* x = h.tensor<float>({5}, {-2, 0, 3, nanf, -0.5f});
  EValue* o = h.out<float>({1}, 5);
  REQUIRE(h.call("aten::relu.out", {x, o}));
  check_close(Harness::values<float>(o), {0, 0, 3, std::numeric_limits<double>::quiet_NaN(), 0}, 0, 0);
  EValue* xi = h.tensor<int64_t>({3}, {-7, 7, 0});
  EValue* oi = h.out<int64_t>({3});
  REQUIRE(h.call("aten::relu.out", {xi, oi}));
  check_equal(Harness::values<int64_t>(oi), {0, 7, 0});
  EValue* xb = h.tensor<BFloat16>({2}, {BFloat16(-1.f), BFloat16(1.5f)});
  EValue* ob = h.out<BFloat16>({2});
  REQUIRE(h.call("aten::relu.out", {xb, ob}));
  check_close(Harness::values<BFloat16>(ob), {0, 1.5}, 0, 0);
  // NCHW [1,2,1,2] = [[[-1,2]],[[3,-4]]] stored channels-last
  EValue* cl = h.tensor<float>({1, 2, 1, 2}, {-1, 3, 2, -4}, Dynamism::Static, {0, 2, 3, 1});
  EValue* oc = h.out<float>({1, 2, 1, 2});
  REQUIRE(h.call("aten::relu.out", {cl, oc}));
  check_close(Harness::values<float>(oc), {0, 2, 3, 0}, 0, 0);
  EValue* bb = h.tensor<bool>({1}, {true});
  CHECK_FALSE(h.call("aten::relu.out", {bb, h.out<bool>({1})}));
  CHECK(h.message == "relu is not supported for bool tensors");
}
