// Tests for executorch_prim::et_copy_index.tensor.
#include <doctest/doctest.h>

#include "tests/op_harness.h"

namespace pte {
namespace {

using test::Harness;

TEST_CASE("prim: et_copy_index stacks rows and grows the first dimension") {
  Harness h;
  EValue* acc = h.out<int32_t>({3, 2}, 6);
  REQUIRE(h.call("executorch_prim::et_copy_index.tensor", {acc, h.tensor<int32_t>({2}, {1, 2}), h.i(0)}, false));
  CHECK(Harness::shape(acc) == std::vector<int64_t>{1, 2});
  REQUIRE(h.call("executorch_prim::et_copy_index.tensor", {acc, h.tensor<int32_t>({2}, {3, 4}), h.i(1)}, false));
  REQUIRE(h.call("executorch_prim::et_copy_index.tensor", {acc, h.tensor<int32_t>({2}, {5, 6}), h.i(2)}, false));
  CHECK(Harness::shape(acc) == std::vector<int64_t>{3, 2});
  CHECK(Harness::values<int32_t>(acc) == std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  CHECK_FALSE(h.call("executorch_prim::et_copy_index.tensor", {acc, h.tensor<int32_t>({2}, {7, 8}), h.i(3)}, false));
  CHECK_FALSE(h.call("executorch_prim::et_copy_index.tensor", {acc, h.tensor<int32_t>({3}, {7, 8, 9}), h.i(0)}, false));
  CHECK_FALSE(h.call("executorch_prim::et_copy_index.tensor", {acc, h.tensor<int32_t>({2, 1}, {7, 8}), h.i(0)}, false));
  CHECK_FALSE(h.call("executorch_prim::et_copy_index.tensor", {acc, h.tensor<int32_t>({2}, {7, 8}), h.i(-1)}, false));
  CHECK_FALSE(h.call("executorch_prim::et_copy_index.tensor", {acc, h.tensor<float>({2}, {7, 8}), h.i(0)}, false));
}

}  // namespace
}  // namespace pte
