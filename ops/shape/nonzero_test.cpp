#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::nonzero.out: coordinates in row-major order") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {0, 1.5f, 0, 2, 0, -1});
  auto* o = h.out<int64_t>({6, 2}, 12);
  REQUIRE(h.call("aten::nonzero.out", {x, o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 2});
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{0, 1, 1, 0, 1, 2});
  auto* b = h.tensor<bool>({4}, {false, true, false, true});
  auto* ob = h.out<int32_t>({4, 1}, 4);
  REQUIRE(h.call("aten::nonzero.out", {b, ob}));
  CHECK(Harness::values<int32_t>(ob) == std::vector<int32_t>{1, 3});
}

TEST_CASE("aten::nonzero.out: column-major input, nothing found, errors") {
  Harness h;
  auto* x = h.tensor<int64_t>({2, 2}, {0, 7, 5, 0}, Dynamism::Static, {1, 0});  // [[0,5],[7,0]]
  auto* o = h.out<int64_t>({4, 2}, 8);
  REQUIRE(h.call("aten::nonzero.out", {x, o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{0, 1, 1, 0});
  REQUIRE(h.call("aten::nonzero.out", {h.tensor<int64_t>({2}, {0, 0}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{0, 1});
  CHECK_FALSE(h.call("aten::nonzero.out", {x, h.out<float>({4, 2})}));
  CHECK_FALSE(h.call("aten::nonzero.out", {h.tensor<float>({3}, {1, 1, 1}), h.out<int64_t>({2, 1}, 2)}));
}
