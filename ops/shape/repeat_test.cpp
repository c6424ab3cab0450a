#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::repeat.out: tiles, with extra leading dims") {
  Harness h;
  auto* x = h.tensor<float>({2}, {1, 2});
  auto* o = h.out<float>({2, 4});
  REQUIRE(h.call("aten::repeat.out", {x, h.ints({2, 2}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 1, 2, 1, 2, 1, 2});
  auto* m = h.tensor<int64_t>({2, 2}, {1, 2, 3, 4});
  auto* om = h.out<int64_t>({4, 2});
  REQUIRE(h.call("aten::repeat.out", {m, h.ints({2, 1}), om}));
  CHECK(Harness::values<int64_t>(om) == std::vector<int64_t>{1, 2, 3, 4, 1, 2, 3, 4});
  auto* om2 = h.out<int64_t>({2, 6});
  REQUIRE(h.call("aten::repeat.out", {m, h.ints({1, 3}), om2}));
  CHECK(Harness::values<int64_t>(om2) == std::vector<int64_t>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
}

TEST_CASE("aten::repeat.out: column-major input, dynamic out, zero repeats, errors") {
  Harness h;
  auto* m = h.tensor<float>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});  // [[1,2],[3,4]]
  auto* o = h.out<float>({4, 4}, 16);
  REQUIRE(h.call("aten::repeat.out", {m, h.ints({1, 2}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 4});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4});
  REQUIRE(h.call("aten::repeat.out", {m, h.ints({0, 2}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{0, 4});
  CHECK_FALSE(h.call("aten::repeat.out", {m, h.ints({2}), o}));
  CHECK_FALSE(h.call("aten::repeat.out", {m, h.ints({-1, 2}), o}));
}
