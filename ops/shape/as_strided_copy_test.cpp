#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::as_strided_copy.out: windows over self's memory") {
  Harness h;
  auto* a = h.tensor<float>({3, 4}, iota<float>(12));
  auto* o = h.out<float>({2, 2});
  REQUIRE(h.call("aten::as_strided_copy.out", {a, h.ints({2, 2}), h.ints({1, 4}), h.i(1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 5, 2, 6});
  auto* oi = h.out<int16_t>({3}, 8);
  REQUIRE(h.call("aten::as_strided_copy.out", {h.tensor<int16_t>({4}, {9, 8, 7, 6}), h.ints({2}), h.ints({0}), h.none(), oi}));
  CHECK(Harness::shape(oi) == std::vector<int64_t>{2});
  CHECK(Harness::values<int16_t>(oi) == std::vector<int16_t>{9, 9});
}

TEST_CASE("aten::as_strided_copy.out: strides address the physical memory of a permuted self; bounds") {
  Harness h;
  // logical [[1,2],[3,4]] stored column-major: memory 1,3,2,4
  auto* a = h.tensor<float>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});
  auto* o = h.out<float>({4});
  REQUIRE(h.call("aten::as_strided_copy.out", {a, h.ints({4}), h.ints({1}), h.i(0), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 3, 2, 4});
  CHECK_FALSE(h.call("aten::as_strided_copy.out", {a, h.ints({2}), h.ints({2}), h.i(2), h.out<float>({2})}));  // reads element 4 of 4
  CHECK(h.message.find("reaches") != std::string::npos);
  CHECK_FALSE(h.call("aten::as_strided_copy.out", {a, h.ints({2}), h.ints({-1}), h.i(3), h.out<float>({2})}));
  CHECK_FALSE(h.call("aten::as_strided_copy.out", {a, h.ints({2, 2}), h.ints({1}), h.i(0), h.out<float>({2, 2})}));
}
