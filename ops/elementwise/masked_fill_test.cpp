// Tests of aten::masked_fill.Scalar_out and aten::masked_fill.Tensor_out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("masked_fill.Scalar_out: broadcast mask, -inf, resized output, transposed self") {
  Harness h;
  const double ninf = -std::numeric_limits<double>::infinity();
  EValue* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EValue* m = h.tensor<bool>({3}, {false, true, false});
  EValue* o = h.out<float>({1}, 6);
  REQUIRE(h.call("aten::masked_fill.Scalar_out", {x, m, h.d(ninf), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  check_close(Harness::values<float>(o), {1, ninf, 3, 4, ninf, 6}, 0, 0);
  EValue* xt = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // same values transposed
  EValue* m2 = h.tensor<bool>({2, 1}, {true, false});
  REQUIRE(h.call("aten::masked_fill.Scalar_out", {xt, m2, h.i(0), o}));
  check_close(Harness::values<float>(o), {0, 0, 0, 4, 5, 6}, 0, 0);
}

TEST_CASE("masked_fill: int32 with a Scalar, bf16 with a zero-dim tensor value") {
  Harness h;
  EValue* x = h.tensor<int32_t>({4}, {1, 2, 3, 4});
  EValue* m = h.tensor<bool>({4}, {true, false, false, true});
  EValue* o = h.out<int32_t>({4});
  REQUIRE(h.call("aten::masked_fill.Scalar_out", {x, m, h.i(-7), o}));
  check_equal(Harness::values<int32_t>(o), {-7, 2, 3, -7});
  EValue* b = h.tensor<BFloat16>({4}, {BFloat16(1.f), BFloat16(2.f), BFloat16(3.f), BFloat16(4.f)});
  EValue* v = h.tensor<float>({}, {0.1f});
  EValue* ob = h.out<BFloat16>({4});
  REQUIRE(h.call("aten::masked_fill.Tensor_out", {b, m, v, ob}));
  // 0.1 cast to bf16 is 0.10009765625
  check_close(Harness::values<BFloat16>(ob), {0.10009765625, 2, 3, 0.10009765625}, 0, 0);
}

TEST_CASE("masked_fill: errors") {
  Harness h;
  EValue* x = h.tensor<float>({2}, {1, 2});
  EValue* mu = h.tensor<uint8_t>({2}, {1, 0});
  EValue* o = h.out<float>({2});
  CHECK_FALSE(h.call("aten::masked_fill.Scalar_out", {x, mu, h.d(0), o}));
  CHECK(h.message.find("boolean masks") != std::string::npos);
  EValue* m = h.tensor<bool>({2}, {true, false});
  EValue* v1 = h.tensor<float>({1}, {3});
  CHECK_FALSE(h.call("aten::masked_fill.Tensor_out", {x, m, v1, o}));
  CHECK(h.message.find("0-dimensional value tensor") != std::string::npos);
  EValue* m3 = h.tensor<bool>({3}, {true, false, true});
  CHECK_FALSE(h.call("aten::masked_fill.Scalar_out", {x, m3, h.d(0), o}));
}
