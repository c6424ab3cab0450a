#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::BFloat16;
using pte::EValue;

TEST_CASE("linalg_vector_norm.out: orders") {
  Harness h;
  auto* x = h.tensor<float>({2, 2}, {3, -4, 0, 2});
  auto* o = h.out<float>({2});
  auto norm = [&](EValue* ord) {
    REQUIRE(h.call("aten::linalg_vector_norm.out", {x, ord, h.ints({1}), h.b(false), h.none(), o}));
    return Harness::values<float>(o);
  };
  CHECK(norm(h.i(2)) == std::vector<float>{5, 2});
  CHECK(norm(h.d(1.0)) == std::vector<float>{7, 2});
  CHECK(norm(h.d(INFINITY)) == std::vector<float>{4, 2});
  CHECK(norm(h.d(-INFINITY)) == std::vector<float>{3, 0});
  CHECK(norm(h.i(0)) == std::vector<float>{2, 1});
  auto r = norm(h.d(3.0));
  CHECK(r[0] == doctest::Approx(4.497941445275415));
  CHECK(r[1] == doctest::Approx(2.0));
}

TEST_CASE("linalg_vector_norm.out: all dims, keepdim, non-contiguous bf16, errors") {
  Harness h;
  // logical [[3,-4],[0,12]] stored column-major
  auto* x = h.tensor<BFloat16>({2, 2}, {BFloat16(3.f), BFloat16(0.f), BFloat16(-4.f), BFloat16(12.f)},
                               Dynamism::Static, {1, 0});
  auto* o = h.out<BFloat16>({1}, 4);
  REQUIRE(h.call("aten::linalg_vector_norm.out", {x, h.i(2), h.none(), h.b(true), h.none(), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 1});
  CHECK(float(Harness::values<BFloat16>(o)[0]) == 13.0f);
  auto* o0 = h.out<BFloat16>({2});
  REQUIRE(h.call("aten::linalg_vector_norm.out", {x, h.d(1.0), h.ints({0}), h.b(false), h.none(), o0}));
  CHECK(float(Harness::values<BFloat16>(o0)[0]) == 3.0f);
  CHECK(float(Harness::values<BFloat16>(o0)[1]) == 16.0f);

  auto* e = h.tensor<float>({0}, {});
  auto* oe = h.out<float>({});
  REQUIRE(h.call("aten::linalg_vector_norm.out", {e, h.i(2), h.none(), h.b(false), h.none(), oe}));
  CHECK(Harness::values<float>(oe)[0] == 0.0f);
  CHECK_FALSE(h.call("aten::linalg_vector_norm.out", {e, h.d(INFINITY), h.none(), h.b(false), h.none(), oe}));
  auto* xi = h.tensor<int32_t>({2}, {3, 4});
  CHECK_FALSE(h.call("aten::linalg_vector_norm.out", {xi, h.i(2), h.none(), h.b(false), h.none(), oe}));
}
