#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::Half;

namespace {

bool topk(Harness& h, pte::EValue* x, int64_t k, int64_t dim, bool largest, bool sorted, pte::EValue* v,
          pte::EValue* i) {
  return h.call("aten::topk.values", {x, h.i(k), h.i(dim), h.b(largest), h.b(sorted), v, i, h.list({v, i})}, false);
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("topk.values: largest / smallest, NaN and ties (values recorded from torch.topk)") {
  Harness h;
  const float nan = NAN;
  auto* x = h.tensor<float>({8}, {1, 3, 3, 2, 3, nan, 0, nan});
  auto* v = h.out<float>({8});
  auto* i = h.out<int64_t>({8});
  // torch: values [nan, nan, 3, 3, 3, 2, 1, 0], indices [7, 5, 4, 2, 1, 3, 0, 6] (ties in
  // std::partial_sort's order); here ties keep ascending index order
  REQUIRE(topk(h, x, 8, -1, true, true, v, i));
  std::vector<float> got = Harness::values<float>(v);
  CHECK(std::isnan(got[0]));
  CHECK(std::isnan(got[1]));
  CHECK(std::vector<float>(got.begin() + 2, got.end()) == std::vector<float>{3, 3, 3, 2, 1, 0});
  CHECK(Harness::values<int64_t>(i) == std::vector<int64_t>{5, 7, 1, 2, 4, 3, 0, 6});
  // torch, largest=False: values [0, 1, 2, 3, 3, 3, nan, nan]: a NaN is the largest
  REQUIRE(topk(h, x, 8, 0, false, true, v, i));
  got = Harness::values<float>(v);
  CHECK(std::vector<float>(got.begin(), got.begin() + 6) == std::vector<float>{0, 1, 2, 3, 3, 3});
  CHECK(std::isnan(got[6]));
  CHECK(std::isnan(got[7]));
  CHECK(Harness::values<int64_t>(i) == std::vector<int64_t>{6, 0, 3, 1, 2, 4, 5, 7});
  // k = 3, smallest: torch [0, 1, 2] at [6, 0, 3]
  auto* v3 = h.out<float>({3});
  auto* i3 = h.out<int64_t>({3});
  REQUIRE(topk(h, x, 3, 0, false, true, v3, i3));
  CHECK(Harness::values<float>(v3) == std::vector<float>{0, 1, 2});
  CHECK(Harness::values<int64_t>(i3) == std::vector<int64_t>{6, 0, 3});
  // sorted=False: any order is allowed; the result is sorted all the same
  REQUIRE(topk(h, x, 3, 0, false, false, v3, i3));
  CHECK(Harness::values<int64_t>(i3) == std::vector<int64_t>{6, 0, 3});

  // torch: topk([-0., 0., -0.], 2) = [-0., 0.] at [0, 1]; topk([-inf, nan, inf], 3,
  // largest=False) = [-inf, inf, nan] at [0, 2, 1]
  auto* z = h.tensor<float>({3}, {-0.f, 0.f, -0.f});
  auto* v2 = h.out<float>({2});
  auto* i2 = h.out<int64_t>({2});
  REQUIRE(topk(h, z, 2, 0, true, true, v2, i2));
  CHECK(same_bits(Harness::values<float>(v2)[0], -0.f));
  CHECK(same_bits(Harness::values<float>(v2)[1], 0.f));
  CHECK(Harness::values<int64_t>(i2) == std::vector<int64_t>{0, 1});
  auto* w = h.tensor<float>({3}, {-INFINITY, nan, INFINITY});
  auto* vw = h.out<float>({3});
  auto* iw = h.out<int64_t>({3});
  REQUIRE(topk(h, w, 3, 0, false, true, vw, iw));
  CHECK(Harness::values<float>(vw)[0] == -INFINITY);
  CHECK(Harness::values<float>(vw)[1] == INFINITY);
  CHECK(std::isnan(Harness::values<float>(vw)[2]));
  CHECK(Harness::values<int64_t>(iw) == std::vector<int64_t>{0, 2, 1});
}

TEST_CASE("topk.values: dims, a non-contiguous input, k = 0 and k = size, dynamic outs") {
  Harness h;
  // [[4, 1, 7], [2, 9, 5]]
  auto* x = h.tensor<float>({2, 3}, {4, 1, 7, 2, 9, 5});
  auto* v = h.out<float>({2, 2});
  auto* i = h.out<int64_t>({2, 2});
  REQUIRE(topk(h, x, 2, 1, true, true, v, i));  // the MoE router's call: top-2 per row
  CHECK(Harness::values<float>(v) == std::vector<float>{7, 4, 9, 5});
  CHECK(Harness::values<int64_t>(i) == std::vector<int64_t>{2, 0, 1, 2});

  auto* v0 = h.out<float>({1, 3}, 6);
  auto* i0 = h.out<int64_t>({1, 3}, 6);
  REQUIRE(topk(h, x, 1, 0, false, true, v0, i0));  // along dim 0
  CHECK(Harness::shape(v0) == std::vector<int64_t>{1, 3});
  CHECK(Harness::values<float>(v0) == std::vector<float>{2, 1, 5});
  CHECK(Harness::values<int64_t>(i0) == std::vector<int64_t>{1, 0, 1});
  REQUIRE(topk(h, x, 2, -2, true, true, v0, i0));  // k = size, resized to [2, 3]
  CHECK(Harness::shape(i0) == std::vector<int64_t>{2, 3});
  CHECK(Harness::values<float>(v0) == std::vector<float>{4, 9, 7, 2, 1, 5});
  CHECK(Harness::values<int64_t>(i0) == std::vector<int64_t>{0, 1, 0, 1, 0, 1});

  auto* ve = h.out<float>({2, 2}, 4);
  auto* ie = h.out<int64_t>({2, 2}, 4);
  REQUIRE(topk(h, x, 0, 1, true, true, ve, ie));  // k = 0: [2, 0]
  CHECK(Harness::shape(ve) == std::vector<int64_t>{2, 0});
  CHECK(Harness::shape(ie) == std::vector<int64_t>{2, 0});

  // the same logical [[4, 1, 7], [2, 9, 5]] stored column-major (dim order [1, 0])
  auto* xn = h.tensor<float>({2, 3}, {4, 2, 1, 9, 7, 5}, Dynamism::Static, {1, 0});
  auto* vn = h.out<float>({2, 2});
  auto* in = h.out<int64_t>({2, 2});
  REQUIRE(topk(h, xn, 2, 1, false, true, vn, in));
  CHECK(Harness::values<float>(vn) == std::vector<float>{1, 4, 2, 5});
  CHECK(Harness::values<int64_t>(in) == std::vector<int64_t>{1, 0, 0, 2});

  // 3-d, middle dim
  std::vector<float> data(2 * 3 * 2);
  std::iota(data.begin(), data.end(), 0.f);  // x[a][b][c] = 6a + 2b + c
  auto* x3 = h.tensor<float>({2, 3, 2}, data);
  auto* v3 = h.out<float>({2, 1, 2});
  auto* i3 = h.out<int64_t>({2, 1, 2});
  REQUIRE(topk(h, x3, 1, 1, true, true, v3, i3));
  CHECK(Harness::values<float>(v3) == std::vector<float>{4, 5, 10, 11});
  CHECK(Harness::values<int64_t>(i3) == std::vector<int64_t>{2, 2, 2, 2});

  // 0-dim: as ATen, 0-dim outs holding the element, for k = 1 and k = 0
  auto* s = h.tensor<float>({}, {3.5f});
  auto* vs = h.out<float>({});
  auto* is = h.out<int64_t>({});
  for (int64_t k : {1, 0}) {
    REQUIRE(topk(h, s, k, -1, true, true, vs, is));
    CHECK(Harness::shape(vs).empty());
    CHECK(Harness::values<float>(vs)[0] == 3.5f);
    CHECK(Harness::values<int64_t>(is)[0] == 0);
  }
}

TEST_CASE("topk.values: integer and half dtypes") {
  Harness h;
  const int64_t big = int64_t{1} << 62;  // differences a double would lose
  auto* x = h.tensor<int64_t>({4}, {big, big + 1, -3, big - 1});
  auto* v = h.out<int64_t>({2});
  auto* i = h.out<int64_t>({2});
  REQUIRE(topk(h, x, 2, 0, true, true, v, i));
  CHECK(Harness::values<int64_t>(v) == std::vector<int64_t>{big + 1, big});
  CHECK(Harness::values<int64_t>(i) == std::vector<int64_t>{1, 0});

  // torch: topk(int32 [3, 1, 2, 9], 2) = [9, 3] at [3, 0]
  auto* xi = h.tensor<int32_t>({4}, {3, 1, 2, 9});
  auto* vi = h.out<int32_t>({2});
  REQUIRE(topk(h, xi, 2, 0, true, true, vi, i));
  CHECK(Harness::values<int32_t>(vi) == std::vector<int32_t>{9, 3});
  CHECK(Harness::values<int64_t>(i) == std::vector<int64_t>{3, 0});

  auto* xu = h.tensor<uint8_t>({3}, {200, 7, 255});
  auto* vu = h.out<uint8_t>({2});
  REQUIRE(topk(h, xu, 2, 0, false, true, vu, i));
  CHECK(Harness::values<uint8_t>(vu) == std::vector<uint8_t>{7, 200});

  auto* xh = h.tensor<Half>({3}, {Half(0.5f), Half(NAN), Half(-2.f)});
  auto* vh = h.out<Half>({2});
  REQUIRE(topk(h, xh, 2, 0, true, true, vh, i));
  CHECK(std::isnan(float(Harness::values<Half>(vh)[0])));
  CHECK(float(Harness::values<Half>(vh)[1]) == 0.5f);
  CHECK(Harness::values<int64_t>(i) == std::vector<int64_t>{1, 0});
}

TEST_CASE("topk.values: a long row (scratch memory) against a stable sort") {
  Harness h;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-50, 50);  // many ties
  const int64_t n = 1000, k = 37;
  std::vector<float> data(2 * n);
  for (auto& x : data) x = static_cast<float>(d(rng)) * 0.25f;
  auto* x = h.tensor<float>({2, n}, data);
  auto* v = h.out<float>({2, k});
  auto* i = h.out<int64_t>({2, k});
  for (bool largest : {true, false}) {
    REQUIRE(topk(h, x, k, 1, largest, true, v, i));
    for (int r = 0; r < 2; ++r) {
      std::vector<int64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      const float* row = data.data() + r * n;
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return largest ? row[a] > row[b] : row[a] < row[b]; });
      std::vector<int64_t> want(order.begin(), order.begin() + k);
      std::vector<int64_t> got = Harness::values<int64_t>(i);
      CHECK(std::vector<int64_t>(got.begin() + r * k, got.begin() + (r + 1) * k) == want);
      for (int j = 0; j < k; ++j) CHECK(Harness::values<float>(v)[r * k + j] == row[want[j]]);
    }
  }
}

TEST_CASE("topk.values: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* v = h.out<float>({2, 2});
  auto* i = h.out<int64_t>({2, 2});
  CHECK_FALSE(topk(h, x, 4, 1, true, true, v, i));
  CHECK(h.message.find("k = 4 is out of range") != std::string::npos);
  CHECK_FALSE(topk(h, x, -1, 1, true, true, v, i));
  CHECK(h.message.find("out of range") != std::string::npos);
  CHECK_FALSE(topk(h, x, 1, 2, true, true, v, i));
  CHECK(h.message.find("dim 2 out of range") != std::string::npos);
  auto* i32 = h.out<int32_t>({2, 2});
  CHECK_FALSE(topk(h, x, 2, 1, true, true, v, i32));
  CHECK(h.message.find("indices dtype must be int64") != std::string::npos);
  auto* vd = h.out<double>({2, 2});
  CHECK_FALSE(topk(h, x, 2, 1, true, true, vd, i));
  CHECK(h.message.find("values dtype") != std::string::npos);
  auto* xb = h.tensor<bool>({3}, {true, false, true});
  auto* vb = h.out<bool>({1});
  auto* ib = h.out<int64_t>({1});
  CHECK_FALSE(topk(h, xb, 1, 0, true, true, vb, ib));
  CHECK(h.message.find("unsupported dtype") != std::string::npos);
  // a static out of the wrong shape
  auto* vs = h.tensor<float>({2, 1}, {0, 0});
  auto* is = h.tensor<int64_t>({2, 1}, {0, 0});
  CHECK_FALSE(topk(h, x, 2, 1, true, true, vs, is));
}
