// Tests for aten::sym_size.int, aten::sym_numel, aten::_local_scalar_dense.
#include <doctest/doctest.h>

#include "tests/op_harness.h"

namespace pte {
namespace {

using test::Harness;

TEST_CASE("prim: sym_size.int reads the current size, negative dims count from the end") {
  Harness h;
  EValue* x = h.tensor<float>({2, 5, 3}, std::vector<float>(30, 0.0f));
  EValue* r = h.i(0);
  REQUIRE(h.call("aten::sym_size.int", {x, h.i(1), r}, false));
  CHECK(r->tag == Tag::Int);
  CHECK(r->i == 5);
  REQUIRE(h.call("aten::sym_size.int", {x, h.i(-1), r}, false));
  CHECK(r->i == 3);
  // After a resize the new size is seen.
  EValue* d = h.out<float>({8}, 8);
  int64_t four[] = {4};
  REQUIRE(resize_tensor(*d->t, four, 1));
  REQUIRE(h.call("aten::sym_size.int", {d, h.i(0), r}, false));
  CHECK(r->i == 4);
  CHECK_FALSE(h.call("aten::sym_size.int", {x, h.i(3), r}, false));
  CHECK(h.message == "dim 3 is out of range for a tensor of rank 3");
  CHECK_FALSE(h.call("aten::sym_size.int", {h.i(1), h.i(0), r}, false));
}

TEST_CASE("prim: sym_numel") {
  Harness h;
  EValue* x = h.tensor<int64_t>({2, 3, 4}, std::vector<int64_t>(24, 0));
  EValue* r = h.i(0);
  REQUIRE(h.call("aten::sym_numel", {x, r}, false));
  CHECK(r->i == 24);
}

TEST_CASE("prim: _local_scalar_dense returns the first element as Int, Double or Bool") {
  Harness h;
  EValue* r = h.none();
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<float>({1}, {2.75f}), r}, false));
  CHECK(r->tag == Tag::Double);
  CHECK(r->d == 2.75);
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<double>({}, {0.1}), r}, false));
  CHECK(r->d == 0.1);  // float64 keeps its precision
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<int64_t>({2}, {-7, 9}), r}, false));
  CHECK(r->tag == Tag::Int);
  CHECK(r->i == -7);
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<uint8_t>({1}, {200}), r}, false));
  CHECK(r->i == 200);
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<bool>({1}, {true}), r}, false));
  CHECK(r->tag == Tag::Bool);
  CHECK(r->b == true);
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<Half>({1}, {Half(-1.5f)}), r}, false));
  CHECK(r->d == -1.5);
  CHECK_FALSE(h.call("aten::_local_scalar_dense", {h.tensor<float>({0}, {}), r}, false));
}

}  // namespace
}  // namespace pte
