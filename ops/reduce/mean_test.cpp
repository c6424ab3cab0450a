#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ops/isa.h"
#include "ops/reduce/mean_rows.h"

#include "op_harness.h"

using pte::test::Harness;
using pte::BFloat16;
using pte::Dynamism;

TEST_CASE("mean.out: dims, keepdim, broadcasting-shaped keepdim output") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({2, 1});
  REQUIRE(h.call("aten::mean.out", {x, h.ints({-1}), h.b(true), h.none(), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 1});
  CHECK(Harness::values<float>(o) == std::vector<float>{2, 5});

  auto* o2 = h.out<float>({});
  REQUIRE(h.call("aten::mean.out", {x, h.none(), h.b(false), h.none(), o2}));
  CHECK(Harness::values<float>(o2)[0] == doctest::Approx(3.5));

  auto* o3 = h.out<float>({});
  REQUIRE(h.call("aten::mean.dtype_out", {x, h.i(6), o3}));
  CHECK(Harness::values<float>(o3)[0] == doctest::Approx(3.5));
}

TEST_CASE("mean.out: channels-last spatial mean (NCHW dims 2,3), dynamic out") {
  Harness h;
  // x[n][c][hh][w] = c + 10*(hh*2 + w), N=1, C=2, H=2, W=2; dim order [0,2,3,1]:
  // physical index = ((n*H + hh)*W + w)*C + c.
  std::vector<float> phys(8);
  for (int c = 0; c < 2; ++c)
    for (int hh = 0; hh < 2; ++hh)
      for (int w = 0; w < 2; ++w) phys[(hh * 2 + w) * 2 + c] = c + 10.f * (hh * 2 + w);
  auto* x = h.tensor<float>({1, 2, 2, 2}, phys, Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.out<float>({1}, 8);
  REQUIRE(h.call("aten::mean.out", {x, h.ints({-1, -2}), h.b(true), h.none(), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 2, 1, 1});
  // mean over 4 positions of c + 10*p, p=0..3 -> c + 15
  CHECK(Harness::values<float>(o) == std::vector<float>{15, 16});
}

TEST_CASE("mean.out: bf16, int input with float dtype, errors") {
  Harness h;
  auto* x = h.tensor<BFloat16>({4}, {BFloat16(1.f), BFloat16(2.f), BFloat16(3.f), BFloat16(5.f)});
  auto* o = h.out<BFloat16>({});
  REQUIRE(h.call("aten::mean.out", {x, h.ints({0}), h.b(false), h.none(), o}));
  CHECK(float(Harness::values<BFloat16>(o)[0]) == 2.75f);

  auto* xi = h.tensor<int64_t>({2, 2}, {1, 2, 3, 5});
  auto* of = h.out<float>({2});
  REQUIRE(h.call("aten::mean.out", {xi, h.ints({0}), h.b(false), h.i(6), of}));
  CHECK(Harness::values<float>(of) == std::vector<float>{2, 3.5});

  // integral out is refused
  auto* oi = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::mean.out", {xi, h.ints({0}), h.b(false), h.none(), oi}));
  CHECK(h.message.find("floating") != std::string::npos);

  // empty reduction gives NaN
  auto* e = h.tensor<float>({0, 3}, {});
  auto* oe = h.out<float>({3});
  REQUIRE(h.call("aten::mean.out", {e, h.ints({0}), h.b(false), h.none(), oe}));
  CHECK(std::isnan(Harness::values<float>(oe)[0]));
}

TEST_CASE("mean.out: float32 rows (16 at a time with AVX-512) equal the in-order reference bit for bit") {
  std::mt19937 g(21);
  std::normal_distribution<float> n;
  int checked = 0;
  for (int64_t rows : {16, 17, 40, 512}) {
    for (int64_t len : {1, 15, 16, 17, 576}) {
      std::vector<float> x(static_cast<size_t>(rows * (len + 3)));
      for (auto& v : x) v = n(g) * 100.0f;
      std::vector<float> ref(static_cast<size_t>(rows) * 2);
      pte::mean_rows_f32_ref(x.data(), rows, len + 3, len, ref.data(), 2, static_cast<float>(len));
      // the kernel as the op runs it: contiguous rows of `len`
      std::vector<float> dense(static_cast<size_t>(rows * len));
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t i = 0; i < len; ++i) dense[static_cast<size_t>(r * len + i)] = x[static_cast<size_t>(r * (len + 3) + i)];
      Harness h;
      auto* o = h.out<float>({rows, 1});
      REQUIRE(h.call("aten::mean.out", {h.tensor<float>({rows, len}, dense), h.ints({-1}), h.b(true), h.none(), o}));
      const auto got = Harness::values<float>(o);
      size_t differ = 0;
      for (int64_t r = 0; r < rows; ++r) differ += std::memcmp(&got[static_cast<size_t>(r)], &ref[static_cast<size_t>(2 * r)], 4) != 0;
      CHECK(differ == 0);
      ++checked;
    }
  }
  CHECK(checked == 20);
}

TEST_CASE("mean.out: the AVX-512 row kernel on strided rows and outputs equals the reference bit for bit" *
          doctest::skip(!pte::isa::cpu().avx512f)) {
#if defined(__x86_64__)
  std::mt19937 g(22);
  std::normal_distribution<float> n;
  for (int64_t rows : {16, 17, 40}) {
    for (int64_t len : {1, 15, 16, 17, 576}) {
      std::vector<float> x(static_cast<size_t>(rows * (len + 3)));
      for (auto& v : x) v = n(g) * 100.0f;
      std::vector<float> ref(static_cast<size_t>(rows) * 2), v(ref.size());  // odd slots stay 0 in both
      pte::mean_rows_f32_ref(x.data(), rows, len + 3, len, ref.data(), 2, static_cast<float>(len));
      pte::mean_rows_f32_avx512(x.data(), rows, len + 3, len, v.data(), 2, static_cast<float>(len));
      CAPTURE(rows);
      CAPTURE(len);
      CHECK(std::memcmp(v.data(), ref.data(), v.size() * 4) == 0);
    }
  }
#else
  FAIL("the AVX-512 kernel ran off x86-64");  // (skipped there by the decorator)
#endif
}
