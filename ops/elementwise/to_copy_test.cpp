// Tests of aten::_to_copy.out, dim_order_ops::_to_dim_order_copy.out and
// dim_order_ops::_clone_dim_order.out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("_to_copy.out: int64 -> f32 (tiny_llama), f32 -> int32 truncates, -> bool, f32 -> f16") {
  Harness h;
  EValue* pos = h.tensor<int64_t>({1, 1, 3}, {0, 1, 30});
  EValue* o = h.out<float>({1, 1, 3});
  REQUIRE(h.call("aten::_to_copy.out", {pos, h.b(false), h.none(), o}));
  check_close(Harness::values<float>(o), {0, 1, 30}, 0, 0);
  EValue* f = h.tensor<float>({4}, {1.9f, -1.9f, 0.f, 300.5f});
  EValue* oi = h.out<int32_t>({1}, 4);
  REQUIRE(h.call("aten::_to_copy.out", {f, h.b(false), h.i(1), oi}));
  check_equal(Harness::values<int32_t>(oi), {1, -1, 0, 300});
  EValue* ob = h.out<bool>({4});
  REQUIRE(h.call("aten::_to_copy.out", {f, h.b(false), h.none(), ob}));
  check_equal(Harness::values<bool>(ob), {true, true, false, true});
  EValue* oh = h.out<Half>({4});
  REQUIRE(h.call("aten::_to_copy.out", {f, h.b(false), h.none(), oh}));
  check_close(Harness::values<Half>(oh), {1.900390625, -1.900390625, 0, 300.5}, 0, 0);
  EValue* l = h.tensor<int64_t>({1}, {(int64_t{1} << 40) + 3});
  EValue* od = h.out<double>({1});
  REQUIRE(h.call("aten::_to_copy.out", {l, h.b(false), h.none(), od}));
  check_close(Harness::values<double>(od), {1099511627779.0}, 0, 0);
  CHECK_FALSE(h.call("aten::_to_copy.out", {f, h.b(false), h.i(9), oh}));
  CHECK(h.message == "unknown memory_format 9");
}

TEST_CASE("_to_dim_order_copy.out: contiguous -> channels-last and back, with a dtype change") {
  Harness h;
  // NCHW [1,2,2,2]: channel 0 = 0..3, channel 1 = 4..7
  EValue* x = h.tensor<float>({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  EValue* cl = h.tensor<float>({1, 2, 2, 2}, std::vector<float>(8), Dynamism::Static, {0, 2, 3, 1});
  REQUIRE(h.call("dim_order_ops::_to_dim_order_copy.out", {x, h.b(false), h.ints({0, 2, 3, 1}), cl}));
  check_close(Harness::values<float>(cl), {0, 1, 2, 3, 4, 5, 6, 7}, 0, 0);  // same logical values
  const float* raw = cl->t->ptr<float>();
  check_close(std::vector<float>(raw, raw + 8), {0, 4, 1, 5, 2, 6, 3, 7}, 0, 0);  // NHWC bytes
  EValue* back = h.out<int64_t>({1, 2, 2, 2});
  REQUIRE(h.call("dim_order_ops::_to_dim_order_copy.out", {cl, h.b(false), h.ints({0, 1, 2, 3}), back}));
  check_equal(std::vector<int64_t>(back->t->ptr<int64_t>(), back->t->ptr<int64_t>() + 8), {0, 1, 2, 3, 4, 5, 6, 7});
  EValue* s = h.tensor<int64_t>({}, {-5});  // zero-dim, empty dim_order (int_ops)
  EValue* os = h.out<int32_t>({});
  REQUIRE(h.call("dim_order_ops::_to_dim_order_copy.out", {s, h.b(false), h.ints({}), os}));
  check_equal(Harness::values<int32_t>(os), {-5});
  EValue* dyn = h.out<float>({1}, 8);
  REQUIRE(h.call("dim_order_ops::_to_dim_order_copy.out", {x, h.b(false), h.none(), dyn}));
  CHECK(Harness::shape(dyn) == std::vector<int64_t>{1, 2, 2, 2});
  CHECK_FALSE(h.call("dim_order_ops::_to_dim_order_copy.out", {x, h.b(false), h.ints({0, 1, 2, 3}), cl}));
  CHECK(h.message == "dim_order argument does not match the output tensor's dim order");
}

TEST_CASE("_clone_dim_order.out: int8 channels-last (KWS model), dtype must match") {
  Harness h;
  EValue* x = h.tensor<int8_t>({1, 2, 1, 3}, {1, -2, 3, -4, 5, -6});
  EValue* o = h.tensor<int8_t>({1, 2, 1, 3}, std::vector<int8_t>(6), Dynamism::Static, {0, 2, 3, 1});
  REQUIRE(h.call("dim_order_ops::_clone_dim_order.out", {x, h.b(false), h.ints({0, 2, 3, 1}), o}));
  check_equal(Harness::values<int8_t>(o), {1, -2, 3, -4, 5, -6});
  const int8_t* raw = o->t->ptr<int8_t>();
  check_equal(std::vector<int8_t>(raw, raw + 6), {1, -4, -2, 5, 3, -6});
  EValue* of = h.out<float>({1, 2, 1, 3});
  CHECK_FALSE(h.call("dim_order_ops::_clone_dim_order.out", {x, h.b(false), h.none(), of}));
  CHECK(h.message == "_clone_dim_order: output dtype float32 differs from input dtype int8");
}

TEST_CASE("_to_copy.out: f16 <-> f32 over dense rows (vector conversions) and in another dim order, as the scalar casts") {
  Harness h;
  // 3 x 37 values: dense rows of 111 (8-wide vectors and a tail), and a channels-last output
  std::vector<float> f(2 * 3 * 37);
  for (size_t i = 0; i < f.size(); ++i) f[i] = (static_cast<float>(i) - 100.0f) * 0.37f + (i % 7 == 0 ? 70000.0f : 0.0f);
  std::vector<double> want_h, want_f;
  for (float v : f) want_h.push_back(half_bits_to_float(float_to_half_bits(v)));  // 70000 rounds to inf
  EValue* x = h.tensor<float>({2, 3, 37}, f);
  EValue* oh = h.out<Half>({2, 3, 37});
  REQUIRE(h.call("aten::_to_copy.out", {x, h.b(false), h.none(), oh}));
  const std::vector<Half> got_h = Harness::values<Half>(oh);
  REQUIRE(got_h.size() == want_h.size());
  for (size_t i = 0; i < got_h.size(); ++i) CHECK(static_cast<float>(got_h[i]) == want_h[i]);
  // back to fp32: exact
  EValue* of = h.out<float>({2, 3, 37});
  REQUIRE(h.call("aten::_to_copy.out", {oh, h.b(false), h.none(), of}));
  const std::vector<float> got_f = Harness::values<float>(of);
  for (size_t i = 0; i < got_f.size(); ++i) CHECK(got_f[i] == want_h[i]);
  // a permuted output (dim order 0, 2, 1): strided rows take the scalar casts, same values
  EValue* perm = h.tensor<float>({2, 3, 37}, std::vector<float>(f.size()), Dynamism::Static, {0, 2, 1});
  REQUIRE(h.call("dim_order_ops::_to_dim_order_copy.out", {oh, h.b(false), h.ints({0, 2, 1}), perm}));
  const float* p = static_cast<const float*>(perm->t->data);  // physical order [2][37][3]
  int bad = 0;
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 37; ++c)
        if (p[a * 111 + c * 3 + b] != want_h[static_cast<size_t>(a * 111 + b * 37 + c)]) ++bad;
  CHECK(bad == 0);
}
