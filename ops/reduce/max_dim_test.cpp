#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::Half;

TEST_CASE("max.dim_max / min.dim_min: values and first indices") {
  Harness h;
  auto* x = h.tensor<float>({2, 4}, {3, 9, 9, 1, -1, -5, 2, -5});
  auto* v = h.out<float>({2});
  auto* i = h.out<int64_t>({2});
  REQUIRE(h.call("aten::max.dim_max", {x, h.i(1), h.b(false), v, i, h.list({v, i})}, false));
  CHECK(Harness::values<float>(v) == std::vector<float>{9, 2});
  CHECK(Harness::values<int64_t>(i) == std::vector<int64_t>{1, 2});  // tie 9,9: first
  REQUIRE(h.call("aten::min.dim_min", {x, h.i(-1), h.b(false), v, i, h.list({v, i})}, false));
  CHECK(Harness::values<float>(v) == std::vector<float>{1, -5});
  CHECK(Harness::values<int64_t>(i) == std::vector<int64_t>{3, 1});

  // keepdim along dim 0, dynamic outs resized from [1]
  auto* vk = h.out<float>({1}, 8);
  auto* ik = h.out<int64_t>({1}, 8);
  REQUIRE(h.call("aten::max.dim_max", {x, h.i(0), h.b(true), vk, ik, h.list({vk, ik})}, false));
  CHECK(Harness::shape(vk) == std::vector<int64_t>{1, 4});
  CHECK(Harness::shape(ik) == std::vector<int64_t>{1, 4});
  CHECK(Harness::values<float>(vk) == std::vector<float>{3, 9, 9, 1});
  CHECK(Harness::values<int64_t>(ik) == std::vector<int64_t>{0, 0, 0, 0});
}

TEST_CASE("max.dim_max: NaN wins, half, non-contiguous input") {
  Harness h;
  auto* x = h.tensor<Half>({3}, {Half(1.f), Half(NAN), Half(5.f)});
  auto* v = h.out<Half>({});
  auto* i = h.out<int64_t>({});
  REQUIRE(h.call("aten::max.dim_max", {x, h.i(0), h.b(false), v, i, h.list({v, i})}, false));
  CHECK(std::isnan(float(Harness::values<Half>(v)[0])));
  CHECK(Harness::values<int64_t>(i)[0] == 1);

  // logical [[1,5,2],[8,0,3]] stored column-major (dim order [1,0])
  auto* xn = h.tensor<int64_t>({2, 3}, {1, 8, 5, 0, 2, 3}, Dynamism::Static, {1, 0});
  auto* vn = h.out<int64_t>({2});
  auto* in = h.out<int64_t>({2});
  REQUIRE(h.call("aten::min.dim_min", {xn, h.i(1), h.b(false), vn, in, h.list({vn, in})}, false));
  CHECK(Harness::values<int64_t>(vn) == std::vector<int64_t>{1, 0});
  CHECK(Harness::values<int64_t>(in) == std::vector<int64_t>{0, 1});
}

TEST_CASE("max.unary_out / min.unary_out and errors") {
  Harness h;
  auto* x = h.tensor<int32_t>({2, 2}, {4, -7, 12, 0});
  auto* o = h.out<int32_t>({});
  REQUIRE(h.call("aten::max.unary_out", {x, o}));
  CHECK(Harness::values<int32_t>(o)[0] == 12);
  REQUIRE(h.call("aten::min.unary_out", {x, o}));
  CHECK(Harness::values<int32_t>(o)[0] == -7);

  auto* e = h.tensor<float>({0}, {});
  auto* oe = h.out<float>({});
  CHECK_FALSE(h.call("aten::max.unary_out", {e, oe}));
  CHECK(h.message.find("empty") != std::string::npos);

  auto* y = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* v = h.out<float>({2});
  auto* i = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::max.dim_max", {y, h.i(2), h.b(false), v, i, h.list({v, i})}, false));
  CHECK(h.message.find("out of range") != std::string::npos);
  auto* bad_i = h.out<float>({2});
  CHECK_FALSE(h.call("aten::max.dim_max", {y, h.i(1), h.b(false), v, bad_i, h.list({v, bad_i})}, false));
}
