#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::Half;

static const double kSm[3] = {0.09003057317038046, 0.24472847105479764, 0.6652409557748218};
static const double kLsm[3] = {-2.4076059644443806, -1.4076059644443804, -0.4076059644443804};

TEST_CASE("_softmax.out / _log_softmax.out: last dim, stable for large values") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 1001, 1002, 1003});
  auto* o = h.out<float>({2, 3});
  REQUIRE(h.call("aten::_softmax.out", {x, h.i(-1), h.b(false), o}));
  auto r = Harness::values<float>(o);
  for (int k = 0; k < 6; ++k) CHECK(r[k] == doctest::Approx(kSm[k % 3]));
  REQUIRE(h.call("aten::_log_softmax.out", {x, h.i(1), h.b(false), o}));
  r = Harness::values<float>(o);
  for (int k = 0; k < 6; ++k) CHECK(r[k] == doctest::Approx(kLsm[k % 3]));
}

TEST_CASE("_softmax.out: non-last dim on a non-contiguous input, dynamic out, -inf and NaN rows") {
  Harness h;
  // logical [[1,5],[2,5],[3,5]] ([3,2]) stored column-major; softmax over dim 0
  auto* x = h.tensor<double>({3, 2}, {1, 2, 3, 5, 5, 5}, Dynamism::Static, {1, 0});
  auto* o = h.out<double>({1}, 6);
  REQUIRE(h.call("aten::_softmax.out", {x, h.i(0), h.b(false), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 2});
  auto r = Harness::values<double>(o);
  for (int i = 0; i < 3; ++i) {
    CHECK(r[i * 2] == doctest::Approx(kSm[i]));
    CHECK(r[i * 2 + 1] == doctest::Approx(1.0 / 3));
  }
  // masked attention row: -inf entries get 0, an all -inf row is NaN (as torch)
  auto* m = h.tensor<float>({2, 2}, {0, -INFINITY, -INFINITY, -INFINITY});
  auto* om = h.out<float>({2, 2});
  REQUIRE(h.call("aten::_softmax.out", {m, h.i(1), h.b(false), om}));
  auto rm = Harness::values<float>(om);
  CHECK(rm[0] == 1.0f);
  CHECK(rm[1] == 0.0f);
  CHECK(std::isnan(rm[2]));
  CHECK(std::isnan(rm[3]));
}

TEST_CASE("_softmax.out: half, half_to_float, softmax.int_out with dtype") {
  Harness h;
  auto* x = h.tensor<Half>({3}, {Half(1.f), Half(2.f), Half(3.f)});
  auto* oh = h.out<Half>({3});
  REQUIRE(h.call("aten::_softmax.out", {x, h.i(0), h.b(false), oh}));
  auto rh = Harness::values<Half>(oh);
  for (int k = 0; k < 3; ++k) CHECK(float(rh[k]) == doctest::Approx(kSm[k]).epsilon(1e-3));
  auto* of = h.out<float>({3});
  REQUIRE(h.call("aten::_softmax.out", {x, h.i(0), h.b(true), of}));
  auto rf = Harness::values<float>(of);
  for (int k = 0; k < 3; ++k) CHECK(rf[k] == doctest::Approx(kSm[k]));
  REQUIRE(h.call("aten::log_softmax.int_out", {x, h.i(0), h.i(6), of}));
  rf = Harness::values<float>(of);
  for (int k = 0; k < 3; ++k) CHECK(rf[k] == doctest::Approx(kLsm[k]));
  REQUIRE(h.call("aten::softmax.int_out", {x, h.i(0), h.none(), oh}));
  CHECK(float(Harness::values<Half>(oh)[2]) == doctest::Approx(kSm[2]).epsilon(1e-3));
}

TEST_CASE("_softmax.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({3}, {1, 2, 3});
  auto* oh = h.out<Half>({3});
  CHECK_FALSE(h.call("aten::_softmax.out", {x, h.i(0), h.b(false), oh}));
  CHECK(h.message.find("dtype") != std::string::npos);
  auto* o = h.out<float>({3});
  CHECK_FALSE(h.call("aten::_softmax.out", {x, h.i(1), h.b(false), o}));
  auto* xi = h.tensor<int32_t>({3}, {1, 2, 3});
  CHECK_FALSE(h.call("aten::_softmax.out", {xi, h.i(0), h.b(false), o}));
}

#include <pthreadpool.h>

TEST_CASE("_softmax.out: rows split over a thread pool match a double reference") {
  Harness h;
  pthreadpool_t pool = pthreadpool_create(3);
  h.ctx.threadpool = pool;
  const int R = 97, N = 600;
  std::vector<float> v(R * N);
  for (int i = 0; i < R * N; ++i) v[i] = static_cast<float>(std::sin(i * 0.37) * 4 + (i % 7));
  auto* x = h.tensor<float>({R, N}, v);
  auto* o = h.out<float>({R, N});
  REQUIRE(h.call("aten::_softmax.out", {x, h.i(1), h.b(false), o}));
  auto r = Harness::values<float>(o);
  double worst = 0;
  for (int i = 0; i < R; ++i) {
    double m = -INFINITY, s = 0;
    for (int j = 0; j < N; ++j) m = std::max(m, static_cast<double>(v[i * N + j]));
    for (int j = 0; j < N; ++j) s += std::exp(v[i * N + j] - m);
    for (int j = 0; j < N; ++j) worst = std::max(worst, std::fabs(r[i * N + j] - std::exp(v[i * N + j] - m) / s));
  }
  CHECK(worst < 1e-6);
  h.ctx.threadpool = nullptr;
  pthreadpool_destroy(pool);
}

#include "ops/reduce/softmax_rows.h"

TEST_CASE("softmax f32 fast path: exp_f32_poly and softmax_row_f32_autovec against the scalar reference") {
  // exp over the softmax domain (x - max <= 0) and a little above
  double worst = 0;
  for (int i = 0; i <= 200000; ++i) {
    float x = -87.0f + 97.0f * static_cast<float>(i) / 200000.0f;
    double ref = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::fabs(pte::exp_f32_poly(x) - ref) / ref);
  }
  CHECK(worst < 3.6e-7);  // ~3 ulp
  CHECK(pte::exp_f32_poly(-INFINITY) == 0.0f);
  CHECK(pte::exp_f32_poly(-1000.0f) == 0.0f);
  CHECK(pte::exp_f32_poly(0.0f) == 1.0f);
  CHECK(std::isinf(pte::exp_f32_poly(INFINITY)));
  CHECK(std::isnan(pte::exp_f32_poly(NAN)));

  // rows of assorted lengths (tails of the 8-wide max), masked entries, both forms
  for (int n : {1, 3, 8, 13, 64, 1000}) {
    std::vector<float> x(n), ref(n), fast(n), lref(n), lfast(n), base(n);
    for (int i = 0; i < n; ++i) x[i] = (i % 5 == 3) ? -INFINITY : static_cast<float>(std::sin(i * 1.3) * 20);
    x[0] = 2.0f;
    pte::softmax_row<float, float, float, false>(x.data(), 1, ref.data(), 1, n);
    pte::softmax_row_f32_autovec(x.data(), fast.data(), n);
    pte::softmax_row<float, float, float, true>(x.data(), 1, lref.data(), 1, n);
    pte::log_softmax_row_f32_autovec(x.data(), lfast.data(), n);
    pte::softmax_row_f32_body<false>(x.data(), base.data(), n);  // baseline-ISA build of the same body
    for (int i = 0; i < n; ++i) {
      CHECK(fast[i] == doctest::Approx(ref[i]).epsilon(1e-6));
      CHECK(base[i] == doctest::Approx(ref[i]).epsilon(1e-6));
      if (std::isinf(x[i])) {
        CHECK(fast[i] == 0.0f);
        CHECK(std::isinf(lfast[i]));
      } else {
        CHECK(lfast[i] == doctest::Approx(lref[i]).epsilon(1e-6));
      }
    }
  }
  // all -inf, and a NaN, give NaN rows as the reference does
  std::vector<float> ninf(9, -INFINITY), withnan = {1, NAN, 2}, out(9);
  pte::softmax_row_f32_autovec(ninf.data(), out.data(), 9);
  CHECK(std::isnan(out[4]));
  pte::softmax_row_f32_autovec(withnan.data(), out.data(), 3);
  CHECK(std::isnan(out[0]));
  CHECK(std::isnan(out[2]));
}
