// dwconv_nhwc: the scalar reference against plain loops over a zero-padded input, and every
// ISA variant this CPU runs (and the threaded dispatcher) against the reference, over
// channel counts around the vector tiles, kernels 1x1 to 7x7, strides, dilations,
// asymmetric and over-wide padding, batches and a fused clamp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/isa.h"
#include "ops/linalg/dwconv_nhwc.h"
#include "ops/linalg/test_util.h"

namespace {

using pte::test::out_len;
using pte::test::seeded;

using pte::linalg::DwconvNhwc;

// Plain loops over an explicitly zero-padded copy of the input (independent of the
// kernels' tap ranges), in double.
std::vector<float> naive(const DwconvNhwc& p, int64_t pad_bottom, int64_t pad_right, const std::vector<float>& x,
                         const std::vector<float>& w, const float* bias) {
  const int64_t PH = p.H + p.pad_top + pad_bottom, PW = p.W + p.pad_left + pad_right, C = p.C;
  std::vector<float> xp(static_cast<size_t>(p.N * PH * PW * C), 0.0f);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t h = 0; h < p.H; ++h)
      for (int64_t ww = 0; ww < p.W; ++ww)
        for (int64_t c = 0; c < C; ++c)
          xp[static_cast<size_t>(((n * PH + h + p.pad_top) * PW + ww + p.pad_left) * C + c)] =
              x[static_cast<size_t>(((n * p.H + h) * p.W + ww) * C + c)];
  std::vector<float> y(static_cast<size_t>(p.N * p.OH * p.OW * C));
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t oh = 0; oh < p.OH; ++oh)
      for (int64_t ow = 0; ow < p.OW; ++ow)
        for (int64_t c = 0; c < C; ++c) {
          double acc = bias ? bias[c] : 0.0;
          for (int64_t kh = 0; kh < p.KH; ++kh)
            for (int64_t kw = 0; kw < p.KW; ++kw)
              acc += static_cast<double>(w[static_cast<size_t>((kh * p.KW + kw) * C + c)]) *
                     xp[static_cast<size_t>(((n * PH + oh * p.sh + kh * p.dh) * PW + ow * p.sw + kw * p.dw) * C + c)];
          y[static_cast<size_t>(((n * p.OH + oh) * p.OW + ow) * C + c)] =
              std::min(std::max(static_cast<float>(acc), p.out_min), p.out_max);
        }
  return y;
}

double max_err(const std::vector<float>& a, const std::vector<float>& b) {
  double e = 0;
  for (size_t i = 0; i < a.size(); ++i) e = std::max(e, static_cast<double>(std::fabs(a[i] - b[i])));
  return e;
}

struct Case {
  int64_t N, H, W, C, KH, KW, sh, sw, dh, dw, pt, pl, pb, pr;
  bool bias, clamp;
};

}  // namespace

TEST_CASE("dwconv_nhwc: the reference matches plain loops; every ISA variant and the threaded dispatcher match the reference") {
  const Case cases[] = {
      {1, 9, 11, 96, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, true, false},   // ConvNeXt's 7x7, SAME
      {2, 8, 8, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},     // MobileNet-like, clamp
      {1, 10, 9, 64, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, false, false},  // TF-SAME stride 2 (pad after)
      {1, 12, 12, 33, 5, 5, 2, 1, 2, 2, 4, 2, 4, 2, true, false},  // dilation, unequal strides
      {1, 5, 6, 100, 3, 3, 1, 1, 1, 1, 4, 4, 4, 4, true, false},   // padding wider than the kernel
      {1, 4, 4, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, true, true},      // 1x1, narrow channels
      {3, 7, 3, 16, 7, 3, 1, 2, 1, 1, 3, 1, 3, 1, false, true},    // non-square kernel
      {1, 3, 3, 1, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, true, false},     // kernel larger than the image
      {1, 20, 29, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},   // 3x3 fast path: blocks of 8, 4, 1
      {2, 21, 27, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, false},  // 3x3 stride 2, a masked channel tile
      {1, 14, 14, 32, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, false, true},  // 3x3 TF-SAME stride 2
      {1, 2, 2, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false},    // 3x3 with no interior column
      {1, 6, 13, 7, 3, 3, 1, 2, 1, 1, 2, 0, 0, 2, true, false},    // 3x3 unequal strides and pads
  };
  for (const Case& k : cases) {
    DwconvNhwc p;
    p.N = k.N, p.H = k.H, p.W = k.W, p.C = k.C, p.KH = k.KH, p.KW = k.KW, p.sh = k.sh, p.sw = k.sw;
    p.dh = k.dh, p.dw = k.dw, p.pad_top = k.pt, p.pad_left = k.pl;
    p.OH = out_len(k.H, k.pt, k.pb, k.KH, k.sh, k.dh), p.OW = out_len(k.W, k.pl, k.pr, k.KW, k.sw, k.dw);
    if (k.clamp) p.out_min = -0.5f, p.out_max = 0.75f;
    REQUIRE(p.OH > 0);
    REQUIRE(p.OW > 0);
    const auto x = seeded(static_cast<size_t>(k.N * k.H * k.W * k.C), 7u + static_cast<uint32_t>(k.C));
    const auto w = seeded(static_cast<size_t>(k.KH * k.KW * k.C), 11u + static_cast<uint32_t>(k.KH));
    const auto b = seeded(static_cast<size_t>(k.C), 13u);
    const float* bias = k.bias ? b.data() : nullptr;
    const size_t ny = static_cast<size_t>(p.N * p.OH * p.OW * p.C);
    const std::string what = "N" + std::to_string(k.N) + " " + std::to_string(k.H) + "x" + std::to_string(k.W) + " C" +
                             std::to_string(k.C) + " k" + std::to_string(k.KH) + "x" + std::to_string(k.KW);
    CAPTURE(what);
    const auto want = naive(p, k.pb, k.pr, x, w, bias);
    std::vector<float> ref(ny, 1e30f);
    pte::linalg::dwconv_nhwc_f32_scalar(p, x.data(), w.data(), bias, ref.data(), 0, p.N * p.OH);
    const double tol = 1e-5 * static_cast<double>(k.KH * k.KW);
    CHECK(max_err(ref, want) <= tol);
    auto variant = [&](const char* name, auto fn) {
      CAPTURE(name);
      std::vector<float> got(ny, 1e30f);
      // two row ranges: the split point must not matter
      const int64_t rows = p.N * p.OH, mid = rows / 2;
      fn(p, x.data(), w.data(), bias, got.data(), 0, mid);
      fn(p, x.data(), w.data(), bias, got.data(), mid, rows);
      CHECK(max_err(got, ref) <= tol);
    };
    int ran = 0;
#if defined(__x86_64__)
    if (pte::isa::cpu().avx2_fma()) variant("avx2_fma", pte::linalg::dwconv_nhwc_f32_avx2_fma), ++ran;
    if (pte::isa::cpu().avx512f) variant("avx512f", pte::linalg::dwconv_nhwc_f32_avx512f), ++ran;
#endif
#if defined(__aarch64__) || defined(__arm__)
    if (pte::isa::cpu().neon) variant("neon", pte::linalg::dwconv_nhwc_f32_neon), ++ran;
#endif
    if (ran == 0) MESSAGE("no SIMD variant runs on this CPU: only the reference was checked");
    for (int threads : {1, 2}) {
      std::vector<float> got(ny, 1e30f);
      pte::linalg::dwconv_nhwc_f32(threads, p, x.data(), w.data(), bias, got.data());
      CHECK(max_err(got, ref) <= tol);
    }
  }
}

TEST_CASE("dwconv_nhwc: an inf in the image's first row reaches only the outputs whose windows hold it") {
  // 3x3 SAME over 6 x 9: rows outside the image are left out by every variant, never
  // multiplied by zero (0 x inf would be a NaN the reference does not produce)
  DwconvNhwc p;
  p.N = 2, p.H = 6, p.W = 9, p.C = 21, p.KH = 3, p.KW = 3, p.pad_top = 1, p.pad_left = 1, p.OH = 6, p.OW = 9;
  auto x = seeded(static_cast<size_t>(p.N * p.H * p.W * p.C), 3u);
  const auto w = seeded(static_cast<size_t>(9 * p.C), 4u);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t c = 0; c < p.C; ++c) x[static_cast<size_t>(((n * p.H + 0) * p.W + 4) * p.C + c)] = __builtin_inff();
  std::vector<float> ref(static_cast<size_t>(p.N * p.OH * p.OW * p.C));
  pte::linalg::dwconv_nhwc_f32_scalar(p, x.data(), w.data(), nullptr, ref.data(), 0, p.N * p.OH);
  auto check = [&](const std::vector<float>& got) {
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t oh = 0; oh < p.OH; ++oh)
        for (int64_t ow = 0; ow < p.OW; ++ow)
          for (int64_t c = 0; c < p.C; ++c) {
            const size_t i = static_cast<size_t>(((n * p.OH + oh) * p.OW + ow) * p.C + c);
            const bool hit = oh <= 1 && ow >= 3 && ow <= 5;  // windows over input (0, 4)
            CAPTURE(oh);
            CAPTURE(ow);
            REQUIRE(std::isinf(ref[i]) == hit);
            REQUIRE(std::isinf(got[i]) == hit);
            REQUIRE(!std::isnan(got[i]));
            if (!hit) REQUIRE(std::fabs(got[i] - ref[i]) <= 1e-4f);
          }
  };
  for (int threads : {1, 2}) {
    std::vector<float> got(ref.size(), 0.0f);
    pte::linalg::dwconv_nhwc_f32(threads, p, x.data(), w.data(), nullptr, got.data());
    check(got);
  }
}
