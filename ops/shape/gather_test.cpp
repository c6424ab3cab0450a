#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::gather.out: along dim 1 and dim 0 (index smaller than self)") {
  Harness h;
  auto* x = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* o = h.out<float>({2, 2});
  REQUIRE(h.call("aten::gather.out", {x, h.i(1), h.tensor<int64_t>({2, 2}, {0, 0, 1, 0}), h.b(false), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 1, 4, 3});
  auto* y = h.tensor<int32_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto* oy = h.out<int32_t>({1, 2});
  REQUIRE(h.call("aten::gather.out", {y, h.i(0), h.tensor<int64_t>({1, 2}, {2, 0}), h.b(false), oy}));
  CHECK(Harness::values<int32_t>(oy) == std::vector<int32_t>{5, 2});
}

TEST_CASE("aten::gather.out: column-major self and index, dynamic out") {
  Harness h;
  auto* x = h.tensor<double>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  // index [[2,1],[0,2]] stored column-major
  auto* idx = h.tensor<int64_t>({2, 2}, {2, 0, 1, 2}, Dynamism::Static, {1, 0});
  auto* o = h.out<double>({3, 3}, 9);
  REQUIRE(h.call("aten::gather.out", {x, h.i(-1), idx, h.b(false), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2});
  CHECK(Harness::values<double>(o) == std::vector<double>{3, 2, 4, 6});
}

TEST_CASE("aten::gather.out: negative or too large index, bad shapes") {
  Harness h;
  auto* x = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* o = h.out<float>({2, 2});
  CHECK_FALSE(h.call("aten::gather.out", {x, h.i(1), h.tensor<int64_t>({2, 2}, {0, 2, 0, 0}), h.b(false), o}));
  CHECK(h.message.find("out of bounds") != std::string::npos);
  CHECK_FALSE(h.call("aten::gather.out", {x, h.i(1), h.tensor<int64_t>({2, 2}, {0, -1, 0, 0}), h.b(false), o}));
  CHECK_FALSE(h.call("aten::gather.out", {x, h.i(1), h.tensor<int64_t>({3, 1}, {0, 0, 0}), h.b(false), o}));
  CHECK(h.message.find("exceeds") != std::string::npos);
  CHECK_FALSE(h.call("aten::gather.out", {x, h.i(1), h.tensor<float>({2, 2}, {0, 0, 0, 0}), h.b(false), o}));
}
