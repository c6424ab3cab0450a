#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::cat.out: along dim 0 and dim 1") {
  Harness h;
  auto* a = h.tensor<float>({1, 2}, {1, 2});
  auto* b = h.tensor<float>({2, 2}, {3, 4, 5, 6});
  auto* o = h.out<float>({3, 2});
  REQUIRE(h.call("aten::cat.out", {h.list({a, b}), h.i(0), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 4, 5, 6});
  auto* c = h.tensor<float>({2, 1}, {7, 8});
  auto* o2 = h.out<float>({2, 3});
  REQUIRE(h.call("aten::cat.out", {h.list({b, c}), h.i(-1), o2}));
  CHECK(Harness::values<float>(o2) == std::vector<float>{3, 4, 7, 5, 6, 8});
}

TEST_CASE("aten::cat.out: legacy empty [0] tensors are skipped; mixed dtypes convert to out") {
  Harness h;
  auto* e = h.tensor<float>({0}, {});
  auto* a = h.tensor<int64_t>({2, 2}, {1, 2, 3, 4});
  auto* b = h.tensor<float>({2, 1}, {0.5f, 1.5f});
  auto* o = h.out<float>({2, 3});
  REQUIRE(h.call("aten::cat.out", {h.list({e, a, e, b}), h.i(1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 0.5f, 3, 4, 1.5f});
  // a [2,0] tensor is not skipped but contributes nothing
  auto* z = h.tensor<float>({2, 0}, {});
  REQUIRE(h.call("aten::cat.out", {h.list({z, b}), h.i(1), h.out<float>({2, 1})}));
  // only empties: an empty 1-d result
  auto* oe = h.out<float>({4}, 4);
  REQUIRE(h.call("aten::cat.out", {h.list({e, e}), h.i(0), oe}));
  CHECK(Harness::shape(oe) == std::vector<int64_t>{0});
}

TEST_CASE("aten::cat.out: non-contiguous inputs into a channels-last output, dynamic size") {
  Harness h;
  // a: logical [[1,2],[3,4]] column-major; b: [[5,6]]
  auto* a = h.tensor<int32_t>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});
  auto* b = h.tensor<int32_t>({1, 2}, {5, 6});
  auto* o = h.out<int32_t>({4, 2}, 8);
  REQUIRE(h.call("aten::cat.out", {h.list({a, b}), h.i(0), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 2});
  CHECK(Harness::values<int32_t>(o) == std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  // channels-last output [1,2,1,2] from two [1,1,1,2] inputs along C
  auto* p = h.tensor<float>({1, 1, 1, 2}, {1, 2});
  auto* q = h.tensor<float>({1, 1, 1, 2}, {3, 4});
  auto* ocl = h.tensor<float>({1, 2, 1, 2}, std::vector<float>(4), Dynamism::Static, {0, 2, 3, 1});
  REQUIRE(h.call("aten::cat.out", {h.list({p, q}), h.i(1), ocl}));
  CHECK(Harness::values<float>(ocl) == std::vector<float>{1, 2, 3, 4});
  CHECK(raw<float>(ocl) == std::vector<float>{1, 3, 2, 4});
}

TEST_CASE("aten::cat.out: errors") {
  Harness h;
  auto* a = h.tensor<float>({2, 2}, iota<float>(4));
  auto* b = h.tensor<float>({2, 3}, iota<float>(6));
  CHECK_FALSE(h.call("aten::cat.out", {h.list({a, b}), h.i(0), h.out<float>({4, 2})}));
  CHECK(h.message.find("sizes must match") != std::string::npos);
  auto* c = h.tensor<float>({2}, {1, 2});
  CHECK_FALSE(h.call("aten::cat.out", {h.list({a, c}), h.i(0), h.out<float>({4, 2})}));
  CHECK_FALSE(h.call("aten::cat.out", {h.list({a, a}), h.i(2), h.out<float>({4, 2})}));
  CHECK_FALSE(h.call("aten::cat.out", {h.list({}), h.i(0), h.out<float>({4, 2})}));
}
