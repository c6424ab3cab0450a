#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::transpose_copy.int_out: swaps two dims, f32 and u8") {
  Harness h;
  auto* x = h.tensor<float>({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({3, 1, 2});
  REQUIRE(h.call("aten::transpose_copy.int_out", {x, h.i(0), h.i(-1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 4, 2, 5, 3, 6});
  auto* u = h.tensor<uint8_t>({2, 2}, {1, 2, 3, 4});
  auto* ou = h.out<uint8_t>({2, 2});
  REQUIRE(h.call("aten::transpose_copy.int_out", {u, h.i(1), h.i(0), ou}));
  CHECK(Harness::values<uint8_t>(ou) == std::vector<uint8_t>{1, 3, 2, 4});
}

TEST_CASE("aten::transpose_copy.int_out: column-major input gives its memory back, dynamic out") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  auto* o = h.out<float>({6, 6}, 36);
  REQUIRE(h.call("aten::transpose_copy.int_out", {x, h.i(0), h.i(1), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 2});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK_FALSE(h.call("aten::transpose_copy.int_out", {x, h.i(0), h.i(2), h.out<float>({3, 2})}));
  CHECK(h.message.find("dim1") != std::string::npos);
}

TEST_CASE("aten::t_copy.out: 2-d transpose, 1-d copy, 3-d refused") {
  Harness h;
  auto* x = h.tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  auto* o = h.out<int32_t>({2, 2});
  REQUIRE(h.call("aten::t_copy.out", {x, o}));
  CHECK(Harness::values<int32_t>(o) == std::vector<int32_t>{1, 3, 2, 4});
  auto* v = h.tensor<double>({3}, {1.5, 2.5, 3.5});
  auto* ov = h.out<double>({3});
  REQUIRE(h.call("aten::t_copy.out", {v, ov}));
  CHECK(Harness::values<double>(ov) == std::vector<double>{1.5, 2.5, 3.5});
  CHECK_FALSE(h.call("aten::t_copy.out", {h.tensor<float>({1, 1, 1}, {1}), h.out<float>({1, 1, 1})}));
}
