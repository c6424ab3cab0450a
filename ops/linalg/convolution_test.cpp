// convolution.out: expected values computed with torch.ops.aten.convolution on the
// same integer-valued inputs (exact in f32); cross-checks of the f32 GEMM path against
// the f64 direct loops on pseudo-random data.
#include <doctest/doctest.h>

#include <cmath>

#include "ops/linalg/conv.h"
#include "ops/linalg/test_util.h"
#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::test::to_physical;

namespace {

// torch.arange(n) % mod - off, reshaped
std::vector<float> ar(int64_t n, int mod = 7, int off = 3) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % mod - off);
  return v;
}


std::vector<pte::EValue*> conv_args(Harness& h, pte::EValue* x, pte::EValue* w, pte::EValue* b, std::vector<int64_t> s,
                                    std::vector<int64_t> p, std::vector<int64_t> d, bool tr, std::vector<int64_t> op,
                                    int64_t groups, pte::EValue* out) {
  return {x, w, b, h.ints(s), h.ints(p), h.ints(d), h.b(tr), h.ints(op), h.i(groups), out};
}

const std::vector<float> kC1 = {-3, -3, 5,   4,  0,  -1, 10, -10, 3,  15, -2, 6,    -7,   12,   -2,  -9,
                                6,  -1, -4,  4,  -2, -9, -1, 8,   -16, -12, 17, -15, 5,    3,    4,   9,
                                8.5f, -0.5f, -4.5f, 2.5f, 4.5f, 1.5f, 1.5f, 4.5f, 8.5f, -5.5f, -5.5f, 7.5f, -9.5f, -2.5f, 8.5f, -9.5f};

}  // namespace

TEST_CASE("convolution.out: 2-D, padding 1, bias (torch values); dynamic output resized") {
  Harness h;
  auto* x = h.tensor<float>({1, 2, 4, 4}, ar(32));
  auto* w = h.tensor<float>({3, 2, 3, 3}, ar(54, 5, 2));
  auto* b = h.tensor<float>({3}, {1, -1, 0.5f});
  auto* out = h.out<float>({2, 3, 5, 5});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x, w, b, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1, out)));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 3, 4, 4});
  CHECK(Harness::values<float>(out) == kC1);
}

TEST_CASE("convolution.out: channels-last input and output ([0,2,3,1]), and channels-last weight") {
  Harness h;
  const std::vector<uint8_t> cl = {0, 2, 3, 1};
  auto* x = h.tensor<float>({1, 2, 4, 4}, to_physical(ar(32), {1, 2, 4, 4}, cl), Dynamism::Static, cl);
  auto* w = h.tensor<float>({3, 2, 3, 3}, ar(54, 5, 2));
  auto* wcl = h.tensor<float>({3, 2, 3, 3}, to_physical(ar(54, 5, 2), {3, 2, 3, 3}, cl), Dynamism::Static, cl);
  auto* b = h.tensor<float>({3}, {1, -1, 0.5f});
  auto* out = h.tensor<float>({1, 3, 4, 4}, std::vector<float>(48), Dynamism::Static, cl);
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x, w, b, {1}, {1}, {1}, false, {0}, 1, out)));
  CHECK(Harness::values<float>(out) == kC1);
  auto* out2 = h.tensor<float>({1, 3, 4, 4}, std::vector<float>(48), Dynamism::Static, cl);
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x, wcl, b, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1, out2)));
  CHECK(Harness::values<float>(out2) == kC1);
  // NCHW input, channels-last weight, NCHW output
  auto* x3 = h.tensor<float>({1, 2, 4, 4}, ar(32));
  auto* out3 = h.out<float>({1, 3, 4, 4});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x3, wcl, b, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1, out3)));
  CHECK(Harness::values<float>(out3) == kC1);
}

TEST_CASE("convolution.out: groups 2, stride 2, dilation [2,1], padding [2,1], batch 2") {
  Harness h;
  auto* x = h.tensor<float>({2, 4, 5, 6}, ar(240));
  auto* w = h.tensor<float>({4, 2, 2, 3}, ar(48, 3, 1));
  auto* out = h.out<float>({2, 4, 4, 3});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x, w, h.none(), {2, 2}, {2, 1}, {2, 1}, false, {0, 0}, 2, out)));
  const std::vector<float> expect = {
      -2, 4, -3, -1, 1, 1, 5, -6, 1, 4, -3, -3, -2, 4, -3, -1, 1, 1, 5, -6, 1, 4, -3, -3, -1, -3, 4, 1, -6, 1, 0, 1,
      -6, -2, 4, -3, -1, -3, 4, 1, -6, 1, 0, 1, -6, -2, 4, -3, 0, 4, -3, -4, 8, 1, -5, 1, 8, -1, -3, 4, 0, 4, -3, -4,
      8, 1, -5, 1, 8, -1, -3, 4, 1, -3, 4, 5, -6, 1, 4, 1, -6, 0, 4, -3, 1, -3, 4, 5, -6, 1, 4, 1, -6, 0, 4, -3};
  CHECK(Harness::values<float>(out) == expect);
}

TEST_CASE("convolution.out: depthwise with channel multiplier 2, bias") {
  Harness h;
  auto* x = h.tensor<float>({1, 2, 3, 3}, ar(18));
  auto* w = h.tensor<float>({4, 1, 2, 2}, ar(16, 4, 1));
  auto* b = h.tensor<float>({4}, {0, 1, 2, 3});
  auto* out = h.out<float>({1, 4, 2, 2});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x, w, b, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 2, out)));
  CHECK(Harness::values<float>(out) == std::vector<float>{5, 7, -3, -8, 6, 8, -2, -7, 11, -1, -4, -2, 12, 0, -3, -1});
}

TEST_CASE("convolution.out: 1-D stride 2 padding 1 and 3-D") {
  Harness h;
  auto* x = h.tensor<float>({1, 2, 7}, ar(14));
  auto* w = h.tensor<float>({2, 2, 3}, ar(12, 3, 1));
  auto* b = h.tensor<float>({2}, {0.5f, -0.5f});
  auto* out = h.out<float>({1, 2, 4});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x, w, b, {2}, {1}, {1}, false, {0}, 1, out)));
  CHECK(Harness::values<float>(out) == std::vector<float>{-3.5f, 4.5f, 4.5f, -3.5f, -4.5f, 3.5f, 3.5f, -4.5f});

  auto* x3 = h.tensor<float>({1, 1, 3, 3, 3}, ar(27));
  auto* w3 = h.tensor<float>({2, 1, 2, 2, 2}, ar(16, 3, 1));
  auto* out3 = h.out<float>({1, 2, 2, 2, 2});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x3, w3, h.none(), {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, false, {0, 0, 0}, 1, out3)));
  CHECK(Harness::values<float>(out3) == std::vector<float>{0, -1, 11, -4, 5, 11, -5, -6, 0, 7, -7, -7, 0, -7, 0, 7});
}

TEST_CASE("convolution.out: transposed 2-D (stride 2, padding 1, output_padding 1, groups 2) and 1-D (dilation 2)") {
  Harness h;
  auto* x = h.tensor<float>({1, 4, 3, 2}, ar(24));
  auto* w = h.tensor<float>({4, 1, 3, 3}, ar(36, 5, 2));
  auto* b = h.tensor<float>({2}, {1, 2});
  auto* out = h.out<float>({1, 2, 6, 4});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x, w, b, {2, 2}, {1, 1}, {1, 1}, true, {1, 1}, 2, out)));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 2, 6, 4});
  const std::vector<float> expect = {-2, 11, -6, -1, 3, 6, 6, 0, -3, -1, 0, -1, 2, 0, -2, 0, 3, 1, 6, -1, 1, -2, 0, 3,
                                     1, -3, 0, 5, -3, 16, -7, -7, -1, 7, 5, 0, 10, -10, -1, 8, 4, 3, 3, 2, 0, 6, 0, 4};
  CHECK(Harness::values<float>(out) == expect);
  // f64 takes the direct (gather) loops: same values
  std::vector<double> xd(24), wd(36);
  auto xv = ar(24), wv = ar(36, 5, 2);
  for (int i = 0; i < 24; ++i) xd[i] = xv[i];
  for (int i = 0; i < 36; ++i) wd[i] = wv[i];
  auto* xdd = h.tensor<double>({1, 4, 3, 2}, xd);
  auto* wdd = h.tensor<double>({4, 1, 3, 3}, wd);
  auto* bd = h.tensor<double>({2}, {1, 2});
  auto* outd = h.out<double>({1, 2, 6, 4});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, xdd, wdd, bd, {2, 2}, {1, 1}, {1, 1}, true, {1, 1}, 2, outd)));
  auto gotd = Harness::values<double>(outd);
  for (size_t i = 0; i < expect.size(); ++i) CHECK(gotd[i] == expect[i]);

  auto* x1 = h.tensor<float>({1, 2, 4}, ar(8));
  auto* w1 = h.tensor<float>({2, 3, 2}, ar(12, 3, 1));
  auto* out1 = h.out<float>({1, 3, 6});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x1, w1, h.none(), {1}, {0}, {2}, true, {0}, 1, out1)));
  CHECK(Harness::values<float>(out1) == std::vector<float>{2, 0, -2, 3, 0, 0, -2, 0, 4, -3, -2, 3, 0, 0, -2, 0, 2, -3});
}

TEST_CASE("convolution.out: bf16 and f16 through the direct loops") {
  Harness h;
  std::vector<pte::BFloat16> xb, wb;
  for (float v : ar(32)) xb.push_back(pte::BFloat16(v));
  for (float v : ar(54, 5, 2)) wb.push_back(pte::BFloat16(v));
  auto* x = h.tensor<pte::BFloat16>({1, 2, 4, 4}, xb);
  auto* w = h.tensor<pte::BFloat16>({3, 2, 3, 3}, wb);
  auto* b = h.tensor<pte::BFloat16>({3}, {pte::BFloat16(1.f), pte::BFloat16(-1.f), pte::BFloat16(0.5f)});
  auto* out = h.out<pte::BFloat16>({1, 3, 4, 4});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x, w, b, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1, out)));
  auto got = Harness::values<pte::BFloat16>(out);
  for (size_t i = 0; i < kC1.size(); ++i) CHECK(float(got[i]) == kC1[i]);

  std::vector<pte::Half> xh, wh;
  for (float v : ar(14)) xh.push_back(pte::Half(v));
  for (float v : ar(12, 3, 1)) wh.push_back(pte::Half(v));
  auto* x1 = h.tensor<pte::Half>({1, 2, 7}, xh);
  auto* w1 = h.tensor<pte::Half>({2, 2, 3}, wh);
  auto* b1 = h.tensor<pte::Half>({2}, {pte::Half(0.5f), pte::Half(-0.5f)});
  auto* o1 = h.out<pte::Half>({1, 2, 4});
  REQUIRE(h.call("aten::convolution.out", conv_args(h, x1, w1, b1, {2}, {1}, {1}, false, {0}, 1, o1)));
  auto g1 = Harness::values<pte::Half>(o1);
  const float e1[8] = {-3.5f, 4.5f, 4.5f, -3.5f, -4.5f, 3.5f, 3.5f, -4.5f};
  for (int i = 0; i < 8; ++i) CHECK(float(g1[i]) == e1[i]);
}

TEST_CASE("convolution.out: f32 GEMM paths agree with f64 direct loops (random, chunked im2col, 1x1, layouts)") {
  struct Cfg {
    int64_t n, cin, cout, h, w, kh, kw, s, p, d, groups;
    bool tr, cl;
  };
  const Cfg cfgs[] = {
      {1, 64, 8, 24, 24, 3, 3, 1, 1, 1, 1, false, false},  // 576 x 576 columns: > 1 MiB scratch, chunked
      {2, 6, 9, 7, 5, 1, 1, 1, 0, 1, 3, false, false},     // 1x1 in place
      {2, 6, 9, 7, 5, 1, 1, 1, 0, 1, 3, false, true},      // 1x1 channels-last
      {1, 5, 7, 9, 8, 3, 2, 2, 1, 1, 1, false, true},      // channels-last, im2col columns
      {1, 4, 6, 6, 7, 3, 3, 2, 1, 2, 2, true, false},      // transposed, grouped, dilated
      {1, 3, 3, 6, 6, 3, 3, 1, 1, 1, 3, false, true},      // depthwise channels-last
      {1, 4, 4, 9, 11, 3, 3, 2, 1, 1, 4, false, false},    // depthwise stride 2
      {1, 4, 8, 7, 7, 3, 3, 1, 2, 2, 4, false, false},     // depthwise multiplier 2, dilation 2
      {2, 3, 3, 10, 10, 5, 5, 3, 2, 1, 3, false, true},    // depthwise 5x5 stride 3 channels-last
      {1, 2, 2, 30, 600, 3, 3, 1, 1, 1, 2, false, false},  // depthwise rows longer than one chunk
  };
  for (const Cfg& c : cfgs) {
    Harness h;
    const std::vector<uint8_t> order = c.cl ? std::vector<uint8_t>{0, 2, 3, 1} : std::vector<uint8_t>{0, 1, 2, 3};
    const int64_t wc0 = c.tr ? c.cin : c.cout, wc1 = c.tr ? c.cout / c.groups : c.cin / c.groups;
    std::vector<int64_t> xs = {c.n, c.cin, c.h, c.w}, wsz = {wc0, wc1, c.kh, c.kw};
    std::vector<float> xv(c.n * c.cin * c.h * c.w), wv(wc0 * wc1 * c.kh * c.kw), bv(c.cout);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(0.1f * i + 0.3f);
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = std::cos(0.7f * i);
    for (size_t i = 0; i < bv.size(); ++i) bv[i] = 0.1f * i;
    std::vector<double> xd(xv.begin(), xv.end()), wd(wv.begin(), wv.end()), bd(bv.begin(), bv.end());
    auto* x = h.tensor<float>(xs, to_physical(xv, xs, order), Dynamism::Static, order);
    auto* w = h.tensor<float>(wsz, wv);
    auto* b = h.tensor<float>({c.cout}, bv);
    auto* xdd = h.tensor<double>(xs, xd);
    auto* wdd = h.tensor<double>(wsz, wd);
    auto* bdd = h.tensor<double>({c.cout}, bd);
    const int64_t bh = std::max<int64_t>(64, 2 * c.h), bw = std::max<int64_t>(64, 2 * c.w);  // output bounds
    auto* out = h.tensor<float>({c.n, c.cout, bh, bw}, std::vector<float>(c.n * c.cout * bh * bw), Dynamism::DynamicBound,
                                order);
    auto* outd = h.out<double>({c.n, c.cout, bh, bw});
    REQUIRE(h.call("aten::convolution.out", conv_args(h, x, w, b, {c.s, c.s}, {c.p, c.p}, {c.d, c.d}, c.tr, {0, 0}, c.groups, out)));
    REQUIRE(h.call("aten::convolution.out", conv_args(h, xdd, wdd, bdd, {c.s, c.s}, {c.p, c.p}, {c.d, c.d}, c.tr, {0, 0}, c.groups, outd)));
    REQUIRE(Harness::shape(out) == Harness::shape(outd));
    auto got = Harness::values<float>(out);
    auto ref = Harness::values<double>(outd);
    double worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(got[i] - ref[i]));
    CHECK(worst < 1e-3);
  }
}

TEST_CASE("conv_f32_gemm declines when the scratch arena is too small (the op then runs direct loops)") {
  pte::linalg::ConvGeom g;
  g.N = 1, g.Cin = 2, g.Cout = 1, g.G = 1, g.icg = 2, g.ocg = 1;
  g.in[1] = 4, g.in[2] = 4, g.out[1] = 2, g.out[2] = 2, g.k[1] = 3, g.k[2] = 3;
  g.xs[0] = 32, g.xs[1] = 16, g.xs[3] = 4, g.xs[4] = 1;
  g.ws[0] = 18, g.ws[1] = 9, g.ws[3] = 3, g.ws[4] = 1;
  g.ys[0] = 4, g.ys[1] = 4, g.ys[3] = 2, g.ys[4] = 1;
  g.weight_rows_dense = true;
  std::vector<float> x(32, 1.0f), w(18, 1.0f), y(4, -1.0f);
  pte::KernelContext ctx;
  alignas(64) static uint8_t tiny[64];
  ctx.set_scratch_arena(tiny, sizeof(tiny));
  CHECK_FALSE(pte::linalg::conv_f32_gemm(ctx, g, x.data(), w.data(), nullptr, y.data()));
  pte::linalg::conv_direct<float>(nullptr, g, x.data(), w.data(), nullptr, y.data());
  CHECK(y == std::vector<float>{18, 18, 18, 18});
  alignas(64) static uint8_t enough[4096];
  ctx.set_scratch_arena(enough, sizeof(enough));
  std::fill(y.begin(), y.end(), -1.0f);
  CHECK(pte::linalg::conv_f32_gemm(ctx, g, x.data(), w.data(), nullptr, y.data()));
  CHECK(y == std::vector<float>{18, 18, 18, 18});
}

TEST_CASE("convolution.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({1, 3, 4, 4}, std::vector<float>(48, 1));
  auto* w = h.tensor<float>({2, 2, 3, 3}, std::vector<float>(36, 1));
  auto* out = h.out<float>({1, 2, 2, 2});
  CHECK_FALSE(h.call("aten::convolution.out", conv_args(h, x, w, h.none(), {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1, out)));
  CHECK(h.message.find("input channels per group") != std::string::npos);
  auto* w2 = h.tensor<float>({2, 3, 5, 5}, std::vector<float>(150, 1));
  CHECK_FALSE(h.call("aten::convolution.out", conv_args(h, x, w2, h.none(), {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1, out)));
  CHECK(h.message.find("empty output") != std::string::npos);
  auto* w3 = h.tensor<float>({2, 3, 3, 3}, std::vector<float>(54, 1));
  CHECK_FALSE(h.call("aten::convolution.out", conv_args(h, x, w3, h.none(), {1, 1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1, out)));
  CHECK(h.message.find("expected 2 values") != std::string::npos);
}
