#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::squeeze_copy: dim_out, dims_out and out") {
  Harness h;
  auto* x = h.tensor<float>({1, 3, 1, 2}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({3, 1, 2});
  REQUIRE(h.call("aten::squeeze_copy.dim_out", {x, h.i(0), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 1, 2});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // a listed dim whose size is not 1 is kept
  auto* o2 = h.out<float>({1, 3, 1, 2});
  REQUIRE(h.call("aten::squeeze_copy.dim_out", {x, h.i(1), o2}));
  CHECK(Harness::shape(o2) == std::vector<int64_t>{1, 3, 1, 2});
  auto* o3 = h.out<float>({1, 3, 2});
  REQUIRE(h.call("aten::squeeze_copy.dims_out", {x, h.ints({-2, 1}), o3}));
  CHECK(Harness::shape(o3) == std::vector<int64_t>{1, 3, 2});
  auto* xi = h.tensor<int64_t>({1, 2, 1}, {7, 8});
  auto* o4 = h.out<int64_t>({2});
  REQUIRE(h.call("aten::squeeze_copy.out", {xi, o4}));
  CHECK(Harness::shape(o4) == std::vector<int64_t>{2});
  CHECK(Harness::values<int64_t>(o4) == std::vector<int64_t>{7, 8});
}

TEST_CASE("aten::squeeze_copy.dims_out: non-contiguous input, dynamic output, errors") {
  Harness h;
  // logical [1,2,3] = [[[1,2,3],[4,5,6]]] stored with dim_order [0,2,1]
  auto* x = h.tensor<float>({1, 2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {0, 2, 1});
  auto* o = h.out<float>({2, 3, 2}, 12);
  REQUIRE(h.call("aten::squeeze_copy.dims_out", {x, h.ints({0}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK_FALSE(h.call("aten::squeeze_copy.dims_out", {x, h.ints({3}), h.out<float>({2, 3})}));
  CHECK_FALSE(h.call("aten::squeeze_copy.dim_out", {x, h.i(-4), h.out<float>({2, 3})}));
}
