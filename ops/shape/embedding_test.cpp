#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::embedding.out: rows for a 2-d index tensor, f32 and f16") {
  Harness h;
  auto* w = h.tensor<float>({4, 3}, iota<float>(12));
  auto* idx = h.tensor<int64_t>({2, 2}, {3, 0, 1, 3});
  auto* o = h.out<float>({2, 2, 3});
  REQUIRE(h.call("aten::embedding.out", {w, idx, h.i(-1), h.b(false), h.b(false), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{9, 10, 11, 0, 1, 2, 3, 4, 5, 9, 10, 11});
  std::vector<Half> wh;
  for (float v : iota<float>(6, 0.5)) wh.push_back(Half(v));
  auto* w16 = h.tensor<Half>({3, 2}, wh);
  auto* o16 = h.out<Half>({2, 2});
  REQUIRE(h.call("aten::embedding.out", {w16, h.tensor<int32_t>({2}, {2, 1}), h.i(0), h.b(false), h.b(false), o16}));
  CHECK(as_float<Half>(o16) == std::vector<float>{4.5f, 5.5f, 2.5f, 3.5f});
}

TEST_CASE("aten::embedding.out: column-major weight, dynamic sequence length, bad index") {
  Harness h;
  // weight [[1,2],[3,4],[5,6]] stored column-major
  auto* w = h.tensor<float>({3, 2}, {1, 3, 5, 2, 4, 6}, Dynamism::Static, {1, 0});
  auto* o = h.out<float>({1, 8, 2}, 16);  // bound: 8 tokens
  REQUIRE(h.call("aten::embedding.out", {w, h.tensor<int64_t>({1, 3}, {2, 2, 0}), h.i(-1), h.b(false), h.b(false), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 3, 2});
  CHECK(Harness::values<float>(o) == std::vector<float>{5, 6, 5, 6, 1, 2});
  CHECK_FALSE(h.call("aten::embedding.out", {w, h.tensor<int64_t>({1}, {3}), h.i(-1), h.b(false), h.b(false), o}));
  CHECK(h.message.find("out of range") != std::string::npos);
  CHECK_FALSE(h.call("aten::embedding.out", {w, h.tensor<int64_t>({1}, {-1}), h.i(-1), h.b(false), h.b(false), o}));
  CHECK_FALSE(h.call("aten::embedding.out", {h.tensor<float>({3}, {1, 2, 3}), h.tensor<int64_t>({1}, {0}), h.i(-1), h.b(false), h.b(false), o}));
}
