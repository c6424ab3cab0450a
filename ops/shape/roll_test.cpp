#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::roll.out: flattened and per-dim rolls") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({2, 3});
  REQUIRE(h.call("aten::roll.out", {x, h.ints({1}), h.ints({}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{6, 1, 2, 3, 4, 5});
  REQUIRE(h.call("aten::roll.out", {x, h.ints({-1}), h.ints({1}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{2, 3, 1, 5, 6, 4});
  REQUIRE(h.call("aten::roll.out", {x, h.ints({1, 4}), h.ints({0, 1}), o}));
  // rows swap, columns roll by 4 mod 3 = 1
  CHECK(Harness::values<float>(o) == std::vector<float>{6, 4, 5, 3, 1, 2});
  auto* xi = h.tensor<int32_t>({4}, {1, 2, 3, 4});
  auto* oi = h.out<int32_t>({4});
  REQUIRE(h.call("aten::roll.out", {xi, h.ints({-5}), h.ints({0}), oi}));
  CHECK(Harness::values<int32_t>(oi) == std::vector<int32_t>{2, 3, 4, 1});
}

TEST_CASE("aten::roll.out: column-major input (flattened and per dim), dynamic out, errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  auto* o = h.out<float>({3, 3}, 9);
  REQUIRE(h.call("aten::roll.out", {x, h.ints({2}), h.ints({}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  CHECK(Harness::values<float>(o) == std::vector<float>{5, 6, 1, 2, 3, 4});
  REQUIRE(h.call("aten::roll.out", {x, h.ints({1}), h.ints({1}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{3, 1, 2, 6, 4, 5});
  CHECK_FALSE(h.call("aten::roll.out", {x, h.ints({1, 2}), h.ints({0}), o}));
  CHECK(h.message.find("align") != std::string::npos);
  CHECK_FALSE(h.call("aten::roll.out", {x, h.ints({1}), h.ints({2}), o}));
}
