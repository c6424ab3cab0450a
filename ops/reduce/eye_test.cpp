#include <doctest/doctest.h>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("eye.out / eye.m_out") {
  Harness h;
  auto* o = h.out<float>({1}, 9);
  REQUIRE(h.call("aten::eye.out", {h.i(3), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 3});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  auto* oi = h.out<int64_t>({2, 3});
  REQUIRE(h.call("aten::eye.m_out", {h.i(2), h.i(3), oi}));
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{1, 0, 0, 0, 1, 0});
  // column-major out of [3, 2]: written through its strides
  auto* oc = h.tensor<bool>({3, 2}, std::vector<bool>(6, true), Dynamism::Static, {1, 0});
  REQUIRE(h.call("aten::eye.m_out", {h.i(3), h.i(2), oc}));
  CHECK(Harness::values<bool>(oc) == std::vector<bool>{1, 0, 0, 1, 0, 0});
  CHECK_FALSE(h.call("aten::eye.out", {h.i(-1), o}));
  CHECK_FALSE(h.call("aten::eye.out", {h.i(4), o}));  // over capacity
}
