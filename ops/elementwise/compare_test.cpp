// Tests of aten::{eq,ne,lt,le,gt,ge}.{Tensor,Scalar}_out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("compare Tensor_out: all six on f32 with nan, broadcast") {
  Harness h;
  const float nanf = std::numeric_limits<float>::quiet_NaN();
  EValue* a = h.tensor<float>({2, 3}, {1, 2, 3, nanf, 5, -1});
  EValue* b = h.tensor<float>({3}, {2, 2, 2});
  EValue* o = h.out<bool>({2, 3});
  struct {
    const char* op;
    std::vector<bool> want;
  } cases[] = {
      {"aten::eq.Tensor_out", {false, true, false, false, false, false}},
      {"aten::ne.Tensor_out", {true, false, true, true, true, true}},
      {"aten::lt.Tensor_out", {true, false, false, false, false, true}},
      {"aten::le.Tensor_out", {true, true, false, false, false, true}},
      {"aten::gt.Tensor_out", {false, false, true, false, true, false}},
      {"aten::ge.Tensor_out", {false, true, true, false, true, false}},
  };
  for (auto& c : cases) {
    INFO(c.op);
    REQUIRE(h.call(c.op, {a, b, o}));
    check_equal(Harness::values<bool>(o), c.want);
  }
}

TEST_CASE("le.Tensor_out: int64 [1,1,1,4] vs [1,1,3,1] (a causal mask), resized output") {
  Harness h;
  EValue* k = h.tensor<int64_t>({1, 1, 1, 4}, {0, 1, 2, 3});
  EValue* q = h.tensor<int64_t>({1, 1, 3, 1}, {0, 1, 2});
  EValue* o = h.out<bool>({1}, 12);
  REQUIRE(h.call("aten::le.Tensor_out", {k, q, o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 1, 3, 4});
  check_equal(Harness::values<bool>(o), {true, false, false, false, true, true, false, false, true, true, true, false});
}

TEST_CASE("gt.Tensor_out: int64 vs int32 (int_ops), transposed input, float output") {
  Harness h;
  EValue* a = h.tensor<int64_t>({2, 2}, {1, 5, 3, 2}, Dynamism::Static, {1, 0});  // [[1,3],[5,2]]
  EValue* b = h.tensor<int32_t>({2, 2}, {2, 2, 2, 2});
  EValue* o = h.out<bool>({2, 2});
  REQUIRE(h.call("aten::gt.Tensor_out", {a, b, o}));
  check_equal(Harness::values<bool>(o), {false, true, true, false});
  EValue* of = h.out<float>({2, 2});
  REQUIRE(h.call("aten::gt.Tensor_out", {a, b, of}));
  check_close(Harness::values<float>(of), {0, 1, 1, 0}, 0, 0);
}

TEST_CASE("compare Scalar_out: -inf, int tensor vs 2.5, ne -100") {
  Harness h;
  const float inf = std::numeric_limits<float>::infinity();
  EValue* s = h.tensor<float>({4}, {-inf, 0, inf, -3});
  EValue* o = h.out<bool>({4});
  REQUIRE(h.call("aten::eq.Scalar_out", {s, h.d(-std::numeric_limits<double>::infinity()), o}));
  check_equal(Harness::values<bool>(o), {true, false, false, false});
  EValue* i = h.tensor<int32_t>({4}, {1, 2, 3, 4});
  REQUIRE(h.call("aten::lt.Scalar_out", {i, h.d(2.5), o}));
  check_equal(Harness::values<bool>(o), {true, true, false, false});
  REQUIRE(h.call("aten::ge.Scalar_out", {i, h.i(3), o}));
  check_equal(Harness::values<bool>(o), {false, false, true, true});
  REQUIRE(h.call("aten::le.Scalar_out", {i, h.i(1), o}));
  check_equal(Harness::values<bool>(o), {true, false, false, false});
  REQUIRE(h.call("aten::gt.Scalar_out", {i, h.i(1), o}));
  check_equal(Harness::values<bool>(o), {false, true, true, true});
  EValue* l = h.tensor<int64_t>({1}, {-100});
  EValue* o1 = h.out<bool>({1});
  REQUIRE(h.call("aten::ne.Scalar_out", {l, h.i(-100), o1}));
  check_equal(Harness::values<bool>(o1), {false});
  EValue* hb = h.tensor<Half>({2}, {Half(0.5f), Half(1.f)});
  REQUIRE(h.call("aten::ne.Scalar_out", {hb, h.d(1.0), h.out<bool>({2})}));
}

TEST_CASE("compare: errors") {
  Harness h;
  EValue* a = h.tensor<float>({2}, {1, 2});
  EValue* b = h.tensor<float>({3}, {1, 2, 3});
  EValue* o = h.out<bool>({2});
  CHECK_FALSE(h.call("aten::eq.Tensor_out", {a, b, o}));
  CHECK(h.message == "shapes [2] and [3] are not broadcastable");
  CHECK_FALSE(h.call("aten::eq.Scalar_out", {a, b, o}));
  CHECK(h.message.find("expected a Scalar") != std::string::npos);
}
