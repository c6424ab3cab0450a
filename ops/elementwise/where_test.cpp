// Tests of aten::where.self_out.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("where.self_out: attention mask [3,3] with a -inf zero-dim, scores [2,3,3]") {
  Harness h;
  const double ninf = -std::numeric_limits<double>::infinity();
  EValue* mask = h.tensor<bool>({3, 3}, {false, true, true, false, false, true, false, false, false});
  EValue* fill = h.tensor<float>({}, {-std::numeric_limits<float>::infinity()});
  std::vector<float> s(18);
  for (int i = 0; i < 18; ++i) s[static_cast<size_t>(i)] = static_cast<float>(i);
  EValue* scores = h.tensor<float>({2, 3, 3}, s);
  EValue* o = h.out<float>({1}, 18);
  REQUIRE(h.call("aten::where.self_out", {mask, fill, scores, o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3, 3});
  check_close(Harness::values<float>(o),
              {0, ninf, ninf, 3, 4, ninf, 6, 7, 8, 9, ninf, ninf, 12, 13, ninf, 15, 16, 17}, 0, 0);
}

TEST_CASE("where.self_out: int64 (int_ops), transposed condition, mixed dtypes, f16") {
  Harness h;
  EValue* c = h.tensor<bool>({2, 2}, {true, false, false, true}, Dynamism::Static, {1, 0});  // [[1,0],[0,1]]
  EValue* a = h.tensor<int64_t>({2, 2}, {1, 2, 3, 4});
  EValue* b = h.tensor<int64_t>({2, 2}, {-1, -2, -3, -4});
  EValue* o = h.out<int64_t>({2, 2});
  REQUIRE(h.call("aten::where.self_out", {c, a, b, o}));
  check_equal(Harness::values<int64_t>(o), {1, -2, -3, 4});
  // int64 [1] and f32 zero-dim: result f32
  EValue* c1 = h.tensor<bool>({3}, {true, false, true});
  EValue* i = h.tensor<int64_t>({3}, {7, 8, 9});
  EValue* z = h.tensor<float>({}, {0.5f});
  EValue* of = h.out<float>({3});
  REQUIRE(h.call("aten::where.self_out", {c1, i, z, of}));
  check_close(Harness::values<float>(of), {7, 0.5, 9}, 0, 0);
  EValue* hx = h.tensor<Half>({3}, {Half(1.f), Half(2.f), Half(3.f)});
  EValue* hy = h.tensor<Half>({1}, {Half(-0.5f)});
  EValue* oh = h.out<Half>({3});
  REQUIRE(h.call("aten::where.self_out", {c1, hx, hy, oh}));
  check_close(Harness::values<Half>(oh), {1, -0.5, 3}, 0, 0);
}

TEST_CASE("where.self_out: errors") {
  Harness h;
  EValue* cf = h.tensor<float>({2}, {1, 0});
  EValue* a = h.tensor<float>({2}, {1, 2});
  EValue* o = h.out<float>({2});
  CHECK_FALSE(h.call("aten::where.self_out", {cf, a, a, o}));
  CHECK(h.message == "where expected condition to be a boolean tensor, got float32");
  EValue* c3 = h.tensor<bool>({3}, {true, true, false});
  CHECK_FALSE(h.call("aten::where.self_out", {c3, a, a, o}));
  CHECK(h.message == "shapes [3] and [2] are not broadcastable");
}
