// Tests for the XNNPACK-compatible approximations (xnn_math.h): accuracy against
// libm over wide ranges, special values, and the ISA path equal to a lane-by-lane
// re-run (tails, odd lengths). Bit-equality with the official runtime is checked on
// whole programs (the qlinear_*_xnnpack conformance cases, SmolLM2 via
// scripts/et_intermediates.py).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "interpreter/xnnpack/xnn_math.h"

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
  if (__builtin_cpu_supports("avx"))
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
