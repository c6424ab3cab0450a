// Tests of aten::copy.out and aten::copy_ (the in-place write-back of mutated buffers).
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("copy_: writes src into self (kv_state write-back), broadcast, dtype conversion") {
  Harness h;
  EValue* cache = h.tensor<float>({2, 3}, std::vector<float>(6, -1.f));
  EValue* src = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  // the return slot is self, as in the exported program (args [self, src, non_blocking, self])
  REQUIRE(h.call("aten::copy_", {cache, src, h.b(false), cache}, false));
  check_close(Harness::values<float>(cache), {1, 2, 3, 4, 5, 6}, 0, 0);
  EValue* row = h.tensor<int64_t>({3}, {7, 8, 9});
  REQUIRE(h.call("aten::copy_", {cache, row, h.b(false), cache}, false));
  check_close(Harness::values<float>(cache), {7, 8, 9, 7, 8, 9}, 0, 0);
  // self non-contiguous: written through its strides
  EValue* t = h.tensor<int32_t>({2, 2}, {0, 0, 0, 0}, Dynamism::Static, {1, 0});
  EValue* s = h.tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  REQUIRE(h.call("aten::copy_", {t, s, h.b(false), t}, false));
  check_equal(Harness::values<int32_t>(t), {1, 2, 3, 4});
  check_equal(std::vector<int32_t>(t->t->ptr<int32_t>(), t->t->ptr<int32_t>() + 4), {1, 3, 2, 4});
}

TEST_CASE("copy.out: out takes self's shape and src's values") {
  Harness h;
  EValue* self = h.tensor<double>({2, 2}, {0, 0, 0, 0});
  EValue* src = h.tensor<float>({2, 1}, {1.5f, -2.5f});
  EValue* o = h.out<double>({1}, 4);
  REQUIRE(h.call("aten::copy.out", {self, src, h.b(false), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2});
  check_close(Harness::values<double>(o), {1.5, 1.5, -2.5, -2.5}, 0, 0);
}

TEST_CASE("copy: errors") {
  Harness h;
  EValue* self = h.tensor<float>({2, 2}, {0, 0, 0, 0});
  EValue* src = h.tensor<float>({3}, {1, 2, 3});
  CHECK_FALSE(h.call("aten::copy_", {self, src, h.b(false), self}, false));
  CHECK(h.message == "copy: source shape [3] does not broadcast to [2,2]");
  CHECK_FALSE(h.call("aten::copy.out", {self, self, h.i(0), h.out<float>({2, 2})}));
  CHECK(h.message.find("non_blocking") != std::string::npos);
}
