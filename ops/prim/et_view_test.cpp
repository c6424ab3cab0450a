// Tests for executorch_prim::et_view.default.
#include <doctest/doctest.h>

#include "tests/op_harness.h"

namespace pte {
namespace {

using test::Harness;

TEST_CASE("prim: et_view resizes out and points it at self's data") {
  Harness h;
  EValue* x = h.tensor<float>({6}, {1, 2, 3, 4, 5, 6});
  EValue* out = h.out<float>({2, 4}, 8);
  REQUIRE(h.call("executorch_prim::et_view.default", {x, h.ints({2, -1}), out}, false));
  CHECK(Harness::shape(out) == std::vector<int64_t>{2, 3});
  CHECK(out->t->data == x->t->data);
  CHECK(Harness::values<float>(out) == std::vector<float>{1, 2, 3, 4, 5, 6});
  REQUIRE(h.call("executorch_prim::et_view.default", {x, h.ints({3, 2}), out}, false));
  CHECK(Harness::shape(out) == std::vector<int64_t>{3, 2});
  CHECK(out->t->strides[0] == 2);
}

TEST_CASE("prim: et_view errors") {
  Harness h;
  EValue* x = h.tensor<float>({6}, {1, 2, 3, 4, 5, 6});
  EValue* out = h.out<float>({2, 4}, 8);
  CHECK_FALSE(h.call("executorch_prim::et_view.default", {x, h.ints({-1, -1}), out}, false));
  CHECK(h.message == "at most one size may be -1");
  CHECK_FALSE(h.call("executorch_prim::et_view.default", {x, h.ints({4, -1}), out}, false));
  CHECK_FALSE(h.call("executorch_prim::et_view.default", {x, h.ints({4, 2}), out}, false));
  CHECK(h.message == "cannot view 6 elements as 8");
  CHECK_FALSE(h.call("executorch_prim::et_view.default", {x, h.ints({6}), out}, false));
  CHECK(h.message == "size has 1 entries but out has rank 2");
  EValue* ints = h.out<int64_t>({2, 3}, 6);
  CHECK_FALSE(h.call("executorch_prim::et_view.default", {x, h.ints({2, 3}), ints}, false));
  CHECK(h.message == "self is float32 but out is int64");
  EValue* cl = h.tensor<float>({1, 2, 3}, std::vector<float>(6, 0.0f), Dynamism::Static, {0, 2, 1});
  EValue* out3 = h.out<float>({1, 3, 2}, 6);
  CHECK_FALSE(h.call("executorch_prim::et_view.default", {cl, h.ints({1, 3, 2}), out3}, false));
  // A static out must already have the viewed shape.
  EValue* fixed = h.tensor<float>({3, 2}, std::vector<float>(6, 0.0f));
  CHECK_FALSE(h.call("executorch_prim::et_view.default", {x, h.ints({2, 3}), fixed}, false));
  REQUIRE(h.call("executorch_prim::et_view.default", {x, h.ints({3, 2}), fixed}, false));
  CHECK(fixed->t->data == x->t->data);
}

}  // namespace
}  // namespace pte
