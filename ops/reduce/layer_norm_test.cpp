#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::BFloat16;

TEST_CASE("native_layer_norm.out: weight and bias broadcast over rows") {
  Harness h;
  auto* x = h.tensor<float>({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  auto* w = h.tensor<float>({4}, {1, 2, 1, 0.5});
  auto* b = h.tensor<float>({4}, {0, 0, 1, -1});
  auto* o = h.out<float>({2, 4});
  auto* mean = h.out<float>({2, 1});
  auto* rstd = h.out<float>({2, 1});
  REQUIRE(h.call("aten::native_layer_norm.out",
                 {x, h.ints({4}), w, b, h.d(1e-5), o, mean, rstd, h.list({o, mean, rstd})}, false));
  auto r = Harness::values<float>(o);
  const double want0[4] = {-1.3416354199689269, -0.894423613312618, 1.447211806656309, -0.32918229001553656};
  for (int k = 0; k < 4; ++k) CHECK(r[k] == doctest::Approx(want0[k]));
  // a constant row normalises to 0, leaving the bias
  for (int k = 0; k < 4; ++k) CHECK(r[4 + k] == doctest::Approx(std::vector<double>{0, 0, 1, -1}[k]));
  CHECK(Harness::values<float>(mean) == std::vector<float>{2.5, 2});
  CHECK(Harness::values<float>(rstd)[0] == doctest::Approx(0.894423613312618));
  CHECK(Harness::values<float>(rstd)[1] == doctest::Approx(316.2277660168379));
}

TEST_CASE("native_layer_norm.out: two normalized dims, no weight/bias, non-contiguous, dynamic outs") {
  Harness h;
  // logical [2,2,2] = rows [1,3,5,7] and [0,0,4,4]; stored with dim order [0,2,1]
  // (physical [i][k][j]): x[i][j][k] -> phys[i*4 + k*2 + j]
  std::vector<float> logical = {1, 3, 5, 7, 0, 0, 4, 4}, phys(8);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) phys[i * 4 + k * 2 + j] = logical[i * 4 + j * 2 + k];
  auto* x = h.tensor<float>({2, 2, 2}, phys, Dynamism::Static, {0, 2, 1});
  auto* o = h.out<float>({1}, 8);
  auto* mean = h.out<float>({1}, 2);
  auto* rstd = h.out<float>({1}, 2);
  REQUIRE(h.call("aten::native_layer_norm.out",
                 {x, h.ints({2, 2}), h.none(), h.none(), h.d(1e-5), o, mean, rstd, h.list({o, mean, rstd})}, false));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2, 2});
  CHECK(Harness::shape(mean) == std::vector<int64_t>{2, 1, 1});
  auto r = Harness::values<float>(o);
  const double want[8] = {-1.3416394448610998, -0.4472131482870333, 0.4472131482870333, 1.3416394448610998,
                          -0.9999987500023437, -0.9999987500023437, 0.9999987500023437, 0.9999987500023437};
  for (int k = 0; k < 8; ++k) CHECK(r[k] == doctest::Approx(want[k]));
  CHECK(Harness::values<float>(mean) == std::vector<float>{4, 2});
  CHECK(Harness::values<float>(rstd)[1] == doctest::Approx(0.49999937500117186));
}

TEST_CASE("native_layer_norm.out: bf16 input with f32 weight; errors") {
  Harness h;
  auto* x = h.tensor<BFloat16>({1, 2}, {BFloat16(1.f), BFloat16(3.f)});
  auto* w = h.tensor<float>({2}, {2, 2});
  auto* b = h.tensor<float>({2}, {1, 1});
  auto* o = h.out<BFloat16>({1, 2});
  auto* mean = h.out<float>({1, 1});
  auto* rstd = h.out<float>({1, 1});
  REQUIRE(h.call("aten::native_layer_norm.out", {x, h.ints({2}), w, b, h.d(0.0), o, mean, rstd, h.list({o, mean, rstd})},
                 false));
  auto r = Harness::values<BFloat16>(o);
  CHECK(float(r[0]) == -1.0f);  // (1-2)/1*2+1
  CHECK(float(r[1]) == 3.0f);
  CHECK(Harness::values<float>(rstd)[0] == 1.0f);

  CHECK_FALSE(h.call("aten::native_layer_norm.out",
                     {x, h.ints({3}), w, b, h.d(1e-5), o, mean, rstd, h.list({o, mean, rstd})}, false));
  CHECK(h.message.find("normalized_shape") != std::string::npos);
  auto* w3 = h.tensor<float>({3}, {1, 1, 1});
  CHECK_FALSE(h.call("aten::native_layer_norm.out",
                     {x, h.ints({2}), w3, h.none(), h.d(1e-5), o, mean, rstd, h.list({o, mean, rstd})}, false));
}

#include <pthreadpool.h>

TEST_CASE("native_layer_norm.out: rows split over a thread pool match a double reference") {
  Harness h;
  pthreadpool_t pool = pthreadpool_create(3);
  h.ctx.threadpool = pool;
  const int R = 61, N = 777;
  std::vector<float> v(R * N), wv(N), bv(N);
  for (int i = 0; i < R * N; ++i) v[i] = static_cast<float>(std::cos(i * 0.11) * (1 + i % 5));
  for (int j = 0; j < N; ++j) {
    wv[j] = 0.5f + (j % 3);
    bv[j] = -0.25f * (j % 4);
  }
  auto* x = h.tensor<float>({R, N}, v);
  auto* w = h.tensor<float>({N}, wv);
  auto* b = h.tensor<float>({N}, bv);
  auto* o = h.out<float>({R, N});
  auto* mean = h.out<float>({R, 1});
  auto* rstd = h.out<float>({R, 1});
  REQUIRE(h.call("aten::native_layer_norm.out", {x, h.ints({N}), w, b, h.d(1e-5), o, mean, rstd, h.list({o, mean, rstd})},
                 false));
  auto r = Harness::values<float>(o);
  auto rm = Harness::values<float>(mean);
  double worst = 0;
  for (int i = 0; i < R; ++i) {
    double s = 0, m2 = 0;
    for (int j = 0; j < N; ++j) s += v[i * N + j];
    const double mu = s / N;
    for (int j = 0; j < N; ++j) m2 += (v[i * N + j] - mu) * (v[i * N + j] - mu);
    const double rs = 1 / std::sqrt(m2 / N + 1e-5);
    CHECK(rm[i] == doctest::Approx(mu).epsilon(1e-5));
    for (int j = 0; j < N; ++j)
      worst = std::max(worst, std::fabs(r[i * N + j] - ((v[i * N + j] - mu) * rs * wv[j] + bv[j])));
  }
  CHECK(worst < 1e-4);
  h.ctx.threadpool = nullptr;
  pthreadpool_destroy(pool);
}
