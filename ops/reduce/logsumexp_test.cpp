#include <doctest/doctest.h>

#include <cmath>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("logsumexp.out: rows, all dims, infinities") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, -1, 0, -INFINITY});
  auto* o = h.out<float>({2});
  REQUIRE(h.call("aten::logsumexp.out", {x, h.ints({1}), h.b(false), o}));
  auto r = Harness::values<float>(o);
  CHECK(r[0] == doctest::Approx(3.4076059644443806));
  CHECK(r[1] == doctest::Approx(0.31326168751822286));

  auto* big = h.tensor<double>({2, 2}, {1000, 1000, -INFINITY, -INFINITY});
  auto* ob = h.out<double>({2, 1});
  REQUIRE(h.call("aten::logsumexp.out", {big, h.ints({-1}), h.b(true), ob}));
  auto rb = Harness::values<double>(ob);
  CHECK(rb[0] == doctest::Approx(1000 + std::log(2.0)));  // no overflow
  CHECK(std::isinf(rb[1]));
  CHECK(rb[1] < 0);

  auto* pinf = h.tensor<float>({2}, {INFINITY, 1});
  auto* op = h.out<float>({});
  REQUIRE(h.call("aten::logsumexp.out", {pinf, h.ints({}), h.b(false), op}));
  CHECK(std::isinf(Harness::values<float>(op)[0]));
}

TEST_CASE("logsumexp.out: int input to float out, non-contiguous, errors") {
  Harness h;
  // logical [[1,2,3],[0,0,0]] stored column-major, int64
  auto* x = h.tensor<int64_t>({2, 3}, {1, 0, 2, 0, 3, 0}, Dynamism::Static, {1, 0});
  auto* o = h.out<float>({1}, 4);
  REQUIRE(h.call("aten::logsumexp.out", {x, h.ints({1}), h.b(false), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2});
  auto r = Harness::values<float>(o);
  CHECK(r[0] == doctest::Approx(3.4076059644443806));
  CHECK(r[1] == doctest::Approx(std::log(3.0)));
  auto* oi = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::logsumexp.out", {x, h.ints({1}), h.b(false), oi}));
  CHECK(h.message.find("floating") != std::string::npos);
}
