#include <doctest/doctest.h>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;
using pte::Half;

TEST_CASE("full.out / zeros.out / ones.out: sizes, dtypes, dynamic out") {
  Harness h;
  auto* o = h.out<float>({1}, 8);
  REQUIRE(h.call("aten::full.out", {h.ints({2, 3}), h.d(2.5), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  CHECK(Harness::values<float>(o) == std::vector<float>(6, 2.5f));
  auto* oi = h.out<int64_t>({2});
  REQUIRE(h.call("aten::full.out", {h.ints({2}), h.d(-3.75), oi}));  // float -> int truncates
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{-3, -3});
  auto* ob = h.out<bool>({3});
  REQUIRE(h.call("aten::full.out", {h.ints({3}), h.i(7), ob}));
  CHECK(Harness::values<bool>(ob) == std::vector<bool>{true, true, true});
  auto* oh = h.out<Half>({2});
  REQUIRE(h.call("aten::ones.out", {h.ints({2}), oh}));
  CHECK(float(Harness::values<Half>(oh)[1]) == 1.0f);
  auto* oz = h.tensor<int32_t>({2, 2}, {5, 5, 5, 5}, Dynamism::Static, {1, 0});  // non-contiguous out
  REQUIRE(h.call("aten::zeros.out", {h.ints({2, 2}), oz}));
  CHECK(Harness::values<int32_t>(oz) == std::vector<int32_t>{0, 0, 0, 0});
}

TEST_CASE("empty.out and scalar_tensor.out") {
  Harness h;
  auto* o = h.out<float>({1}, 12);
  REQUIRE(h.call("aten::empty.out", {h.ints({3, 4}), h.none(), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 4});
  auto* s = h.out<double>({});
  REQUIRE(h.call("aten::scalar_tensor.out", {h.d(-0.5), s}));
  CHECK(Harness::shape(s).empty());
  CHECK(Harness::values<double>(s)[0] == -0.5);
  auto* si = h.out<int64_t>({});
  REQUIRE(h.call("aten::scalar_tensor.out", {h.b(true), si}));
  CHECK(Harness::values<int64_t>(si)[0] == 1);
}

TEST_CASE("full.out: errors") {
  Harness h;
  auto* o = h.out<float>({4});
  CHECK_FALSE(h.call("aten::full.out", {h.ints({5}), h.d(1.0), o}));  // over capacity
  CHECK(h.message.find("resize") != std::string::npos);
  CHECK_FALSE(h.call("aten::full.out", {h.ints({2}), h.str("x"), o}));
  CHECK_FALSE(h.call("aten::full.out", {h.ints({-1}), h.d(1.0), o}));
}
