#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::expand_copy.out: new leading dim, size-1 broadcast, -1 keeps") {
  Harness h;
  auto* x = h.tensor<float>({3, 1}, {1, 2, 3});
  auto* o = h.out<float>({2, 3, 2});
  REQUIRE(h.call("aten::expand_copy.out", {x, h.ints({2, -1, 2}), h.b(false), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3, 2});
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  auto* b = h.tensor<bool>({1, 2}, {true, false});
  auto* ob = h.out<bool>({3, 2});
  REQUIRE(h.call("aten::expand_copy.out", {b, h.ints({3, 2}), h.b(false), ob}));
  CHECK(Harness::values<bool>(ob) == std::vector<bool>{true, false, true, false, true, false});
}

TEST_CASE("aten::expand_copy.out: non-contiguous input, dynamic output, errors") {
  Harness h;
  // [1,3] stored... a [2,1]-shaped column-major tensor is still dense: logical [[5],[7]]
  auto* x = h.tensor<int16_t>({2, 1}, {5, 7}, Dynamism::Static, {1, 0});
  auto* o = h.out<int16_t>({2, 8}, 16);
  REQUIRE(h.call("aten::expand_copy.out", {x, h.ints({2, 3}), h.b(false), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  CHECK(Harness::values<int16_t>(o) == std::vector<int16_t>{5, 5, 5, 7, 7, 7});
  // a channels-last [1,2,1,2] expanded along H
  auto* cl = h.tensor<float>({1, 2, 1, 2}, {1, 10, 2, 20}, Dynamism::Static, {0, 2, 3, 1});  // x[0,c,0,w]
  auto* ocl = h.out<float>({1, 2, 2, 2});
  REQUIRE(h.call("aten::expand_copy.out", {cl, h.ints({1, 2, 2, 2}), h.b(false), ocl}));
  CHECK(Harness::values<float>(ocl) == std::vector<float>{1, 2, 1, 2, 10, 20, 10, 20});

  CHECK_FALSE(h.call("aten::expand_copy.out", {x, h.ints({3, 3}), h.b(false), h.out<int16_t>({3, 3})}));
  CHECK(h.message.find("must match") != std::string::npos);
  CHECK_FALSE(h.call("aten::expand_copy.out", {x, h.ints({3}), h.b(false), h.out<int16_t>({3})}));
  CHECK_FALSE(h.call("aten::expand_copy.out", {x, h.ints({-1, 2, 3}), h.b(false), h.out<int16_t>({2, 2, 3})}));
}
