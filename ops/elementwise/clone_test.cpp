// Tests of aten::clone.out, alias_copy.out, detach_copy.out and lift_fresh_copy.out.
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("clone.out: transposed input made contiguous (memory_format=contiguous), resized output") {
  Harness h;
  EValue* x = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  EValue* o = h.out<float>({1}, 6);
  REQUIRE(h.call("aten::clone.out", {x, h.i(0), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  const float* raw = o->t->ptr<float>();
  check_close(std::vector<float>(raw, raw + 6), {1, 2, 3, 4, 5, 6}, 0, 0);
  EValue* s = h.tensor<float>({}, {2.5f});
  EValue* os = h.out<float>({});
  REQUIRE(h.call("aten::clone.out", {s, h.none(), os}));
  check_close(Harness::values<float>(os), {2.5}, 0, 0);
}

TEST_CASE("alias_copy / detach_copy / lift_fresh_copy: bool, bf16 and int64 copies") {
  Harness h;
  EValue* b = h.tensor<bool>({2, 2}, {true, false, false, true});
  EValue* ob = h.out<bool>({2, 2});
  REQUIRE(h.call("aten::alias_copy.out", {b, ob}));
  check_equal(Harness::values<bool>(ob), {true, false, false, true});
  EValue* bf = h.tensor<BFloat16>({3}, {BFloat16(1.f), BFloat16(-2.5f), BFloat16(1e30f)});
  EValue* obf = h.out<BFloat16>({3});
  REQUIRE(h.call("aten::detach_copy.out", {bf, obf}));
  for (int i = 0; i < 3; ++i) CHECK(obf->t->ptr<BFloat16>()[i].bits == bf->t->ptr<BFloat16>()[i].bits);
  EValue* l = h.tensor<int64_t>({2}, {INT64_MIN, INT64_MAX});
  EValue* ol = h.out<int64_t>({2});
  REQUIRE(h.call("aten::lift_fresh_copy.out", {l, ol}));
  check_equal(Harness::values<int64_t>(ol), {INT64_MIN, INT64_MAX});
}

TEST_CASE("clone: errors") {
  Harness h;
  EValue* x = h.tensor<float>({3}, {1, 2, 3});
  EValue* fixed = h.tensor<float>({2}, {0, 0});
  CHECK_FALSE(h.call("aten::alias_copy.out", {x, fixed}));
  CHECK(h.message.find("cannot resize output") != std::string::npos);
  CHECK_FALSE(h.call("aten::clone.out", {x, h.d(1.0), h.out<float>({3})}));
  CHECK(h.message == "argument memory_format: expected an Int or None, got Double");
}
