// Tests for the XNNPACK-compatible approximations (xnn_math.h): accuracy against
// libm over wide ranges, special values, every ISA form (AVX-512F, AVX2+FMA3 where this
// CPU runs it) equal bit for bit to the portable lane-by-lane emulation of XNNPACK's
// kernel, tails and odd lengths. Bit-equality with the official runtime is checked on
// whole programs: the conformance cases listed in tests/conformance_test.cpp
// (xnode_transcendental_f32_xnnpack, xnode_misc_f32_xnnpack, the qlinear_*_xnnpack ones),
// scripts/xnn_sweep.py (65536 inputs per op), SmolLM2 via scripts/et_intermediates.py.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ops/isa.h"
#include "ops/xnn_math/xnn_math.h"

using namespace pte;

namespace {

std::vector<float> spread(float lo, float hi, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  return v;
}

}  // namespace

TEST_CASE("xnn_math: rsqrt within 1e-6 of 1/sqrt, inf -> 0, odd lengths") {
  std::vector<float> x = spread(1e-6f, 1e6f, 1003, 1);
  for (int e = -30; e <= 30; ++e) x.push_back(std::ldexp(1.0f, e));
  std::vector<float> y(x.size());
  xnn::rsqrt_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(y[i] * std::sqrt(double(x[i])) - 1.0));
  MESSAGE("rsqrt worst relative error " << worst);
  CHECK(worst < 1e-6);
  float sp[3] = {std::numeric_limits<float>::infinity(), 0.0f, 4.0f}, so[3];
  xnn::rsqrt_f32(sp, so, 3);
  CHECK(so[0] == 0.0f);
  // 0: the estimate is inf and the Newton step computes 0 * inf: NaN, as XNNPACK's
  // kernel does (it special-cases only +inf); the scalar form gives inf
  if (pte::isa::cpu().avx)
    CHECK(std::isnan(so[1]));
  else
    CHECK(std::isinf(so[1]));
  CHECK(so[2] == doctest::Approx(0.5f).epsilon(1e-6));
  // every length (masked tails) gives the same value per element as one long call
  for (int n = 1; n <= 33; ++n) {
    std::vector<float> yn(static_cast<size_t>(n));
    xnn::rsqrt_f32(x.data(), yn.data(), n);
    for (int i = 0; i < n; ++i) CHECK(yn[i] == y[i]);
  }
}

TEST_CASE("xnn_math: sqrt (XNNPACK's rsqrt-based kernel) within 2 ulp, +-0 kept, odd lengths") {
  std::vector<float> x = spread(1e-6f, 1e6f, 1003, 4);
  for (int e = -40; e <= 40; ++e) x.push_back(std::ldexp(1.0f, e));
  std::vector<float> y(x.size());
  xnn::sqrt_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(y[i] / std::sqrt(double(x[i])) - 1.0));
  MESSAGE("sqrt worst relative error " << worst);
  CHECK(worst < 2.5e-7);
  if (pte::isa::cpu().avx)
    CHECK(worst > 0);  // an approximation, not the correctly rounded sqrt
  else
    MESSAGE("sqrt: no AVX on this CPU: the correctly rounded std::sqrt runs (XNNPACK's rsqrt-based x86 kernel holds on AVX / AVX-512F only)");
  float sp[3] = {0.0f, -0.0f, 4.0f}, so[3];
  xnn::sqrt_f32(sp, so, 3);
  CHECK(so[0] == 0.0f);
  CHECK(std::signbit(so[1]));
  CHECK(so[2] == doctest::Approx(2.0f).epsilon(1e-6));
  for (int n = 1; n <= 33; ++n) {
    std::vector<float> yn(static_cast<size_t>(n));
    xnn::sqrt_f32(x.data(), yn.data(), n);
    for (int i = 0; i < n; ++i) CHECK(yn[i] == y[i]);
  }
}

TEST_CASE("xnn_math: sigmoid within 2e-7 of the exact value, saturation, mirrored for x >= 0") {
  std::vector<float> x = spread(-30.0f, 30.0f, 2001, 2);
  x.push_back(0.0f), x.push_back(-0.0f), x.push_back(88.0f), x.push_back(-88.0f), x.push_back(-104.0f);
  std::vector<float> y(x.size());
  xnn::sigmoid_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(y[i] - 1.0 / (1.0 + std::exp(-double(x[i])))));
  MESSAGE("sigmoid worst absolute error " << worst);
  CHECK(worst < 2e-7);
  float sp[4] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), 0.0f, 1000.0f}, so[4];
  xnn::sigmoid_f32(sp, so, 4);
  CHECK(so[0] == 1.0f);
  CHECK(so[1] == 0.0f);
  CHECK(so[2] == 0.5f);
  CHECK(so[3] == 1.0f);
  for (int n = 1; n <= 20; ++n) {
    std::vector<float> yn(static_cast<size_t>(n));
    xnn::sigmoid_f32(x.data(), yn.data(), n);
    for (int i = 0; i < n; ++i) CHECK(yn[i] == y[i]);
  }
}

TEST_CASE("xnn_math: sin and cos within 2e-6 of libm over [-1000, 1000]") {
  std::vector<float> x = spread(-1000.0f, 1000.0f, 3001, 3);
  for (float v : {0.0f, 1.5707964f, 3.1415927f, -3.1415927f, 6.2831855f}) x.push_back(v);
  std::vector<float> s(x.size()), c(x.size());
  xnn::sin_f32(x.data(), s.data(), static_cast<int64_t>(x.size()));
  xnn::cos_f32(x.data(), c.data(), static_cast<int64_t>(x.size()));
  double ws = 0, wc = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    ws = std::max(ws, std::fabs(s[i] - std::sin(double(x[i]))));
    wc = std::max(wc, std::fabs(c[i] - std::cos(double(x[i]))));
  }
  MESSAGE("sin worst " << ws << ", cos worst " << wc);
  CHECK(ws < 2e-6);
  CHECK(wc < 2e-6);
  float z = 0.0f, zs, zc;
  xnn::sin_f32(&z, &zs, 1);
  xnn::cos_f32(&z, &zc, 1);
  CHECK(zs == 0.0f);
  CHECK(zc == doctest::Approx(1.0f).epsilon(1e-7));
}

// ---- exp, tanh, gelu, log, hardswish, sigmoid (AVX2), softmax: XNNPACK's kernels ----

namespace {

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, 4) == 0 || (std::isnan(a) && std::isnan(b));
}

// Wide inputs plus the special values: signed zeros, infinities, NaN, denormals, the
// clamp points of the rational approximations and their neighbours.
std::vector<float> unary_inputs(xnn::Fn f) {
  std::vector<float> x = spread(-20.0f, 20.0f, 3000, 11);
  std::vector<float> s = spread(-3.0f, 3.0f, 3000, 12);
  x.insert(x.end(), s.begin(), s.end());
  if (f == xnn::Fn::kLog)
    for (float& v : x) v = std::exp(v * 4.0f);  // (1e-35, 1e35)
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (float v : {0.0f, -0.0f, inf, -inf, nan, 1e-40f, -1e-40f, 1e-45f, 1.17549435e-38f, 3e38f, -3e38f, 88.7f, -88.7f,
                  89.0f, -104.0f, 7.9807181358f, -7.9807181358f, 5.1638283730f, -5.1638283730f, 3.0f, -3.0f, 0.5f, 1.0f})
    x.push_back(v);
  return x;
}

double reference(xnn::Fn f, double v) {
  switch (f) {
    case xnn::Fn::kExp: return std::exp(v);
    case xnn::Fn::kTanh: return std::tanh(v);
    case xnn::Fn::kGelu: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case xnn::Fn::kLog: return std::log(v);
    case xnn::Fn::kHardswish: return v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0;
    case xnn::Fn::kSigmoid: return 1.0 / (1.0 + std::exp(-v));
  }
  return 0;
}

const xnn::Fn kFns[] = {xnn::Fn::kExp, xnn::Fn::kTanh, xnn::Fn::kGelu, xnn::Fn::kLog, xnn::Fn::kHardswish, xnn::Fn::kSigmoid};
const xnn::Isa kIsas[] = {xnn::Isa::kAvx512, xnn::Isa::kAvx2Fma, xnn::Isa::kAvx, xnn::Isa::kSse2, xnn::Isa::kNeonFma};

}  // namespace

TEST_CASE("xnn_math: each ISA form equals the lane-by-lane emulation of XNNPACK's kernel, bit for bit") {
  MESSAGE("this CPU: XNNPACK picks the " << std::string(xnn::isa_name(xnn::detected_isa())) << " kernels");
  int compared = 0;
  for (xnn::Isa isa : kIsas) {
    if (!xnn::cpu_runs(isa)) continue;
    for (xnn::Fn f : kFns) {
      if (f == xnn::Fn::kSigmoid && (isa == xnn::Isa::kAvx || isa == xnn::Isa::kSse2)) continue;  // not reproduced
      INFO(std::string(xnn::fn_name(f)) << " on " << std::string(xnn::isa_name(isa)));
      const std::vector<float> x = unary_inputs(f);
      const int64_t n = static_cast<int64_t>(x.size());
      std::vector<float> y(x.size()), e(x.size());
      xnn::unary_f32_isa(f, isa, x.data(), y.data(), n);
      xnn::unary_f32_emulated(f, isa, x.data(), e.data(), n);
      // the generic forms (AVX, SSE2: no XNNPACK bits promised) give log's IEEE values for
      // +inf and NaN where the emulated kernel's exponent trick gives finite ones
      const bool generic_log =
          f == xnn::Fn::kLog && (isa == xnn::Isa::kAvx || isa == xnn::Isa::kSse2 || isa == xnn::Isa::kNeonFma);
      int bad = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        if (generic_log && (std::isnan(x[i]) || x[i] == std::numeric_limits<float>::infinity())) {
          CHECK(same_bits(y[i], x[i] + x[i]));
          continue;
        }
        if (!same_bits(y[i], e[i]) && bad++ < 3) MESSAGE("x " << x[i] << ": simd " << y[i] << ", emulation " << e[i]);
      }
      CHECK(bad == 0);
      // tails: every short length gives the per-element values of the long call
      for (int len = 1; len <= 37; ++len) {
        std::vector<float> yl(static_cast<size_t>(len));
        xnn::unary_f32_isa(f, isa, x.data() + 5, yl.data(), len);
        for (int i = 0; i < len; ++i) CHECK(same_bits(yl[i], y[i + 5]));
      }
      ++compared;
    }
  }
  CHECK(compared >= 5);
}

TEST_CASE("xnn_math: XNNPACK's exp, tanh, gelu, log, hardswish, sigmoid are accurate approximations") {
  // the emulations of the FMA kernels (what XNNPACK runs on AVX-512 and AVX2 machines)
  for (xnn::Isa isa : {xnn::Isa::kAvx512, xnn::Isa::kAvx2Fma, xnn::Isa::kSse2}) {
    for (xnn::Fn f : kFns) {
      if (f == xnn::Fn::kSigmoid && isa == xnn::Isa::kSse2) continue;
      INFO(std::string(xnn::fn_name(f)) << " on " << std::string(xnn::isa_name(isa)));
      std::vector<float> x = unary_inputs(f);
      x.resize(6000);  // the finite spread only
      std::vector<float> y(x.size());
      xnn::unary_f32_emulated(f, isa, x.data(), y.data(), static_cast<int64_t>(x.size()));
      double worst = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const double r = reference(f, x[i]);
        const double err = std::fabs(y[i] - r) / std::max(1.0, std::fabs(r));  // relative above 1, absolute below
        worst = std::max(worst, f == xnn::Fn::kExp ? std::fabs(y[i] - r) / r : err);
      }
      MESSAGE(std::string(xnn::fn_name(f)) << " (" << std::string(xnn::isa_name(isa)) << ") worst error " << worst);
      CHECK(worst < 2e-6);
    }
  }
  // special values on this CPU's form
  const float inf = std::numeric_limits<float>::infinity();
  float in[4] = {0.0f, -inf, inf, 1e-40f}, out[4];
  xnn::exp_f32(in, out, 3);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == 0.0f);
  CHECK(out[2] == inf);
  xnn::log_f32(in, out, 4);
  CHECK(out[0] == -inf);
  CHECK(std::isnan(out[1]));
  if (xnn::detected_isa() == xnn::Isa::kAvx2Fma) {
    // XNNPACK's AVX2 kernel reads +inf's exponent field as 128 (its bit trick): reproduced
    MESSAGE("log(+inf) on AVX2+FMA is XNNPACK's " << out[2] << " (its exponent trick); +inf on the other ISAs");
    CHECK(std::isfinite(out[2]));
  } else {
    CHECK(out[2] == inf);
  }
  CHECK(out[3] == -inf);  // a denormal is zero to XNNPACK (DAZ)
  const float nan_in = std::numeric_limits<float>::quiet_NaN();
  float nan_out = 0.0f;
  xnn::log_f32(&nan_in, &nan_out, 1);
  if (xnn::detected_isa() != xnn::Isa::kAvx2Fma) CHECK(std::isnan(nan_out));
  xnn::tanh_f32(in, out, 3);
  CHECK(out[0] == 0.0f);
  CHECK(out[1] == -1.0f);
  CHECK(out[2] == 1.0f);
  float hs[3] = {-3.0f, 3.0f, 1.0f}, ho[3];
  xnn::hardswish_f32(hs, ho, 3);
  CHECK(ho[0] == 0.0f);  // -3 * max(0, -3/6 + 1/2) = -0 or 0
  CHECK(ho[1] == 3.0f);
  CHECK(ho[2] == doctest::Approx(2.0f / 3.0f).epsilon(1e-7));
}

TEST_CASE("xnn_math: softmax rows equal XNNPACK's accumulation order, sum to 1") {
  for (xnn::Isa isa : kIsas) {
    if (!xnn::cpu_runs(isa) || isa == xnn::Isa::kAvx || isa == xnn::Isa::kSse2) continue;
    INFO("softmax on " << std::string(xnn::isa_name(isa)));
    for (int n : {1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 576}) {
      std::vector<float> x = spread(-12.0f, 12.0f, n, static_cast<unsigned>(n));
      std::vector<float> y(x.size()), e(x.size());
      xnn::softmax_f32_isa(isa, x.data(), y.data(), n);
      xnn::softmax_f32_emulated(isa, x.data(), e.data(), n);
      double sum = 0, worst = 0, mx = *std::max_element(x.begin(), x.end()), den = 0;
      for (int i = 0; i < n; ++i) den += std::exp(double(x[i]) - mx);
      for (int i = 0; i < n; ++i) {
        CHECK(same_bits(y[i], e[i]));
        sum += y[i];
        worst = std::max(worst, std::fabs(y[i] - std::exp(double(x[i]) - mx) / den));
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
      CHECK(worst < 1e-6);
    }
  }
  // a softmax row of -inf and one finite value; the denormal cutoff gives exact zeros
  float x[3] = {-std::numeric_limits<float>::infinity(), 2.0f, -200.0f}, y[3];
  xnn::softmax_f32(x, y, 3);
  CHECK(y[0] == 0.0f);
  CHECK(y[1] == 1.0f);
  CHECK(y[2] == 0.0f);
}
