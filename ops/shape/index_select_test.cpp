#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::index_select.out: rows and columns, int32 and int64 index") {
  Harness h;
  auto* x = h.tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({3, 2});
  REQUIRE(h.call("aten::index_select.out", {x, h.i(0), h.tensor<int64_t>({3}, {2, 0, 2}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{5, 6, 1, 2, 5, 6});
  auto* oc = h.out<float>({3, 1});
  REQUIRE(h.call("aten::index_select.out", {x, h.i(-1), h.tensor<int32_t>({1}, {1}), oc}));
  CHECK(Harness::values<float>(oc) == std::vector<float>{2, 4, 6});
  auto* xi = h.tensor<int8_t>({4}, {-1, -2, -3, -4});
  auto* oi = h.out<int8_t>({2});
  REQUIRE(h.call("aten::index_select.out", {xi, h.i(0), h.tensor<int64_t>({}, {3}), h.out<int8_t>({1})}));
  REQUIRE(h.call("aten::index_select.out", {xi, h.i(0), h.tensor<int64_t>({2}, {3, 1}), oi}));
  CHECK(Harness::values<int8_t>(oi) == std::vector<int8_t>{-4, -2});
}

TEST_CASE("aten::index_select.out: column-major self, dynamic out, bad index") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  auto* o = h.out<float>({4, 4}, 16);
  REQUIRE(h.call("aten::index_select.out", {x, h.i(1), h.tensor<int64_t>({4}, {2, 2, 0, 1}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 4});
  CHECK(Harness::values<float>(o) == std::vector<float>{3, 3, 1, 2, 6, 6, 4, 5});
  CHECK_FALSE(h.call("aten::index_select.out", {x, h.i(1), h.tensor<int64_t>({1}, {3}), o}));
  CHECK(h.message.find("out of bounds") != std::string::npos);
  CHECK_FALSE(h.call("aten::index_select.out", {x, h.i(1), h.tensor<int64_t>({1}, {-1}), o}));
  CHECK_FALSE(h.call("aten::index_select.out", {x, h.i(1), h.tensor<int64_t>({1, 1}, {0}), o}));
}
