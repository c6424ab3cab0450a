#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::flip.out: one dim, two dims, no dims") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({2, 3});
  REQUIRE(h.call("aten::flip.out", {x, h.ints({1}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{3, 2, 1, 6, 5, 4});
  REQUIRE(h.call("aten::flip.out", {x, h.ints({0, -1}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{6, 5, 4, 3, 2, 1});
  REQUIRE(h.call("aten::flip.out", {x, h.ints({}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 4, 5, 6});
  auto* b = h.tensor<bool>({3}, {true, false, false});
  auto* ob = h.out<bool>({3});
  REQUIRE(h.call("aten::flip.out", {b, h.ints({0}), ob}));
  CHECK(Harness::values<bool>(ob) == std::vector<bool>{false, false, true});
}

TEST_CASE("aten::flip.out: column-major input, dynamic output, repeated dim") {
  Harness h;
  auto* x = h.tensor<int64_t>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  auto* o = h.out<int64_t>({3, 3}, 9);
  REQUIRE(h.call("aten::flip.out", {x, h.ints({0}), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{4, 5, 6, 1, 2, 3});
  CHECK_FALSE(h.call("aten::flip.out", {x, h.ints({0, -2}), o}));
  CHECK(h.message.find("multiple") != std::string::npos);
}
