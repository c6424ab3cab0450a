#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::narrow_copy.out: range along a dim, negative start") {
  Harness h;
  auto* x = h.tensor<float>({2, 4}, iota<float>(8));
  auto* o = h.out<float>({2, 2});
  REQUIRE(h.call("aten::narrow_copy.out", {x, h.i(1), h.i(1), h.i(2), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 5, 6});
  REQUIRE(h.call("aten::narrow_copy.out", {x, h.i(-1), h.i(-2), h.i(2), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{2, 3, 6, 7});
  auto* xi = h.tensor<int64_t>({3, 1}, {1, 2, 3});
  auto* oi = h.out<int64_t>({3, 1}, 3);
  REQUIRE(h.call("aten::narrow_copy.out", {xi, h.i(0), h.i(1), h.i(2), oi}));
  CHECK(Harness::shape(oi) == std::vector<int64_t>{2, 1});
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{2, 3});
}

TEST_CASE("aten::narrow_copy.out: column-major input and range errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  auto* o = h.out<float>({2, 2});
  REQUIRE(h.call("aten::narrow_copy.out", {x, h.i(1), h.i(1), h.i(2), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{2, 3, 5, 6});
  CHECK_FALSE(h.call("aten::narrow_copy.out", {x, h.i(1), h.i(2), h.i(2), o}));
  CHECK(h.message.find("exceeds") != std::string::npos);
  CHECK_FALSE(h.call("aten::narrow_copy.out", {x, h.i(1), h.i(-4), h.i(1), o}));
}
