#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::view_copy.out: reshape with an inferred dim, f32 and i64") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({3, 2});
  REQUIRE(h.call("aten::view_copy.out", {x, h.ints({3, -1}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 2});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 4, 5, 6});

  auto* xi = h.tensor<int64_t>({4}, {10, -20, 30, -40});
  auto* oi = h.out<int64_t>({2, 1, 2});
  REQUIRE(h.call("aten::view_copy.out", {xi, h.ints({-1, 1, 2}), oi}));
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{10, -20, 30, -40});
}

TEST_CASE("aten::view_copy.out: non-contiguous input and output keep logical order") {
  Harness h;
  // logical [[1,2,3],[4,5,6]] stored column-major (dim_order [1,0])
  auto* x = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});
  auto* o = h.out<float>({6});
  REQUIRE(h.call("aten::view_copy.out", {x, h.ints({6}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 4, 5, 6});

  // contiguous input into a column-major [3,2] output: logical [[1,2],[3,4],[5,6]]
  auto* c = h.tensor<float>({6}, {1, 2, 3, 4, 5, 6});
  auto* oc = h.tensor<float>({3, 2}, std::vector<float>(6), Dynamism::Static, {1, 0});
  REQUIRE(h.call("aten::view_copy.out", {c, h.ints({3, 2}), oc}));
  CHECK(Harness::values<float>(oc) == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(raw<float>(oc) == std::vector<float>{1, 3, 5, 2, 4, 6});

  // both permuted: channels-last [1,2,2,2] -> column-major [4,2]
  // logical x[0,c,h,w] = 100c + 10h + w; NHWC memory order is (h, w, c)
  auto* cl = h.tensor<int32_t>({1, 2, 2, 2}, {0, 100, 1, 101, 10, 110, 11, 111}, Dynamism::Static, {0, 2, 3, 1});
  auto* ocm = h.tensor<int32_t>({4, 2}, std::vector<int32_t>(8), Dynamism::Static, {1, 0});
  REQUIRE(h.call("aten::view_copy.out", {cl, h.ints({4, 2}), ocm}));
  CHECK(Harness::values<int32_t>(ocm) == std::vector<int32_t>{0, 1, 10, 11, 100, 101, 110, 111});
}

TEST_CASE("aten::view_copy.out: dynamic output is resized within its capacity") {
  Harness h;
  auto* x = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* o = h.out<float>({2, 6}, 12);  // upper bound [2,6]
  REQUIRE(h.call("aten::view_copy.out", {x, h.ints({1, 4}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 4});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("aten::view_copy.out and _unsafe_view.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, iota<float>(6));
  CHECK_FALSE(h.call("aten::view_copy.out", {x, h.ints({4, 2}), h.out<float>({8})}));
  CHECK(h.message.find("invalid") != std::string::npos);
  CHECK_FALSE(h.call("aten::view_copy.out", {x, h.ints({-1, -1}), h.out<float>({6})}));
  CHECK(h.message.find("only one") != std::string::npos);
  CHECK_FALSE(h.call("aten::view_copy.out", {x, h.ints({4, -1}), h.out<float>({6})}));
  // a static output of the wrong shape cannot be resized
  auto* st = h.tensor<float>({6}, std::vector<float>(6));
  CHECK_FALSE(h.call("aten::view_copy.out", {x, h.ints({3, 2}), st}));
  CHECK(h.message.find("cannot resize") != std::string::npos);
  auto* o = h.out<float>({6});
  REQUIRE(h.call("aten::_unsafe_view.out", {x, h.ints({6}), o}));
  CHECK(Harness::values<float>(o) == iota<float>(6));
}
