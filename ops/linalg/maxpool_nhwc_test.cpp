// maxpool_nhwc: the scalar reference against plain loops that leave out the taps in the
// padding, and the SIMD variant (a doctest skip on a CPU without it) and the threaded
// dispatcher against the reference bit for bit (windows 1x1 to 3x3 and 2x3, strides,
// dilation, channel tails, a clamp, a NaN input).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ops/isa.h"
#include "ops/linalg/maxpool_nhwc.h"
#include "ops/linalg/test_util.h"

namespace {

using pte::linalg::MaxPoolNhwc;
using pte::test::out_len;
using pte::test::seeded;

struct Case {
  int64_t N, H, W, C, KH, KW, sh, sw, dh, dw, pt, pl, pb, pr;
  bool clamp;
};

const Case kCases[] = {
    {1, 112, 112, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false},  // ResNet's stem pool
    {2, 9, 8, 17, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, true},       // 2x2/2, channel tail, clamp
    {1, 7, 9, 80, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, false},      // dilation 2
    {1, 5, 4, 3, 2, 3, 1, 2, 1, 1, 1, 2, 1, 2, true},        // non-square, asymmetric stride
    {1, 3, 3, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false},      // 1x1
};

// One case: its parameters, its input (with a NaN, which every variant leaves out of the
// maximum) and the scalar reference's output, itself checked against plain loops.
struct Setup {
  MaxPoolNhwc p;
  std::vector<float> x, ref;
  std::string what;
};

Setup setup(const Case& k) {
  Setup s;
  MaxPoolNhwc& p = s.p;
  p.N = k.N, p.H = k.H, p.W = k.W, p.C = k.C, p.KH = k.KH, p.KW = k.KW, p.sh = k.sh, p.sw = k.sw, p.dh = k.dh, p.dw = k.dw;
  p.pad_top = k.pt, p.pad_left = k.pl;
  p.OH = out_len(k.H, k.pt, k.pb, k.KH, k.sh, k.dh), p.OW = out_len(k.W, k.pl, k.pr, k.KW, k.sw, k.dw);
  if (k.clamp) p.out_min = -0.25f, p.out_max = 0.5f;
  REQUIRE(p.OH > 0);
  REQUIRE(p.OW > 0);
  s.x = seeded(static_cast<size_t>(k.N * k.H * k.W * k.C), 5u + static_cast<uint32_t>(k.C));
  s.x[3] = __builtin_nanf("");  // left out of the maximum by every variant
  s.what = std::to_string(k.H) + "x" + std::to_string(k.W) + " C" + std::to_string(k.C) + " k" + std::to_string(k.KH) +
           "x" + std::to_string(k.KW);
  const size_t ny = static_cast<size_t>(p.N * p.OH * p.OW * p.C);
  std::vector<float> want(ny);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t oh = 0; oh < p.OH; ++oh)
      for (int64_t ow = 0; ow < p.OW; ++ow)
        for (int64_t c = 0; c < p.C; ++c) {
          float m = -__builtin_inff();
          for (int64_t kh = 0; kh < p.KH; ++kh)
            for (int64_t kw = 0; kw < p.KW; ++kw) {
              const int64_t ih = oh * p.sh - p.pad_top + kh * p.dh, iw = ow * p.sw - p.pad_left + kw * p.dw;
              if (ih < 0 || ih >= p.H || iw < 0 || iw >= p.W) continue;
              const float v = s.x[static_cast<size_t>(((n * p.H + ih) * p.W + iw) * p.C + c)];
              if (v > m) m = v;
            }
          want[static_cast<size_t>(((n * p.OH + oh) * p.OW + ow) * p.C + c)] = std::min(std::max(m, p.out_min), p.out_max);
        }
  s.ref.assign(ny, 7.0f);
  pte::linalg::maxpool_nhwc_f32_scalar(p, s.x.data(), s.ref.data(), 0, p.N * p.OH);
  CAPTURE(s.what);
  CHECK(std::memcmp(s.ref.data(), want.data(), ny * 4) == 0);
  for (float v : s.ref) REQUIRE(!std::isnan(v));
  return s;
}

}  // namespace

TEST_CASE("maxpool_nhwc: the reference matches plain loops; the threaded dispatcher matches it bit for bit") {
  for (const Case& k : kCases) {
    const Setup s = setup(k);
    CAPTURE(s.what);
    for (int threads : {1, 2}) {
      std::vector<float> got(s.ref.size(), 7.0f);
      pte::linalg::maxpool_nhwc_f32(threads, s.p, s.x.data(), got.data());
      CHECK(std::memcmp(s.ref.data(), got.data(), got.size() * 4) == 0);
    }
  }
}

TEST_CASE("maxpool_nhwc: the AVX-512F variant matches the reference bit for bit (two row ranges)" *
          doctest::skip(!pte::isa::cpu().avx512f)) {
#if defined(__x86_64__)
  for (const Case& k : kCases) {
    const Setup s = setup(k);
    CAPTURE(s.what);
    std::vector<float> got(s.ref.size(), 7.0f);
    const int64_t rows = s.p.N * s.p.OH;
    pte::linalg::maxpool_nhwc_f32_avx512f(s.p, s.x.data(), got.data(), 0, rows / 2);
    pte::linalg::maxpool_nhwc_f32_avx512f(s.p, s.x.data(), got.data(), rows / 2, rows);
    CHECK(std::memcmp(s.ref.data(), got.data(), got.size() * 4) == 0);
  }
#endif
}
