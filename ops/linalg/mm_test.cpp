#include <doctest/doctest.h>

#include <cmath>

#include "tests/op_harness.h"

using pte::test::Harness;
using pte::BFloat16;
using pte::Half;

TEST_CASE("mm.out: f32 hand-computed, resized dynamic output") {
  Harness h;
  auto* a = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* b = h.tensor<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  auto* out = h.out<float>({4, 4});  // capacity 16, resized to [2,2]
  REQUIRE(h.call("aten::mm.out", {a, b, out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{2, 2});
  CHECK(Harness::values<float>(out) == std::vector<float>{58, 64, 139, 154});
}

TEST_CASE("mm.out: transposed (dim_order [1,0]) operands") {
  Harness h;
  // logical a = [[1,2,3],[4,5,6]] stored column-major
  auto* a = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, pte::Dynamism::Static, {1, 0});
  // logical b = [[7,8],[9,10],[11,12]] stored column-major
  auto* b = h.tensor<float>({3, 2}, {7, 9, 11, 8, 10, 12}, pte::Dynamism::Static, {1, 0});
  auto* out = h.out<float>({2, 2});
  REQUIRE(h.call("aten::mm.out", {a, b, out}));
  CHECK(Harness::values<float>(out) == std::vector<float>{58, 64, 139, 154});
}

TEST_CASE("mm.out: int64, f64, bf16 and f16") {
  Harness h;
  auto* a = h.tensor<int64_t>({1, 2}, {3, -4});
  auto* b = h.tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* out = h.out<int64_t>({1, 3});
  REQUIRE(h.call("aten::mm.out", {a, b, out}));
  CHECK(Harness::values<int64_t>(out) == std::vector<int64_t>{-13, -14, -15});

  auto* da = h.tensor<double>({2, 2}, {0.5, 0.25, 1, 2});
  auto* db = h.tensor<double>({2, 1}, {4, 8});
  auto* dout = h.out<double>({2, 1});
  REQUIRE(h.call("aten::mm.out", {da, db, dout}));
  CHECK(Harness::values<double>(dout) == std::vector<double>{4, 20});

  // bf16: 1.5*2 + 0.5*3 = 4.5 exactly; 1.5*[-1] + 0.5*4 = 0.5
  auto* ba = h.tensor<BFloat16>({1, 2}, {BFloat16(1.5f), BFloat16(0.5f)});
  auto* bb = h.tensor<BFloat16>({2, 2}, {BFloat16(2.f), BFloat16(-1.f), BFloat16(3.f), BFloat16(4.f)});
  auto* bout = h.out<BFloat16>({1, 2});
  REQUIRE(h.call("aten::mm.out", {ba, bb, bout}));
  auto bv = Harness::values<BFloat16>(bout);
  CHECK(float(bv[0]) == 4.5f);
  CHECK(float(bv[1]) == 0.5f);

  auto* ha = h.tensor<Half>({2, 1}, {Half(0.5f), Half(-2.f)});
  auto* hb = h.tensor<Half>({1, 2}, {Half(3.f), Half(0.25f)});
  auto* hout = h.out<Half>({2, 2});
  REQUIRE(h.call("aten::mm.out", {ha, hb, hout}));
  auto hv = Harness::values<Half>(hout);
  CHECK(float(hv[0]) == 1.5f);
  CHECK(float(hv[1]) == 0.125f);
  CHECK(float(hv[2]) == -6.f);
  CHECK(float(hv[3]) == -0.5f);
}

TEST_CASE("mm.out: larger f32 product against a double-precision loop") {
  Harness h;
  const int M = 37, K = 70, N = 45;
  std::vector<float> av(M * K), bv(K * N);
  for (int i = 0; i < M * K; ++i) av[i] = std::sin(0.37f * i);
  for (int i = 0; i < K * N; ++i) bv[i] = std::cos(0.11f * i);
  auto* a = h.tensor<float>({M, K}, av);
  auto* b = h.tensor<float>({K, N}, bv);
  auto* out = h.out<float>({M, N});
  REQUIRE(h.call("aten::mm.out", {a, b, out}));
  auto got = Harness::values<float>(out);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(av[i * K + k]) * bv[k * N + j];
      REQUIRE(std::fabs(got[i * N + j] - s) < 1e-4);
    }
}

TEST_CASE("mm.out: errors") {
  Harness h;
  auto* a = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* b = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* out = h.out<float>({2, 2});
  CHECK_FALSE(h.call("aten::mm.out", {a, b, out}));
  CHECK(h.message.find("cannot be multiplied") != std::string::npos);
  auto* bi = h.tensor<int64_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  CHECK_FALSE(h.call("aten::mm.out", {a, bi, out}));
  CHECK(h.message.find("dtypes differ") != std::string::npos);
  auto* small = h.tensor<float>({1, 1}, {0}, pte::Dynamism::Static);
  auto* b2 = h.tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  CHECK_FALSE(h.call("aten::mm.out", {a, b2, small}));
  CHECK(h.message.find("cannot resize") != std::string::npos);
}
