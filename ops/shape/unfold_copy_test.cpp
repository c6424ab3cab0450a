#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::unfold_copy.out: sliding windows") {
  Harness h;
  auto* a = h.tensor<float>({3, 4}, iota<float>(12));
  auto* o = h.out<float>({3, 3, 2});
  REQUIRE(h.call("aten::unfold_copy.out", {a, h.i(1), h.i(2), h.i(1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 1, 1, 2, 2, 3, 4, 5, 5, 6, 6, 7, 8, 9, 9, 10, 10, 11});
  auto* v = h.tensor<int64_t>({7}, iota<int64_t>(7));
  auto* ov = h.out<int64_t>({4, 4}, 16);
  REQUIRE(h.call("aten::unfold_copy.out", {v, h.i(0), h.i(3), h.i(2), ov}));
  CHECK(Harness::shape(ov) == std::vector<int64_t>{3, 3});
  CHECK(Harness::values<int64_t>(ov) == std::vector<int64_t>{0, 1, 2, 2, 3, 4, 4, 5, 6});
}

TEST_CASE("aten::unfold_copy.out: column-major input and errors") {
  Harness h;
  auto* a = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  auto* o = h.out<float>({2, 2, 2});
  REQUIRE(h.call("aten::unfold_copy.out", {a, h.i(-1), h.i(2), h.i(1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 2, 3, 4, 5, 5, 6});
  CHECK_FALSE(h.call("aten::unfold_copy.out", {a, h.i(1), h.i(4), h.i(1), o}));
  CHECK(h.message.find("maximum size") != std::string::npos);
  CHECK_FALSE(h.call("aten::unfold_copy.out", {a, h.i(1), h.i(2), h.i(0), o}));
}
