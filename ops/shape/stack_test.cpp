#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::stack.out: new dim at the front, middle and end") {
  Harness h;
  auto* a = h.tensor<float>({2}, {1, 2});
  auto* b = h.tensor<float>({2}, {3, 4});
  auto* o = h.out<float>({2, 2});
  REQUIRE(h.call("aten::stack.out", {h.list({a, b}), h.i(0), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 4});
  REQUIRE(h.call("aten::stack.out", {h.list({a, b}), h.i(-1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 3, 2, 4});
  auto* x = h.tensor<int64_t>({2, 2}, {1, 2, 3, 4});
  auto* y = h.tensor<int64_t>({2, 2}, {5, 6, 7, 8});
  auto* o3 = h.out<int64_t>({2, 2, 2});
  REQUIRE(h.call("aten::stack.out", {h.list({x, y}), h.i(1), o3}));
  CHECK(Harness::values<int64_t>(o3) == std::vector<int64_t>{1, 2, 5, 6, 3, 4, 7, 8});
}

TEST_CASE("aten::stack.out: column-major input, dynamic output, errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});  // [[1,2],[3,4]]
  auto* y = h.tensor<float>({2, 2}, {5, 6, 7, 8});
  auto* o = h.out<float>({3, 2, 2}, 12);
  REQUIRE(h.call("aten::stack.out", {h.list({x, y}), h.i(0), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2, 2});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  auto* z = h.tensor<float>({2, 1}, {1, 2});
  CHECK_FALSE(h.call("aten::stack.out", {h.list({x, z}), h.i(0), o}));
  CHECK(h.message.find("equal size") != std::string::npos);
  CHECK_FALSE(h.call("aten::stack.out", {h.list({x, y}), h.i(4), o}));
}
