// Tests of aten::pow.Tensor_Tensor_out, pow.Tensor_Scalar_out and pow.Scalar_out
// (values from torch 2.13).
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("pow.Tensor_Tensor_out: f32 and int64 (negative exponents)") {
  Harness h;
  EValue* a = h.tensor<float>({4}, {2, -3, 0.5f, 4});
  EValue* b = h.tensor<float>({4}, {3, 2, -1, 0.5f});
  EValue* o = h.out<float>({4});
  REQUIRE(h.call("aten::pow.Tensor_Tensor_out", {a, b, o}));
  check_close(Harness::values<float>(o), {8, 9, 2, 2});
  EValue* x = h.tensor<int64_t>({6}, {2, -3, 1, -1, -1, 5});
  EValue* y = h.tensor<int64_t>({6}, {10, 3, -5, -5, -4, -1});
  EValue* oi = h.out<int64_t>({6});
  REQUIRE(h.call("aten::pow.Tensor_Tensor_out", {x, y, oi}));
  check_equal(Harness::values<int64_t>(oi), {1024, -27, 1, -1, 1, 0});
}

TEST_CASE("pow.Tensor_Scalar_out: special exponents, broadcast-free resize, transposed input") {
  Harness h;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EValue* a = h.tensor<float>({3}, {1.5f, -2.f, 4.f});
  EValue* o = h.out<float>({0}, 3);
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {a, h.i(2), o}));
  check_close(Harness::values<float>(o), {2.25, 4, 16}, 0, 0);
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {a, h.d(-0.5), o}));
  check_close(Harness::values<float>(o), {0.8164965510368347, nan, 0.5});
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {a, h.d(1.7), o}));
  check_close(Harness::values<float>(o), {1.9923018217086792, nan, 10.556063652038574});
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {a, h.i(0), o}));
  check_close(Harness::values<float>(o), {1, 1, 1}, 0, 0);
  EValue* t = h.tensor<double>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});  // [[1,2],[3,4]]
  EValue* od = h.out<double>({2, 2});
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {t, h.i(3), od}));
  check_close(Harness::values<double>(od), {1, 8, 27, 64}, 0, 0);
  EValue* i = h.tensor<int32_t>({3}, {2, -3, 7});
  EValue* oi = h.out<int32_t>({3});
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {i, h.i(3), oi}));
  check_equal(Harness::values<int32_t>(oi), {8, -27, 343});
  EValue* of = h.out<float>({3});  // int tensor ** float Scalar -> float
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {i, h.d(0.5), of}));
  check_close(Harness::values<float>(of), {1.4142135623730951, nan, 2.6457513110645907});
}

TEST_CASE("pow.Scalar_out: Scalar base, tensor exponent") {
  Harness h;
  EValue* e = h.tensor<int64_t>({3}, {0, 1, 10});
  EValue* o = h.out<int64_t>({3});
  REQUIRE(h.call("aten::pow.Scalar_out", {h.i(2), e, o}));
  check_equal(Harness::values<int64_t>(o), {1, 2, 1024});
  EValue* of = h.out<float>({3});
  EValue* e2 = h.tensor<int64_t>({3}, {0, 1, 2});
  REQUIRE(h.call("aten::pow.Scalar_out", {h.d(2.5), e2, of}));
  check_close(Harness::values<float>(of), {1, 2.5, 6.25});
}

TEST_CASE("pow: errors") {
  Harness h;
  EValue* i = h.tensor<int32_t>({2}, {2, 3});
  EValue* oi = h.out<int32_t>({2});
  CHECK_FALSE(h.call("aten::pow.Tensor_Scalar_out", {i, h.i(-1), oi}));
  CHECK(h.message == "integers to negative integer powers are not allowed");
  EValue* f = h.tensor<float>({2}, {1, 2});  // same shape: the failure is the int32 output
  CHECK_FALSE(h.call("aten::pow.Tensor_Tensor_out", {i, f, oi}));
  CHECK(h.message.find("can't be cast") != std::string::npos);
}
