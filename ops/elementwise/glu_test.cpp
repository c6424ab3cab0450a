// Tests of aten::glu.out (expected values printed by torch 2.13).
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("glu.out: last dim and dim 0, transposed input, resized output, errors") {
  Harness h;
  std::vector<float> g(12);
  for (int i = 0; i < 12; ++i) g[static_cast<size_t>(i)] = static_cast<float>(i) / 4 - 1;  // [[-1..0.25],[0.5..1.75]]
  EValue* x = h.tensor<float>({2, 6}, g);
  EValue* o = h.out<float>({1}, 12);
  REQUIRE(h.call("aten::glu.out", {x, h.i(-1), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  check_close(Harness::values<float>(o), {-0.43782350420951843, -0.375, -0.281088262796402, 0.38864994049072266,
                                          0.6131808161735535, 0.8519527316093445});
  REQUIRE(h.call("aten::glu.out", {x, h.i(0), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 6});
  check_close(Harness::values<float>(o), {-0.622459352016449, -0.509384036064148, -0.36552929878234863, -0.19432497024536133,
                                          0.0, 0.21298818290233612});
  // the same [2,6] values stored transposed
  std::vector<float> gt(12);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 6; ++c) gt[static_cast<size_t>(c * 2 + r)] = g[static_cast<size_t>(r * 6 + c)];
  EValue* xt = h.tensor<float>({2, 6}, gt, Dynamism::Static, {1, 0});
  REQUIRE(h.call("aten::glu.out", {xt, h.i(1), o}));
  check_close(Harness::values<float>(o), {-0.43782350420951843, -0.375, -0.281088262796402, 0.38864994049072266,
                                          0.6131808161735535, 0.8519527316093445});
  EValue* xd = h.tensor<double>({2}, {3.0, 0.0});
  EValue* od = h.out<double>({1});
  REQUIRE(h.call("aten::glu.out", {xd, h.i(0), od}));
  check_close(Harness::values<double>(od), {1.5}, 1e-15, 0);
  EValue* odd = h.tensor<float>({3}, {1, 2, 3});
  CHECK_FALSE(h.call("aten::glu.out", {odd, h.i(0), o}));
  CHECK(h.message == "halving dimension must be even, but dimension 0 is size 3");
  CHECK_FALSE(h.call("aten::glu.out", {x, h.i(2), o}));
}
