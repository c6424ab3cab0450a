// Tests of aten::bitwise_{and,or,xor}.{Tensor,Scalar}_out and aten::bitwise_not.out.
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("bitwise: int32 and uint8, broadcast, bool, Scalar forms") {
  Harness h;
  EValue* a = h.tensor<int32_t>({2, 2}, {12, -1, 5, 0});
  EValue* b = h.tensor<int32_t>({2}, {10, 3});
  EValue* o = h.out<int32_t>({1}, 4);
  REQUIRE(h.call("aten::bitwise_and.Tensor_out", {a, b, o}));
  check_equal(Harness::values<int32_t>(o), {8, 3, 0, 0});
  REQUIRE(h.call("aten::bitwise_or.Tensor_out", {a, b, o}));
  check_equal(Harness::values<int32_t>(o), {14, -1, 15, 3});
  REQUIRE(h.call("aten::bitwise_xor.Tensor_out", {a, b, o}));
  check_equal(Harness::values<int32_t>(o), {6, -4, 15, 3});
  REQUIRE(h.call("aten::bitwise_not.out", {a, o}));
  check_equal(Harness::values<int32_t>(o), {-13, 0, -6, -1});
  EValue* u = h.tensor<uint8_t>({2}, {0x0f, 0xf0});
  EValue* ou = h.out<uint8_t>({2});
  REQUIRE(h.call("aten::bitwise_not.out", {u, ou}));
  check_equal(Harness::values<uint8_t>(ou), {0xf0, 0x0f});
  REQUIRE(h.call("aten::bitwise_xor.Scalar_out", {u, h.i(0xff), ou}));
  check_equal(Harness::values<uint8_t>(ou), {0xf0, 0x0f});
  REQUIRE(h.call("aten::bitwise_and.Scalar_out", {u, h.i(0x3c), ou}));
  check_equal(Harness::values<uint8_t>(ou), {0x0c, 0x30});
  REQUIRE(h.call("aten::bitwise_or.Scalar_out", {u, h.i(1), ou}));
  check_equal(Harness::values<uint8_t>(ou), {0x0f, 0xf1});
  // bool (int_ops uses bitwise_and on bool masks); transposed input
  EValue* p = h.tensor<bool>({2, 2}, {true, false, true, true}, Dynamism::Static, {1, 0});  // [[1,1],[0,1]]
  EValue* q = h.tensor<bool>({2, 2}, {true, false, true, false});
  EValue* ob = h.out<bool>({2, 2});
  REQUIRE(h.call("aten::bitwise_and.Tensor_out", {p, q, ob}));
  check_equal(Harness::values<bool>(ob), {true, false, false, false});
  REQUIRE(h.call("aten::bitwise_not.out", {q, ob}));
  check_equal(Harness::values<bool>(ob), {false, true, false, true});
}

TEST_CASE("bitwise: float inputs are refused") {
  Harness h;
  EValue* f = h.tensor<float>({2}, {1, 2});
  EValue* o = h.out<float>({2});
  CHECK_FALSE(h.call("aten::bitwise_and.Tensor_out", {f, f, o}));
  CHECK(h.message == "bitwise ops support integer and bool dtypes only, got float32");
  EValue* i = h.tensor<int32_t>({2}, {1, 2});
  EValue* oi = h.out<int32_t>({2});
  CHECK_FALSE(h.call("aten::bitwise_or.Scalar_out", {i, h.d(1.5), oi}));
  CHECK_FALSE(h.call("aten::bitwise_not.out", {f, o}));
}
