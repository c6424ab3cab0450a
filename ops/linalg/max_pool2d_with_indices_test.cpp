#include <doctest/doctest.h>

#include <limits>

#include "ops/linalg/test_util.h"
#include "tests/op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

namespace {
// x[1,1,5,6] = (arange(30) * 7) % 11; expected values from torch.ops.aten.max_pool2d_with_indices
const std::vector<float> kX = {0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5};

std::vector<pte::EValue*> args(Harness& h, pte::EValue* x, std::vector<int64_t> k, std::vector<int64_t> s,
                               std::vector<int64_t> p, std::vector<int64_t> d, bool ceil, pte::EValue* out,
                               pte::EValue* idx) {
  return {x, h.ints(k), h.ints(s), h.ints(p), h.ints(d), h.b(ceil), out, idx};
}
}  // namespace

TEST_CASE("max_pool2d_with_indices.out: kernel [3,2], stride 2, padding 1 (torch values), dynamic outputs") {
  Harness h;
  auto* x = h.tensor<float>({1, 1, 5, 6}, kX);
  auto* out = h.out<float>({1, 1, 5, 6});
  auto* idx = h.out<int64_t>({1, 1, 5, 6});
  REQUIRE(h.call("aten::max_pool2d_with_indices.out", args(h, x, {3, 2}, {2, 2}, {1, 1}, {1, 1}, false, out, idx)));
  CHECK(Harness::shape(out) == std::vector<int64_t>{1, 1, 3, 4});
  CHECK(Harness::shape(idx) == std::vector<int64_t>{1, 1, 3, 4});
  CHECK(Harness::values<float>(out) == std::vector<float>{9, 7, 10, 2, 9, 10, 8, 9, 5, 10, 9, 7});
  CHECK(Harness::values<int64_t>(idx) == std::vector<int64_t>{6, 1, 3, 5, 6, 14, 9, 17, 18, 25, 28, 23});
}

TEST_CASE("max_pool2d_with_indices.out: ceil_mode, empty stride, dilation 2; int64 input") {
  Harness h;
  auto* x = h.tensor<float>({1, 1, 5, 6}, kX);
  auto* out = h.out<float>({1, 1, 3, 3});
  auto* idx = h.out<int64_t>({1, 1, 3, 3});
  REQUIRE(h.call("aten::max_pool2d_with_indices.out", args(h, x, {2}, {}, {0}, {1}, true, out, idx)));
  CHECK(Harness::values<float>(out) == std::vector<float>{9, 10, 6, 7, 10, 9, 10, 6, 9});
  CHECK(Harness::values<int64_t>(idx) == std::vector<int64_t>{6, 3, 4, 12, 14, 17, 25, 26, 28});
  std::vector<int64_t> xi(kX.begin(), kX.end());
  auto* x64 = h.tensor<int64_t>({1, 5, 6}, xi);  // (C,H,W) input
  auto* out64 = h.out<int64_t>({1, 3, 4});
  auto* idx2 = h.out<int64_t>({1, 3, 4});
  REQUIRE(h.call("aten::max_pool2d_with_indices.out", args(h, x64, {2, 2}, {1, 1}, {0, 0}, {2, 2}, false, out64, idx2)));
  CHECK(Harness::values<int64_t>(out64) == std::vector<int64_t>{10, 10, 10, 10, 9, 8, 8, 8, 10, 10, 10, 9});
  CHECK(Harness::values<int64_t>(idx2) == std::vector<int64_t>{14, 3, 14, 3, 6, 9, 20, 9, 14, 25, 14, 17});
}

TEST_CASE("max_pool2d_with_indices.out: channels-last input/output, NaN propagates") {
  Harness h;
  const std::vector<uint8_t> cl = {0, 2, 3, 1};
  auto logical = pte::test::two_channels(kX, 100.0f);
  auto* x = h.tensor<float>({1, 2, 5, 6}, pte::test::to_physical(logical, {1, 2, 5, 6}, cl), Dynamism::Static, cl);
  auto* out = h.tensor<float>({1, 2, 3, 4}, std::vector<float>(24), Dynamism::Static, cl);
  auto* idx = h.out<int64_t>({1, 2, 3, 4});
  REQUIRE(h.call("aten::max_pool2d_with_indices.out", args(h, x, {3, 2}, {2, 2}, {1, 1}, {1, 1}, false, out, idx)));
  const std::vector<float> c0 = {9, 7, 10, 2, 9, 10, 8, 9, 5, 10, 9, 7};
  auto got = Harness::values<float>(out);
  auto gi = Harness::values<int64_t>(idx);
  const std::vector<int64_t> i0 = {6, 1, 3, 5, 6, 14, 9, 17, 18, 25, 28, 23};
  for (int i = 0; i < 12; ++i) {
    CHECK(got[i] == c0[i]);
    CHECK(got[12 + i] == c0[i] + 100);
    CHECK(gi[i] == i0[i]);
    CHECK(gi[12 + i] == i0[i]);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto* xn = h.tensor<float>({1, 2, 2}, {1, nan, 3, 2});
  auto* on = h.out<float>({1, 1, 1});
  auto* in_ = h.out<int64_t>({1, 1, 1});
  REQUIRE(h.call("aten::max_pool2d_with_indices.out", args(h, xn, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, on, in_)));
  CHECK(std::isnan(Harness::values<float>(on)[0]));
  CHECK(Harness::values<int64_t>(in_)[0] == 1);
}

TEST_CASE("max_pool2d_with_indices.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({1, 1, 5, 6}, kX);
  auto* out = h.out<float>({1, 1, 5, 6});
  auto* idx = h.out<int64_t>({1, 1, 5, 6});
  CHECK_FALSE(h.call("aten::max_pool2d_with_indices.out", args(h, x, {2, 2}, {2, 2}, {2, 2}, {1, 1}, false, out, idx)));
  CHECK(h.message.find("at most half") != std::string::npos);
  auto* bad_idx = h.out<int32_t>({1, 1, 5, 6});
  CHECK_FALSE(h.call("aten::max_pool2d_with_indices.out", args(h, x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, out, bad_idx)));
  CHECK(h.message.find("int64") != std::string::npos);
}

#include <sys/stat.h>

#include <cmath>

#include "pte/program.h"

TEST_CASE("max_pool2d_with_indices.out: real exporter program (corpus pr17248_maxpool2d.pte) vs a naive 3x3/s2/p1 pool") {
  const char* path = "../shared/pte-corpus/executorch/pr17248_maxpool2d.pte";
  struct stat st;
  if (stat(path, &st) != 0) {
    MESSAGE("corpus file absent: skipped");
    return;
  }
  std::unique_ptr<pte::Program> prog;
  REQUIRE(pte::Program::open_file(path, {}, &prog).is_ok());
  std::unique_ptr<pte::Method> m;
  REQUIRE(prog->load_method("forward", {}, &m).is_ok());
  const int C = 64, H = 112, W = 112, OH = 56, OW = 56;
  std::vector<float> x(C * H * W);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) * 10.0f;
  pte::Tensor t;
  t.dtype = pte::DType::Float;
  t.dim = 4;
  const int64_t sizes[4] = {1, C, H, W};
  for (int i = 0; i < 4; ++i) t.sizes[i] = sizes[i], t.dim_order[i] = static_cast<uint8_t>(i);
  pte::compute_strides(t);
  t.data = x.data();
  t.capacity = x.size() * sizeof(float);
  REQUIRE(m->set_input(0, t).is_ok());
  REQUIRE(m->execute().is_ok());
  const pte::EValue& out = m->output(0);
  REQUIRE(out.is_tensor());
  REQUIRE(Harness::shape(&out) == std::vector<int64_t>{1, C, OH, OW});
  auto got = Harness::values<float>(&out);
  for (int c = 0; c < C; ++c)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow) {
        float best = -INFINITY;
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw) {
            int ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
            if (ih >= 0 && ih < H && iw >= 0 && iw < W) best = std::max(best, x[(c * H + ih) * W + iw]);
          }
        REQUIRE(got[(c * OH + oh) * OW + ow] == best);
      }
}
