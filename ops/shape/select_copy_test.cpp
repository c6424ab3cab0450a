#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::select_copy.int_out: picks one index, negative wraps") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({2});
  REQUIRE(h.call("aten::select_copy.int_out", {x, h.i(1), h.i(-1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{3, 6});
  auto* o2 = h.out<float>({3});
  REQUIRE(h.call("aten::select_copy.int_out", {x, h.i(0), h.i(1), o2}));
  CHECK(Harness::values<float>(o2) == std::vector<float>{4, 5, 6});
  auto* v = h.tensor<int32_t>({3}, {7, 8, 9});
  auto* ov = h.out<int32_t>({});
  REQUIRE(h.call("aten::select_copy.int_out", {v, h.i(0), h.i(2), ov}));
  CHECK(Harness::shape(ov).empty());
  CHECK(Harness::values<int32_t>(ov) == std::vector<int32_t>{9});
}

TEST_CASE("aten::select_copy.int_out: column-major input, dynamic out, out-of-range index") {
  Harness h;
  auto* x = h.tensor<double>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  auto* o = h.out<double>({8}, 8);
  REQUIRE(h.call("aten::select_copy.int_out", {x, h.i(0), h.i(1), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3});
  CHECK(Harness::values<double>(o) == std::vector<double>{4, 5, 6});
  CHECK_FALSE(h.call("aten::select_copy.int_out", {x, h.i(1), h.i(3), o}));
  CHECK(h.message.find("out of bounds") != std::string::npos);
  CHECK_FALSE(h.call("aten::select_copy.int_out", {x, h.i(1), h.i(-4), o}));
}

TEST_CASE("aten::select_scatter.out: replaces one row") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* src = h.tensor<float>({2}, {-1, -2});
  auto* o = h.out<float>({2, 3});
  REQUIRE(h.call("aten::select_scatter.out", {x, src, h.i(1), h.i(0), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{-1, 2, 3, -2, 5, 6});
  CHECK_FALSE(h.call("aten::select_scatter.out", {x, src, h.i(0), h.i(0), o}));
}
