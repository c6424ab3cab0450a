// Tests of aten::fmod.Tensor_out and aten::fmod.Scalar_out (values from torch 2.13).
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("fmod: f32 takes the dividend's sign; x fmod 0 is nan") {
  Harness h;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EValue* a = h.tensor<float>({10}, {-7.f, -7.5f, 7.f, 7.5f, 0.f, -0.f, 5.f, -5.f, 1e-30f, 3.f});
  EValue* b = h.tensor<float>({10}, {2.f, 2.f, -2.f, -2.f, 3.f, 3.f, 0.f, 0.f, -1.f, 0.1f});
  EValue* o = h.out<float>({10});
  REQUIRE(h.call("aten::fmod.Tensor_out", {a, b, o}));
  check_close(Harness::values<float>(o), {-1, -1.5, 1, 1.5, 0, -0., nan, nan, 1.0000000031710769e-30, 0.09999995678663254},
              1e-6, 0);
}

TEST_CASE("fmod: int64 and int8, broadcast, resized output, Scalar form") {
  Harness h;
  EValue* a = h.tensor<int64_t>({7}, {-7, 7, -7, 7, 0, -8, 9});
  EValue* b = h.tensor<int64_t>({7}, {2, 2, -2, -2, 5, 3, -4});
  EValue* o = h.out<int64_t>({7});
  REQUIRE(h.call("aten::fmod.Tensor_out", {a, b, o}));
  check_equal(Harness::values<int64_t>(o), {-1, 1, -1, 1, 0, -2, 1});
  EValue* x = h.tensor<int8_t>({2, 2}, {-9, 9, -128, 127}, Dynamism::Static, {1, 0});  // [[-9,-128],[9,127]]
  EValue* m = h.tensor<int8_t>({2, 1}, {4, -1});
  EValue* o8 = h.out<int8_t>({1}, 4);
  REQUIRE(h.call("aten::fmod.Tensor_out", {x, m, o8}));
  check_equal(Harness::values<int8_t>(o8), {-1, 0, 0, 0});
  EValue* f = h.tensor<double>({2}, {5.5, -5.5});
  EValue* od = h.out<double>({2});
  REQUIRE(h.call("aten::fmod.Scalar_out", {f, h.d(2.0), od}));
  check_close(Harness::values<double>(od), {1.5, -1.5});
}

TEST_CASE("fmod: integer division by zero is an error") {
  Harness h;
  EValue* a = h.tensor<int64_t>({2}, {1, 2});
  EValue* z = h.tensor<int64_t>({1}, {0});
  EValue* o = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::fmod.Tensor_out", {a, z, o}));
  CHECK(h.message.find("ZeroDivisionError") != std::string::npos);
}
