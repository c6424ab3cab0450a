#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::permute_copy.out: 3-d permutation, f32 and bf16") {
  Harness h;
  // x[i,j,k] = 100i + 10j + k, shape [2,3,2]
  std::vector<float> xv;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) xv.push_back(100 * i + 10 * j + k);
  auto* x = h.tensor<float>({2, 3, 2}, xv);
  auto* o = h.out<float>({2, 2, 3});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.ints({2, 0, -2}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2, 3});
  // out[k,i,j] = x[i,j,k]
  std::vector<float> want;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(100 * i + 10 * j + k);
  CHECK(Harness::values<float>(o) == want);

  std::vector<BFloat16> xb(xv.begin(), xv.end());
  auto* b = h.tensor<BFloat16>({2, 3, 2}, xb);
  auto* ob = h.out<BFloat16>({2, 2, 3});
  REQUIRE(h.call("aten::permute_copy.out", {b, h.ints({2, 0, 1}), ob}));
  CHECK(as_float<BFloat16>(ob) == want);
}

TEST_CASE("aten::permute_copy.out: NCHW -> NHWC of a channels-last input is a plain copy of its memory") {
  Harness h;
  // logical x[0,c,h,w] = 100c + 10h + w, stored channels-last (memory order h, w, c)
  auto* x = h.tensor<int64_t>({1, 2, 2, 2}, {0, 100, 1, 101, 10, 110, 11, 111}, Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.out<int64_t>({1, 2, 2, 2});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.ints({0, 2, 3, 1}), o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{0, 100, 1, 101, 10, 110, 11, 111});
}

TEST_CASE("aten::permute_copy.out: dynamic output and errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({4, 4}, 16);
  REQUIRE(h.call("aten::permute_copy.out", {x, h.ints({1, 0}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 2});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK_FALSE(h.call("aten::permute_copy.out", {x, h.ints({0, 0}), h.out<float>({2, 3})}));
  CHECK(h.message.find("repeated") != std::string::npos);
  CHECK_FALSE(h.call("aten::permute_copy.out", {x, h.ints({0}), h.out<float>({2, 3})}));
  CHECK_FALSE(h.call("aten::permute_copy.out", {x, h.ints({0, 2}), h.out<float>({2, 3})}));
}
