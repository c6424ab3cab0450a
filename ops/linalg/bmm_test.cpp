#include <doctest/doctest.h>

#include "tests/op_harness.h"

using pte::test::Harness;

TEST_CASE("bmm.out: f32 two batches, resized output") {
  Harness h;
  // batch 0: [[1,2]] @ [[1,0],[0,1]] = [[1,2]]; batch 1: [[3,4]] @ [[2,1],[1,2]] = [[10,11]]
  auto* a = h.tensor<float>({2, 1, 2}, {1, 2, 3, 4});
  auto* b = h.tensor<float>({2, 2, 2}, {1, 0, 0, 1, 2, 1, 1, 2});
  auto* out = h.out<float>({3, 3, 3});
  REQUIRE(h.call("aten::bmm.out", {a, b, out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{2, 1, 2});
  CHECK(Harness::values<float>(out) == std::vector<float>{1, 2, 10, 11});
}

TEST_CASE("bmm.out: non-contiguous mat2 (k-major transposed per batch) and int32") {
  Harness h;
  // logical b[n] = [[1,2],[3,4]] and [[5,6],[7,8]], stored with dim_order [0,2,1]
  auto* a = h.tensor<float>({2, 2, 2}, {1, 0, 0, 1, 1, 1, 0, 2});
  auto* b = h.tensor<float>({2, 2, 2}, {1, 3, 2, 4, 5, 7, 6, 8}, pte::Dynamism::Static, {0, 2, 1});
  auto* out = h.out<float>({2, 2, 2});
  REQUIRE(h.call("aten::bmm.out", {a, b, out}));
  // batch0: identity @ b0 = [[1,2],[3,4]]; batch1: [[1,1],[0,2]] @ [[5,6],[7,8]] = [[12,14],[14,16]]
  CHECK(Harness::values<float>(out) == std::vector<float>{1, 2, 3, 4, 12, 14, 14, 16});

  auto* ia = h.tensor<int32_t>({1, 1, 3}, {1, -2, 3});
  auto* ib = h.tensor<int32_t>({1, 3, 1}, {4, 5, 6});
  auto* iout = h.out<int32_t>({1, 1, 1});
  REQUIRE(h.call("aten::bmm.out", {ia, ib, iout}));
  CHECK(Harness::values<int32_t>(iout) == std::vector<int32_t>{12});
}

TEST_CASE("bmm.out: errors") {
  Harness h;
  auto* a = h.tensor<float>({2, 1, 2}, {1, 2, 3, 4});
  auto* b = h.tensor<float>({3, 2, 2}, std::vector<float>(12, 1));
  auto* out = h.out<float>({2, 1, 2});
  CHECK_FALSE(h.call("aten::bmm.out", {a, b, out}));
  CHECK(h.message.find("cannot be multiplied") != std::string::npos);
  auto* b2 = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  CHECK_FALSE(h.call("aten::bmm.out", {a, b2, out}));
  CHECK(h.message.find("3-D") != std::string::npos);
}
