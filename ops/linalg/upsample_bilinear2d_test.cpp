#include <doctest/doctest.h>

#include "ops/linalg/test_util.h"
#include "tests/op_harness.h"

using pte::test::Harness;
using pte::test::all_close;
using pte::Dynamism;

namespace {
const std::vector<float> kX = {0, 5, 3, 1, 6, 4, 2, 0, 5, 3, 1, 6};
// torch.ops.aten.upsample_bilinear2d.vec(x, [3,5], False, None)
const std::vector<float> kB1 = {0, 2.00000024f, 5, 3.79999971f, 3, 0.5f, 2.50000024f, 5.5f, 4.29999971f, 3.5f,
                                1, 3.00000048f, 6, 4.79999971f, 4, 2, 1.19999993f, 0, 3.00000072f, 5,
                                2.5f, 1.69999993f, 0.5f, 3.50000072f, 5.5f, 3, 2.19999981f, 1, 4.00000095f, 6};
}  // namespace

TEST_CASE("upsample_bilinear2d.vec_out: half-pixel, align_corners, scale_factors (torch values)") {
  Harness h;
  auto* x = h.tensor<float>({1, 2, 2, 3}, kX);
  auto* out = h.out<float>({1, 2, 8, 8});
  REQUIRE(h.call("aten::upsample_bilinear2d.vec_out", {x, h.ints({3, 5}), h.b(false), h.none(), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 2, 3, 5});
  CHECK(all_close(Harness::values<float>(out), kB1, 1e-6));
  REQUIRE(h.call("aten::upsample_bilinear2d.vec_out", {x, h.ints({3, 5}), h.b(true), h.none(), out}));
  CHECK(all_close(Harness::values<float>(out),
                  std::vector<float>{0, 2.5f, 5, 4, 3, 0.5f, 3, 5.5f, 4.5f, 3.5f, 1, 3.5f, 6, 5, 4,
                                     2, 1, 0, 2.5f, 5, 2.5f, 1.5f, 0.5f, 3, 5.5f, 3, 2, 1, 3.5f, 6},
                  1e-6));
  REQUIRE(h.call("aten::upsample_bilinear2d.vec_out", {x, h.none(), h.b(false), h.doubles({1.5, 2.5}), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 2, 3, 7});
  CHECK(all_close(Harness::values<float>(out),
                  std::vector<float>{0, 0.50000006f, 2.5f, 4.5f, 4.39999962f, 3.5999999f, 3, 0.5f, 1.00000012f, 3, 5,
                                     4.89999962f, 4.0999999f, 3.5f, 1, 1.5f, 3.50000024f, 5.50000048f, 5.39999962f,
                                     4.5999999f, 4, 2, 1.79999995f, 1, 0.199999928f, 1.50000036f, 3.50000024f, 5,
                                     2.5f, 2.29999995f, 1.5f, 0.699999928f, 2.00000048f, 4, 5.5f, 3, 2.79999995f, 2,
                                     1.19999993f, 2.50000048f, 4.50000048f, 6},
                  1e-6));
}

TEST_CASE("upsample_bilinear2d.out: scales_h given; channels-last; f64") {
  Harness h;
  auto* x = h.tensor<float>({1, 2, 2, 3}, kX);
  auto* out = h.out<float>({1, 2, 4, 2});
  REQUIRE(h.call("aten::upsample_bilinear2d.out", {x, h.ints({4, 2}), h.b(false), h.d(2.0), h.none(), out}));
  CHECK(all_close(Harness::values<float>(out),
                  std::vector<float>{1.25f, 3.5f, 1.5f, 3.75f, 2, 4.25f, 2.25f, 4.5f, 1.5f, 3.75f, 1.75f, 4, 2.25f, 4.5f,
                                     2.5f, 4.75f},
                  1e-6));
  const std::vector<uint8_t> cl = {0, 2, 3, 1};
  auto* xc = h.tensor<float>({1, 2, 2, 3}, pte::test::to_physical(kX, {1, 2, 2, 3}, cl), Dynamism::Static, cl);
  auto* oc = h.tensor<float>({1, 2, 3, 5}, std::vector<float>(30), Dynamism::Static, cl);
  REQUIRE(h.call("aten::upsample_bilinear2d.out", {xc, h.ints({3, 5}), h.b(false), h.none(), h.none(), oc}));
  CHECK(all_close(Harness::values<float>(oc), kB1, 1e-6));
  std::vector<double> xd(kX.begin(), kX.end());
  auto* x64 = h.tensor<double>({1, 2, 2, 3}, xd);
  auto* o64 = h.out<double>({1, 2, 3, 5});
  REQUIRE(h.call("aten::upsample_bilinear2d.vec_out", {x64, h.ints({3, 5}), h.b(false), h.none(), o64}));
  CHECK(all_close(Harness::values<double>(o64), kB1, 2e-6));
}

TEST_CASE("upsample_bilinear2d: errors") {
  Harness h;
  std::vector<int32_t> xi(kX.begin(), kX.end());
  auto* x = h.tensor<int32_t>({1, 2, 2, 3}, xi);
  auto* out = h.out<int32_t>({1, 2, 3, 5});
  CHECK_FALSE(h.call("aten::upsample_bilinear2d.vec_out", {x, h.ints({3, 5}), h.b(false), h.none(), out}));
  CHECK(h.message.find("unsupported dtype") != std::string::npos);
  auto* xf = h.tensor<float>({1, 2, 2, 3}, kX);
  auto* of = h.out<float>({1, 2, 3, 5});
  CHECK_FALSE(h.call("aten::upsample_bilinear2d.vec_out", {xf, h.none(), h.b(false), h.none(), of}));
}
