// Tests of aten::mul.out and aten::mul.Scalar_out.
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("mul.out: [3,2] * [3,2] as in the node-executorch mul.pte (1..6 squared)") {
  Harness h;
  EValue* a = h.tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  EValue* o = h.out<float>({3, 2});
  REQUIRE(h.call("aten::mul.out", {a, a, o}));
  check_close(Harness::values<float>(o), {1, 4, 9, 16, 25, 36}, 0, 0);
}

TEST_CASE("mul.out: broadcast [2,1,3]*[4,1], channels-last input, resized output") {
  Harness h;
  EValue* a = h.tensor<float>({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  EValue* b = h.tensor<float>({4, 1}, {1, 10, 100, -1});
  EValue* o = h.out<float>({1}, 32);
  REQUIRE(h.call("aten::mul.out", {a, b, o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 4, 3});
  check_close(Harness::values<float>(o), {1,  2,  3,  10, 20, 30, 100, 200, 300, -1, -2, -3,
                                          4,  5,  6,  40, 50, 60, 400, 500, 600, -4, -5, -6}, 0, 0);
  // NCHW [1,2,2,2] stored channels-last, times a per-channel [2,1,1] scale
  EValue* x = h.tensor<float>({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8}, Dynamism::Static, {0, 2, 3, 1});
  EValue* s = h.tensor<float>({2, 1, 1}, {2, -1});
  EValue* y = h.out<float>({1, 2, 2, 2});
  REQUIRE(h.call("aten::mul.out", {x, s, y}));
  check_close(Harness::values<float>(y), {2, 4, 6, 8, -5, -6, -7, -8}, 0, 0);
}

TEST_CASE("mul.out: int32 wraps, bool is and, int64 * zero-dim int64") {
  Harness h;
  EValue* a = h.tensor<int32_t>({2}, {65536, -3});
  EValue* o = h.out<int32_t>({2});
  REQUIRE(h.call("aten::mul.out", {a, a, o}));
  check_equal(Harness::values<int32_t>(o), {0, 9});  // 2^32 wraps to 0
  EValue* p = h.tensor<bool>({3}, {true, true, false});
  EValue* q = h.tensor<bool>({3}, {true, false, false});
  EValue* ob = h.out<bool>({3});
  REQUIRE(h.call("aten::mul.out", {p, q, ob}));
  check_equal(Harness::values<bool>(ob), {true, false, false});
  EValue* l = h.tensor<int64_t>({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EValue* k = h.tensor<int64_t>({}, {3});
  EValue* ol = h.out<int64_t>({2, 5});
  REQUIRE(h.call("aten::mul.out", {l, k, ol}));
  check_equal(Harness::values<int64_t>(ol), {0, 3, 6, 9, 12, 15, 18, 21, 24, 27});
}

TEST_CASE("mul.Scalar_out: f32 * 0.5 and bf16 * Int") {
  Harness h;
  EValue* a = h.tensor<float>({4}, {1, -2, 3, 1e30f});
  EValue* o = h.out<float>({4});
  REQUIRE(h.call("aten::mul.Scalar_out", {a, h.d(0.5), o}));
  check_close(Harness::values<float>(o), {0.5, -1, 1.5, 5e29}, 1e-7, 0);
  EValue* b = h.tensor<BFloat16>({2}, {BFloat16(1.5f), BFloat16(-3.f)});
  EValue* ob = h.out<BFloat16>({2});
  REQUIRE(h.call("aten::mul.Scalar_out", {b, h.i(3), ob}));
  check_close(Harness::values<BFloat16>(ob), {4.5, -9}, 0, 0);
}

TEST_CASE("mul: errors") {
  Harness h;
  EValue* a = h.tensor<float>({2, 3}, std::vector<float>(6));
  EValue* b = h.tensor<float>({2}, std::vector<float>(2));
  EValue* o = h.out<float>({2, 3});
  CHECK_FALSE(h.call("aten::mul.out", {a, b, o}));
  CHECK(h.message == "shapes [2,3] and [2] are not broadcastable");
  CHECK_FALSE(h.call("aten::mul.Scalar_out", {a, h.str("x"), o}));
  CHECK(h.message.find("expected a Scalar") != std::string::npos);
}
