// Tests of aten::remainder.Tensor_out and aten::remainder.Scalar_out (values from torch 2.13).
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("remainder: f32 takes the divisor's sign; x % 0 is nan") {
  Harness h;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EValue* a = h.tensor<float>({10}, {-7.f, -7.5f, 7.f, 7.5f, 0.f, -0.f, 5.f, -5.f, 1e-30f, 3.f});
  EValue* b = h.tensor<float>({10}, {2.f, 2.f, -2.f, -2.f, 3.f, 3.f, 0.f, 0.f, -1.f, 0.1f});
  EValue* o = h.out<float>({10});
  REQUIRE(h.call("aten::remainder.Tensor_out", {a, b, o}));
  check_close(Harness::values<float>(o), {1, 0.5, -1, -0.5, 0, -0., nan, nan, -1, 0.09999995678663254});
}

TEST_CASE("remainder: int64, broadcast, transposed input, resized output, Scalar form") {
  Harness h;
  EValue* a = h.tensor<int64_t>({7}, {-7, 7, -7, 7, 0, -8, 9});
  EValue* b = h.tensor<int64_t>({7}, {2, 2, -2, -2, 5, 3, -4});
  EValue* o = h.out<int64_t>({7});
  REQUIRE(h.call("aten::remainder.Tensor_out", {a, b, o}));
  check_equal(Harness::values<int64_t>(o), {1, 1, -1, -1, 0, 1, -3});
  // [[-5,-4,-3],[3,4,5]] stored transposed, % [3] column-wise
  EValue* x = h.tensor<int32_t>({2, 3}, {-5, 3, -4, 4, -3, 5}, Dynamism::Static, {1, 0});
  EValue* m = h.tensor<int32_t>({3}, {3, -3, 4});
  EValue* oi = h.out<int32_t>({0}, 6);
  REQUIRE(h.call("aten::remainder.Tensor_out", {x, m, oi}));
  CHECK(Harness::shape(oi) == std::vector<int64_t>{2, 3});
  check_equal(Harness::values<int32_t>(oi), {1, -1, 1, 0, -2, 1});
  EValue* f = h.tensor<float>({2}, {5.5f, -5.5f});
  EValue* of = h.out<float>({2});
  REQUIRE(h.call("aten::remainder.Scalar_out", {f, h.d(2.0), of}));
  check_close(Harness::values<float>(of), {1.5, 0.5});
}

TEST_CASE("remainder: integer division by zero is an error") {
  Harness h;
  EValue* a = h.tensor<int32_t>({2}, {1, 2});
  EValue* o = h.out<int32_t>({2});
  CHECK_FALSE(h.call("aten::remainder.Scalar_out", {a, h.i(0), o}));
  CHECK(h.message.find("ZeroDivisionError") != std::string::npos);
}
