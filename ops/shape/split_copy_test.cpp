#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::split_copy.Tensor_out: equal chunks and a shorter last chunk") {
  Harness h;
  auto* x = h.tensor<float>({5, 2}, iota<float>(10));
  auto* a = h.out<float>({2, 2});
  auto* b = h.out<float>({2, 2});
  auto* c = h.out<float>({2, 2}, 4);
  auto* outs = h.list({a, b, c});
  REQUIRE(h.call("aten::split_copy.Tensor_out", {x, h.i(2), h.i(0), outs}));
  CHECK(Harness::values<float>(a) == std::vector<float>{0, 1, 2, 3});
  CHECK(Harness::values<float>(b) == std::vector<float>{4, 5, 6, 7});
  CHECK(Harness::shape(c) == std::vector<int64_t>{1, 2});
  CHECK(Harness::values<float>(c) == std::vector<float>{8, 9});
  CHECK_FALSE(h.call("aten::split_copy.Tensor_out", {x, h.i(3), h.i(0), outs}));
  CHECK(h.message.find("expected 2 output") != std::string::npos);
}

TEST_CASE("aten::split_with_sizes_copy.out: column-major input along dim 1") {
  Harness h;
  // logical [[0,1,2],[3,4,5]] stored column-major
  auto* x = h.tensor<int32_t>({2, 3}, {0, 3, 1, 4, 2, 5}, Dynamism::Static, {1, 0});
  auto* a = h.out<int32_t>({2, 1});
  auto* b = h.out<int32_t>({2, 2});
  REQUIRE(h.call("aten::split_with_sizes_copy.out", {x, h.ints({1, 2}), h.i(-1), h.list({a, b})}));
  CHECK(Harness::values<int32_t>(a) == std::vector<int32_t>{0, 3});
  CHECK(Harness::values<int32_t>(b) == std::vector<int32_t>{1, 2, 4, 5});
  CHECK_FALSE(h.call("aten::split_with_sizes_copy.out", {x, h.ints({1, 1}), h.i(1), h.list({a, b})}));
  CHECK(h.message.find("sum") != std::string::npos);
}

TEST_CASE("aten::unbind_copy.int_out: one tensor per index") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* a = h.out<float>({2});
  auto* b = h.out<float>({2});
  auto* c = h.out<float>({2});
  REQUIRE(h.call("aten::unbind_copy.int_out", {x, h.i(1), h.list({a, b, c})}));
  CHECK(Harness::values<float>(a) == std::vector<float>{1, 4});
  CHECK(Harness::values<float>(c) == std::vector<float>{3, 6});
  auto* r0 = h.out<float>({3});
  auto* r1 = h.out<float>({3});
  REQUIRE(h.call("aten::unbind_copy.int_out", {x, h.i(0), h.list({r0, r1})}));
  CHECK(Harness::values<float>(r1) == std::vector<float>{4, 5, 6});
  CHECK_FALSE(h.call("aten::unbind_copy.int_out", {x, h.i(0), h.list({r0})}));
}
