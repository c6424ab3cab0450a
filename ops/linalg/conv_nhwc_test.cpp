// conv_nhwc: the micro-kernels this CPU runs against the scalar one (every row count, column
// tails, first / last K block, with and without a residual), and the whole convolution
// (scalar and this CPU's kernel, 1 and 2 threads, with and without a fused residual) against
// plain loops over a zero-padded input in double: 1x1 to 7x7 kernels, strides, dilation,
// asymmetric padding, batches, channel counts around the 32-channel slivers, reductions over
// several K blocks, a fused clamp; NaN passes an open clamp; the patch gather on its own.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ops/linalg/conv_nhwc.h"
#include "ops/linalg/test_util.h"

namespace {

using pte::test::out_len;
using pte::test::seeded;

using pte::linalg::ConvNhwc;

// Plain loops over an explicitly zero-padded copy of the input, in double; also the sum of
// |terms| per output (the scale of its rounding error).
std::vector<float> naive(const ConvNhwc& p, int64_t pb, int64_t pr, const std::vector<float>& x,
                         const std::vector<float>& w, const float* bias, std::vector<double>* mag,
                         const float* residual = nullptr) {
  const int64_t PH = p.H + p.pad_top + pb, PW = p.W + p.pad_left + pr, C = p.C;
  std::vector<float> xp(static_cast<size_t>(p.N * PH * PW * C), 0.0f);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t h = 0; h < p.H; ++h)
      for (int64_t ww = 0; ww < p.W; ++ww)
        for (int64_t c = 0; c < C; ++c)
          xp[static_cast<size_t>(((n * PH + h + p.pad_top) * PW + ww + p.pad_left) * C + c)] =
              x[static_cast<size_t>(((n * p.H + h) * p.W + ww) * C + c)];
  std::vector<float> y(static_cast<size_t>(p.N * p.OH * p.OW * p.OC));
  mag->assign(y.size(), 0.0);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t oh = 0; oh < p.OH; ++oh)
      for (int64_t ow = 0; ow < p.OW; ++ow)
        for (int64_t o = 0; o < p.OC; ++o) {
          double acc = bias ? bias[o] : 0.0, m = std::fabs(acc);
          for (int64_t kh = 0; kh < p.KH; ++kh)
            for (int64_t kw = 0; kw < p.KW; ++kw)
              for (int64_t c = 0; c < C; ++c) {
                const double t =
                    static_cast<double>(w[static_cast<size_t>(((o * p.KH + kh) * p.KW + kw) * C + c)]) *
                    xp[static_cast<size_t>(((n * PH + oh * p.sh + kh * p.dh) * PW + ow * p.sw + kw * p.dw) * C + c)];
                acc += t;
                m += std::fabs(t);
              }
          const size_t i = static_cast<size_t>(((n * p.OH + oh) * p.OW + ow) * p.OC + o);
          if (residual) acc += residual[i], m += std::fabs(residual[i]);
          y[i] = std::min(std::max(static_cast<float>(acc), p.out_min), p.out_max);
          (*mag)[i] = m;
        }
  return y;
}

struct Case {
  int64_t N, H, W, C, OC, KH, KW, sh, sw, dh, dw, pt, pl, pb, pr;
  bool bias;
  float lo, hi;
};

void check_case(const Case& k) {
  ConvNhwc p;
  p.N = k.N, p.H = k.H, p.W = k.W, p.C = k.C, p.OC = k.OC, p.KH = k.KH, p.KW = k.KW;
  p.sh = k.sh, p.sw = k.sw, p.dh = k.dh, p.dw = k.dw, p.pad_top = k.pt, p.pad_left = k.pl;
  p.OH = out_len(k.H, k.pt, k.pb, k.KH, k.sh, k.dh), p.OW = out_len(k.W, k.pl, k.pr, k.KW, k.sw, k.dw);
  p.out_min = k.lo, p.out_max = k.hi;
  REQUIRE(p.OH > 0);
  REQUIRE(p.OW > 0);
  const int64_t Kc = k.KH * k.KW * k.C;
  const auto x = seeded(static_cast<size_t>(k.N * k.H * k.W * k.C), 11u + static_cast<uint32_t>(k.C));
  const auto w = seeded(static_cast<size_t>(k.OC * Kc), 29u + static_cast<uint32_t>(k.OC));
  const auto b = seeded(static_cast<size_t>(k.OC), 7u);
  std::vector<float> packed(pte::linalg::conv_nhwc_packed_floats(k.OC, Kc), -1.0f);
  pte::linalg::conv_nhwc_pack_f32(w.data(), k.bias ? b.data() : nullptr, k.OC, Kc, packed.data());
  const std::string geo = "N" + std::to_string(k.N) + " " + std::to_string(k.H) + "x" + std::to_string(k.W) + "x" +
                          std::to_string(k.C) + " -> " + std::to_string(k.OC) + " k" + std::to_string(k.KH) + "x" +
                          std::to_string(k.KW) + " s" + std::to_string(k.sh) + std::to_string(k.sw) + " d" +
                          std::to_string(k.dh) + std::to_string(k.dw) + " pad" + std::to_string(k.pt) +
                          std::to_string(k.pl) + std::to_string(k.pb) + std::to_string(k.pr);
  const auto res = seeded(static_cast<size_t>(p.N * p.OH * p.OW * p.OC), 31u);
  for (bool with_res : {false, true})
  for (auto isa : {pte::linalg::ConvNhwcIsa::Scalar, pte::linalg::ConvNhwcIsa::Auto})
    for (int threads : {1, 2}) {
      std::vector<double> mag;
      p.residual = with_res ? res.data() : nullptr;
      const auto want = naive(p, k.pb, k.pr, x, w, k.bias ? b.data() : nullptr, &mag, p.residual);
      CAPTURE(with_res);
      CAPTURE(geo);
      CAPTURE(threads);
      CAPTURE(static_cast<int>(isa));
      std::vector<float> y(want.size() + 37, 12345.0f);  // guard floats past the end
      pte::linalg::conv_nhwc_f32(threads, p, packed.data(), x.data(), y.data(), isa);
      size_t bad = 0;
      double worst = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        const double err = std::fabs(static_cast<double>(y[i]) - want[i]);
        const double tol = 1e-6 * mag[i] + 1e-6;
        worst = std::max(worst, err / (mag[i] + 1e-30));
        if (!(err <= tol)) ++bad;
      }
      CAPTURE(worst);
      CHECK(bad == 0);
      for (size_t i = want.size(); i < y.size(); ++i) REQUIRE(y[i] == 12345.0f);
    }
}

}  // namespace

TEST_CASE("conv_nhwc_f32: against plain loops (kernels 1x1-7x7, strides, dilation, padding, clamp, K blocks)") {
  const float inf = __builtin_inff();
  const Case cases[] = {
      // N  H   W   C   OC  KH KW sh sw dh dw pt pl pb pr bias  lo    hi
      {1, 9, 7, 16, 32, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, true, -inf, inf},      // pointwise, one sliver
      {2, 6, 5, 64, 70, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false, -inf, inf},     // OC tail, batch 2
      {1, 7, 7, 24, 40, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, true, 0.0f, inf},      // strided 1x1, ReLU
      {1, 10, 9, 64, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, -inf, inf},     // 576 = 3 K blocks
      {2, 11, 8, 40, 96, 3, 3, 2, 2, 1, 1, 1, 0, 2, 1, true, -0.5f, 0.75f},  // asymmetric pads, clamp
      {1, 17, 15, 3, 24, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, true, 0.0f, 6.0f},    // stem: 3 channels, ReLU6
      {1, 12, 12, 20, 48, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, false, -inf, inf},   // dilation 2
      {1, 3, 4, 300, 17, 2, 3, 1, 2, 1, 1, 0, 1, 1, 0, true, -inf, inf},     // C > K block, OC < 32
      {3, 1, 1, 1000, 129, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, true, -inf, inf},   // 1x1 image (a classifier)
      {1, 23, 21, 8, 200, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, -inf, inf},    // many pixel blocks and slivers
      {1, 6, 7, 100, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, -inf, inf},     // kernel row 300 floats: in parts
      {1, 12, 6, 4, 20, 9, 1, 1, 1, 1, 1, 4, 0, 4, 0, true, -inf, inf},      // 9 kernel rows: two K blocks of rows
      {1, 5, 5, 256, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, -inf, inf},     // pixels 1 KB apart: gathered
      {2, 16, 16, 3, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, 0.0f, 6.0f},    // MobileNet stem (3x3/2, 3 channels)
  };
  for (const Case& k : cases) check_case(k);
}

// (no SIMD micro-kernel on this CPU: a doctest skip; the scalar kernel is checked by the
// convolution test)
TEST_CASE("conv_nhwc micro-kernels: this CPU's against the scalar one (rows, column tails, first / last, residual)" *
          doctest::skip(!pte::linalg::conv_nhwc_has_simd())) {
  int simd_mr = 0;
  const pte::linalg::ConvNhwcUkernel simd = pte::linalg::conv_nhwc_simd_ukernel(&simd_mr);
  REQUIRE(static_cast<bool>(simd));
  REQUIRE(simd_mr >= 1);
  REQUIRE(simd_mr <= 8);
  // (kc, seg): one segment a row (NEON: steps of 4 k, and the tail), and rows in segments
  // (kernel rows read in place: 3 of 9 floats, 2 of 6)
  const int64_t shapes[][2] = {{37, 37}, {4, 4}, {1, 1}, {27, 9}, {12, 6}};
  for (const auto& sh : shapes) {
    const int64_t kc = sh[0], seg = sh[1], nseg = kc / seg, c_rs = 45;
    // segment s of row r: its own stretch of `pool`, rows interleaved so no row is contiguous
    const auto pool = seeded(static_cast<size_t>(8 * kc + 64), 3u);
    std::vector<const float*> ptr(static_cast<size_t>(nseg * 8));
    std::vector<float> a_dense(static_cast<size_t>(8 * kc));  // the same rows, contiguous (for the scalar reference)
    for (int64_t sg = 0; sg < nseg; ++sg)
      for (int64_t r = 0; r < 8; ++r) {
        const float* src = pool.data() + ((sg * 8 + (7 - r)) * seg + (sg % 2) * 5) % static_cast<int64_t>(8 * kc);
        ptr[static_cast<size_t>(sg * 8 + r)] = src;
        for (int64_t k = 0; k < seg; ++k) a_dense[static_cast<size_t>(r * kc + sg * seg + k)] = src[k];
      }
    const auto b = seeded(static_cast<size_t>(kc * 32), 5u);
    const auto bias = seeded(32, 9u);
    const auto c0 = seeded(static_cast<size_t>(8 * c_rs), 13u);
    const auto res = seeded(static_cast<size_t>(8 * c_rs), 19u);
    int checked = 0;
    for (int mr = 1; mr <= simd_mr; ++mr)
      for (int64_t nc : {1, 3, 4, 15, 16, 17, 31, 32})
        for (int fl = 0; fl < 8; ++fl) {
          const bool first = fl & 1, last = fl & 2;
          const float* r0 = (fl & 4) ? res.data() : nullptr;
          std::vector<float> want = c0, got = c0;
          // the scalar kernel takes at most kConvNhwcMrScalar rows a call, one segment a row here
          for (int r = 0; r < mr; r += pte::linalg::kConvNhwcMrScalar) {
            const float* rows[pte::linalg::kConvNhwcMrScalar];
            for (int q = 0; q < pte::linalg::kConvNhwcMrScalar; ++q) rows[q] = a_dense.data() + (r + q) * kc;
            pte::linalg::conv_nhwc_ukernel_scalar(std::min(pte::linalg::kConvNhwcMrScalar, mr - r), kc, kc, rows, 0,
                                                  b.data(), want.data() + r * c_rs, c_rs, nc, bias.data(),
                                                  r0 ? r0 + r * c_rs : nullptr, first, last, -0.25f, 0.5f, nullptr, 0);
          }
          // (with lines of b to request: a hint, the results the same)
          simd(mr, kc, seg, ptr.data(), 8, b.data(), got.data(), c_rs, nc, bias.data(), r0, first, last, -0.25f, 0.5f,
               reinterpret_cast<const char*>(b.data()), fl & 1 ? static_cast<int64_t>(b.size() * 4 / 64) : 0);
          CAPTURE(kc);
          CAPTURE(seg);
          CAPTURE(mr);
          CAPTURE(nc);
          CAPTURE(fl);
          for (size_t i = 0; i < want.size(); ++i) {
            const int64_t r = static_cast<int64_t>(i) / c_rs, j = static_cast<int64_t>(i) % c_rs;
            if (r >= mr || j >= nc) {
              REQUIRE(got[i] == c0[i]);  // outside the tile: untouched
            } else {
              REQUIRE(std::fabs(got[i] - want[i]) <= 2e-5f);
              if (last) REQUIRE((got[i] >= -0.25f && got[i] <= 0.5f));
            }
          }
          ++checked;
        }
    CHECK(checked == simd_mr * 8 * 8);
  }
}

TEST_CASE("conv_nhwc_f32: a kept plan is reused only for the same pixels and threads; results equal unplanned calls") {
  ConvNhwc p;
  p.H = 23, p.W = 21, p.C = 8, p.OC = 200, p.KH = 3, p.KW = 3, p.pad_top = 1, p.pad_left = 1, p.OH = 23, p.OW = 21;
  const int64_t Kc = 3 * 3 * 8;
  const auto x = seeded(static_cast<size_t>(3 * 23 * 21 * 8), 5u);
  const auto w = seeded(static_cast<size_t>(200 * Kc), 6u);
  std::vector<float> packed(pte::linalg::conv_nhwc_packed_floats(200, Kc));
  pte::linalg::conv_nhwc_pack_f32(w.data(), nullptr, 200, Kc, packed.data());
  pte::linalg::ConvNhwcPlan plan;
  struct Step {
    int64_t N;
    int threads;
  };
  const Step steps[] = {{1, 2}, {1, 2}, {3, 2}, {3, 1}, {1, 2}};
  for (const Step& st : steps) {
    p.N = st.N;
    const size_t ny = static_cast<size_t>(p.N * p.OH * p.OW * p.OC);
    std::vector<float> fresh(ny), kept(ny);
    p.plan = nullptr;
    pte::linalg::conv_nhwc_f32(st.threads, p, packed.data(), x.data(), fresh.data());
    p.plan = &plan;
    pte::linalg::conv_nhwc_f32(st.threads, p, packed.data(), x.data(), kept.data());
    CAPTURE(st.N);
    CAPTURE(st.threads);
    CHECK(plan.M == p.N * p.OH * p.OW);
    CHECK(plan.threads == st.threads);
    CHECK(plan.tm > 0);
    CHECK(std::memcmp(fresh.data(), kept.data(), ny * sizeof(float)) == 0);
  }
}

TEST_CASE("conv_nhwc_f32: NaN passes an open clamp, a closed one bounds the rest") {
  ConvNhwc p;
  p.N = 1, p.H = 2, p.W = 2, p.C = 4, p.OH = 2, p.OW = 2, p.OC = 3;
  auto x = seeded(16, 1u);
  x[0] = __builtin_nanf("");  // pixel (0, 0), channel 0
  const auto w = seeded(12, 2u);
  std::vector<float> packed(pte::linalg::conv_nhwc_packed_floats(3, 4));
  pte::linalg::conv_nhwc_pack_f32(w.data(), nullptr, 3, 4, packed.data());
  for (auto isa : {pte::linalg::ConvNhwcIsa::Scalar, pte::linalg::ConvNhwcIsa::Auto}) {
    std::vector<float> y(12);
    pte::linalg::conv_nhwc_f32(1, p, packed.data(), x.data(), y.data(), isa);
    for (int o = 0; o < 3; ++o) CHECK(std::isnan(y[static_cast<size_t>(o)]));
    for (size_t i = 3; i < 12; ++i) CHECK(std::isfinite(y[i]));
  }
}

TEST_CASE("conv_nhwc gather: every K block and pixel range against direct indexing, nothing written outside") {
  struct G {
    int64_t H, W, C, KH, KW, sh, sw, dh, dw, pt, pl, pb, pr;
  };
  const G geos[] = {
      {9, 8, 3, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},    // stem: kernel rows wider than the image edge
      {5, 6, 4, 3, 3, 1, 1, 2, 2, 4, 5, 4, 5},    // dilation, taps wholly in the padding
      {6, 5, 10, 2, 3, 1, 2, 1, 1, 0, 2, 1, 2},   // asymmetric
      {4, 4, 20, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},   // strided 1x1
  };
  for (const G& t : geos) {
    ConvNhwc p;
    p.N = 2, p.H = t.H, p.W = t.W, p.C = t.C, p.KH = t.KH, p.KW = t.KW, p.sh = t.sh, p.sw = t.sw, p.dh = t.dh,
    p.dw = t.dw, p.pad_top = t.pt, p.pad_left = t.pl;
    p.OH = out_len(t.H, t.pt, t.pb, t.KH, t.sh, t.dh), p.OW = out_len(t.W, t.pl, t.pr, t.KW, t.sw, t.dw), p.OC = 1;
    const auto x = seeded(static_cast<size_t>(p.N * t.H * t.W * t.C), 17u);
    const int64_t M = p.N * p.OH * p.OW, Kc = t.KH * t.KW * t.C;
    auto want = [&](int64_t m, int64_t r) -> float {
      const int64_t n = m / (p.OH * p.OW), oh = m % (p.OH * p.OW) / p.OW, ow = m % p.OW;
      const int64_t tap = r / t.C, c = r % t.C, kh = tap / t.KW, kw = tap % t.KW;
      const int64_t ih = oh * t.sh - t.pt + kh * t.dh, iw = ow * t.sw - t.pl + kw * t.dw;
      if (ih < 0 || ih >= t.H || iw < 0 || iw >= t.W) return 0.0f;
      return x[static_cast<size_t>(((n * t.H + ih) * t.W + iw) * t.C + c)];
    };
    int64_t checked = 0;
    for (int64_t m0 : {int64_t{0}, M / 3, M - 2})
      for (int64_t p0 = 0; p0 < Kc; p0 += 7)
        for (int64_t kc : {int64_t{1}, int64_t{5}, Kc - p0}) {
          if (p0 + kc > Kc) continue;
          const int64_t rows = std::min<int64_t>(5, M - m0), lda = kc + 3;
          std::vector<float> a(static_cast<size_t>(rows * lda + 8), -7.0f);
          pte::linalg::detail::conv_nhwc_gather(p, x.data(), m0, rows, p0, kc, a.data(), lda);
          for (int64_t q = 0; q < rows; ++q)
            for (int64_t i = 0; i < lda; ++i) {
              const float got = a[static_cast<size_t>(q * lda + i)];
              if (i < kc)
                REQUIRE(got == want(m0 + q, p0 + i));
              else
                REQUIRE(got == -7.0f);  // the row's gap: untouched
            }
          for (size_t i = static_cast<size_t>(rows * lda); i < a.size(); ++i) REQUIRE(a[i] == -7.0f);
          ++checked;
        }
    CHECK(checked > 10);
  }
}
