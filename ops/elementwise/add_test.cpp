// Tests of aten::add.out and aten::add.Scalar_out.
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("add.out: f32 broadcast, alpha, non-contiguous input, resized output") {
  Harness h;
  EValue* a = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EValue* b = h.tensor<float>({3}, {10, 20, 30});
  EValue* out = h.out<float>({1}, 16);  // dynamic: resized to [2,3]
  REQUIRE(h.call("aten::add.out", {a, b, h.i(1), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{2, 3});
  check_close(Harness::values<float>(out), {11, 22, 33, 14, 25, 36});

  REQUIRE(h.call("aten::add.out", {a, b, h.d(2.0), out}));
  check_close(Harness::values<float>(out), {21, 42, 63, 24, 45, 66});

  // the same [2,3] values stored transposed (dim_order [1,0]), plus a [2,1] column
  EValue* at = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});
  EValue* col = h.tensor<float>({2, 1}, {100, 200});
  REQUIRE(h.call("aten::add.out", {at, col, h.i(1), out}));
  check_close(Harness::values<float>(out), {101, 102, 103, 204, 205, 206});
}

TEST_CASE("add.out: integer dtypes wrap, bool is logical or, mixed dtypes promote") {
  Harness h;
  EValue* a = h.tensor<int64_t>({2}, {1, 2});
  EValue* b = h.tensor<int64_t>({2}, {3, 4});
  EValue* o = h.out<int64_t>({2});
  REQUIRE(h.call("aten::add.out", {a, b, h.i(3), o}));
  check_equal(Harness::values<int64_t>(o), {10, 14});

  EValue* i8 = h.tensor<int8_t>({3}, {127, -128, 5});
  EValue* one = h.tensor<int8_t>({}, {1});
  EValue* o8 = h.out<int8_t>({3});
  REQUIRE(h.call("aten::add.out", {i8, one, h.i(1), o8}));
  check_equal(Harness::values<int8_t>(o8), {-128, -127, 6});

  EValue* p = h.tensor<bool>({4}, {false, true, false, true});
  EValue* q = h.tensor<bool>({4}, {false, false, true, true});
  EValue* ob = h.out<bool>({4});
  REQUIRE(h.call("aten::add.out", {p, q, h.i(1), ob}));
  check_equal(Harness::values<bool>(ob), {false, true, true, true});

  // int32 [3] + f32 zero-dim -> f32 (the zero-dim tensor's higher category wins)
  EValue* i32 = h.tensor<int32_t>({3}, {1, 2, 3});
  EValue* half_ = h.tensor<float>({}, {0.5f});
  EValue* of = h.out<float>({3});
  REQUIRE(h.call("aten::add.out", {i32, half_, h.i(1), of}));
  check_close(Harness::values<float>(of), {1.5, 2.5, 3.5});
}

TEST_CASE("add.out: f16 and bf16 compute in float and round once") {
  Harness h;
  EValue* a = h.tensor<Half>({3}, {Half(1.5f), Half(2048.f), Half(-0.1f)});
  EValue* b = h.tensor<Half>({3}, {Half(2.25f), Half(1.f), Half(0.2f)});
  EValue* o = h.out<Half>({3});
  REQUIRE(h.call("aten::add.out", {a, b, h.i(1), o}));
  // torch.tensor([1.5,2048,-0.1],dtype=torch.half)+torch.tensor([2.25,1,0.2],dtype=torch.half)
  // = [3.75, 2048 (2049 rounds to even), 0.0999755859375]
  check_close(Harness::values<Half>(o), {3.75, 2048, 0.0999755859375}, 0, 0);

  EValue* x = h.tensor<BFloat16>({2}, {BFloat16(1.f), BFloat16(256.f)});
  EValue* y = h.tensor<BFloat16>({2}, {BFloat16(0.5f), BFloat16(1.f)});
  EValue* ob = h.out<BFloat16>({2});
  REQUIRE(h.call("aten::add.out", {x, y, h.d(1.0), ob}));
  check_close(Harness::values<BFloat16>(ob), {1.5, 256}, 0, 0);  // 257 is not a bf16: ties to even
}

TEST_CASE("add.Scalar_out: int tensor + float Scalar gives float") {
  Harness h;
  EValue* a = h.tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  EValue* o = h.out<float>({2, 2});
  REQUIRE(h.call("aten::add.Scalar_out", {a, h.d(2.5), h.i(1), o}));
  check_close(Harness::values<float>(o), {3.5, 4.5, 5.5, 6.5});
  EValue* oi = h.out<int32_t>({2, 2});
  REQUIRE(h.call("aten::add.Scalar_out", {a, h.i(10), h.i(-1), oi}));
  check_equal(Harness::values<int32_t>(oi), {-9, -8, -7, -6});
}

TEST_CASE("add: errors") {
  Harness h;
  EValue* a = h.tensor<float>({2, 3}, std::vector<float>(6));
  EValue* b = h.tensor<float>({4}, std::vector<float>(4));
  EValue* o = h.out<float>({2, 3});
  CHECK_FALSE(h.call("aten::add.out", {a, b, h.i(1), o}));
  CHECK(h.message == "shapes [2,3] and [4] are not broadcastable");

  EValue* i = h.tensor<int64_t>({2}, {1, 2});
  EValue* oi = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::add.out", {i, i, h.d(0.5), oi}));
  CHECK(h.message.find("alpha must not be a floating point number") != std::string::npos);

  EValue* f = h.tensor<float>({2}, {1, 2});
  CHECK_FALSE(h.call("aten::add.out", {f, f, h.i(1), oi}));  // float result into an int64 out
  CHECK(h.message == "result type float32 can't be cast to the desired output type int64");

  EValue* fixed = h.tensor<float>({3}, std::vector<float>(3));  // static shape [3]
  CHECK_FALSE(h.call("aten::add.out", {f, f, h.i(1), fixed}));
  CHECK(h.message.find("cannot resize output") != std::string::npos);
}
