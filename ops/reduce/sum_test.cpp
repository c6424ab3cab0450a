#include <doctest/doctest.h>

#include "op_harness.h"

using pte::test::Harness;
using pte::Half;
using pte::Dynamism;

TEST_CASE("sum.IntList_out: one dim, keepdim, all dims") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});

  auto* o1 = h.out<float>({2});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.ints({1}), h.b(false), h.none(), o1}));
  CHECK(Harness::shape(o1) == std::vector<int64_t>{2});
  CHECK(Harness::values<float>(o1) == std::vector<float>{6, 15});

  auto* o2 = h.out<float>({1, 3});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.ints({-2}), h.b(true), h.none(), o2}));
  CHECK(Harness::shape(o2) == std::vector<int64_t>{1, 3});
  CHECK(Harness::values<float>(o2) == std::vector<float>{5, 7, 9});

  // dim=None and dim=[] both reduce everything.
  auto* o3 = h.out<float>({});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.none(), h.b(false), h.none(), o3}));
  CHECK(Harness::shape(o3).empty());
  CHECK(Harness::values<float>(o3)[0] == 21.0f);
  auto* o4 = h.out<float>({1, 1});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.ints({}), h.b(true), h.none(), o4}));
  CHECK(Harness::shape(o4) == std::vector<int64_t>{1, 1});
  CHECK(Harness::values<float>(o4)[0] == 21.0f);

  auto* o5 = h.out<float>({});
  REQUIRE(h.call("aten::sum.out", {x, h.none(), o5}));
  CHECK(Harness::values<float>(o5)[0] == 21.0f);
}

TEST_CASE("sum.IntList_out: several dims, int32 -> int64, dtype argument") {
  Harness h;
  std::vector<int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;  // [2,3,4]
  auto* x = h.tensor<int32_t>({2, 3, 4}, v);
  auto* o = h.out<int64_t>({3});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.ints({0, 2}), h.b(false), h.i(4) /*Long*/, o}));
  // sum over i,k of i*12 + j*4 + k = 4*12 + 8*j*4/... computed: 8 terms: i in{0,1}, k in 0..3
  // j=0: (0+1+2+3)+(12+13+14+15) = 60; j=1: 60+32 = 92; j=2: 124
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{60, 92, 124});

  // dtype argument that disagrees with out
  auto* bad = h.out<int64_t>({3});
  CHECK_FALSE(h.call("aten::sum.IntList_out", {x, h.ints({0, 2}), h.b(false), h.i(6) /*Float*/, bad}));
  CHECK(h.message.find("dtype") != std::string::npos);
}

TEST_CASE("sum.IntList_out: non-contiguous input (dim order 0,2,1)") {
  Harness h;
  // Logical x[i][j][k] = 100i + 10j + k, sizes [2,3,4], stored with dim order [0,2,1]:
  // physical index = i*12 + k*3 + j.
  std::vector<float> phys(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) phys[i * 12 + k * 3 + j] = 100.f * i + 10.f * j + k;
  auto* x = h.tensor<float>({2, 3, 4}, phys, Dynamism::Static, {0, 2, 1});
  auto* o = h.out<float>({2, 4});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.ints({1}), h.b(false), h.none(), o}));
  std::vector<float> want;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) want.push_back(300.f * i + 30.f + 3.f * k);
  CHECK(Harness::values<float>(o) == want);

  auto* o2 = h.out<float>({3});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.ints({0, 2}), h.b(false), h.none(), o2}));
  // sum over i,k: 4*(0+100) + 8*10j + 2*(0+1+2+3) = 400 + 80j + 12
  CHECK(Harness::values<float>(o2) == std::vector<float>{412, 492, 572});
}

TEST_CASE("sum.IntList_out: dynamic output resized, half input, empty reduction") {
  Harness h;
  auto* x = h.tensor<Half>({3, 2}, {Half(0.5f), Half(1.5f), Half(2.f), Half(-1.f), Half(4.f), Half(0.25f)});
  auto* o = h.out<Half>({1}, 16);  // bound 16 elements, starts as [1]
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.ints({1}), h.b(false), h.none(), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3});
  auto r = Harness::values<Half>(o);
  CHECK(float(r[0]) == 2.0f);
  CHECK(float(r[1]) == 1.0f);
  CHECK(float(r[2]) == 4.25f);

  // a zero-size reduced dim sums to 0
  auto* e = h.tensor<float>({2, 0}, {});
  auto* oe = h.out<float>({2});
  REQUIRE(h.call("aten::sum.IntList_out", {e, h.ints({1}), h.b(false), h.none(), oe}));
  CHECK(Harness::values<float>(oe) == std::vector<float>{0, 0});

  // bool input counts trues into int64
  auto* bx = h.tensor<bool>({4}, {true, false, true, true});
  auto* bo = h.out<int64_t>({});
  REQUIRE(h.call("aten::sum.IntList_out", {bx, h.none(), h.b(false), h.none(), bo}));
  CHECK(Harness::values<int64_t>(bo)[0] == 3);
}

TEST_CASE("sum.IntList_out: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({2});
  CHECK_FALSE(h.call("aten::sum.IntList_out", {x, h.ints({2}), h.b(false), h.none(), o}));
  CHECK(h.message.find("out of range") != std::string::npos);
  CHECK_FALSE(h.call("aten::sum.IntList_out", {x, h.ints({1, -1}), h.b(false), h.none(), o}));
  CHECK(h.message.find("more than once") != std::string::npos);
  // static out of the wrong shape cannot be resized
  auto* so = h.tensor<float>({3}, {0, 0, 0});
  CHECK_FALSE(h.call("aten::sum.IntList_out", {x, h.ints({1}), h.b(false), h.none(), so}));
  CHECK(h.message.find("resize") != std::string::npos);
}

#include <pthreadpool.h>

TEST_CASE("sum/mean: thread pool rows and the column (outer-dim) path match a double reference") {
  Harness h;
  pthreadpool_t pool = pthreadpool_create(3);
  h.ctx.threadpool = pool;
  const int A = 3, S = 130, D = 150;  // [A, S, D]
  std::vector<float> v(A * S * D);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 1000) / 100.0f - 5.0f;
  auto* x = h.tensor<float>({A, S, D}, v);
  // rows: mean over the last dim
  auto* o1 = h.out<float>({A, S});
  REQUIRE(h.call("aten::mean.out", {x, h.ints({2}), h.b(false), h.none(), o1}));
  auto r1 = Harness::values<float>(o1);
  for (int a = 0; a < A; ++a)
    for (int s = 0; s < S; ++s) {
      double acc = 0;
      for (int d = 0; d < D; ++d) acc += v[(a * S + s) * D + d];
      CHECK(r1[a * S + s] == doctest::Approx(acc / D).epsilon(1e-6));
    }
  // columns: sum over the middle dim (tiles of 64 along D, 150 = 2 full tiles + 22)
  auto* o2 = h.out<float>({A, D});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.ints({1}), h.b(false), h.none(), o2}));
  auto r2 = Harness::values<float>(o2);
  for (int a = 0; a < A; ++a)
    for (int d = 0; d < D; ++d) {
      double acc = 0;
      for (int s = 0; s < S; ++s) acc += v[(a * S + s) * D + d];
      CHECK(r2[a * D + d] == doctest::Approx(acc).epsilon(1e-6));
    }
  h.ctx.threadpool = nullptr;
  pthreadpool_destroy(pool);
}
