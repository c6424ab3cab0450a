// Expected values were worked out by hand and cross-checked with torch 2.x index_put.
#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::index_put.out: KV-cache style write along a middle dim") {
  Harness h;
  auto* cache = h.tensor<float>({1, 2, 5, 3}, std::vector<float>(30, 0.f));
  auto* vals = h.tensor<float>({1, 2, 2, 3}, iota<float>(12, 1));
  auto* o = h.out<float>({1, 2, 5, 3});
  auto* idx = h.list({nullptr, nullptr, h.tensor<int64_t>({2}, {1, 3})}, true);
  REQUIRE(h.call("aten::index_put.out", {cache, idx, vals, h.b(false), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 0, 0, 1, 2,  3,  0, 0, 0, 4,  5,  6,  0, 0, 0,
                                                        0, 0, 0, 7, 8,  9,  0, 0, 0, 10, 11, 12, 0, 0, 0});
  // self is left alone
  CHECK(Harness::values<float>(cache) == std::vector<float>(30, 0.f));
}

TEST_CASE("aten::index_put.out: accumulate adds repeated positions; without it values broadcast") {
  Harness h;
  auto* z = h.tensor<float>({3}, {0, 0, 0});
  auto* o = h.out<float>({3});
  REQUIRE(h.call("aten::index_put.out",
                 {z, h.list({h.tensor<int64_t>({3}, {0, 0, 2})}, true), h.tensor<float>({3}, {1, 2, 3}), h.b(true), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{3, 0, 3});
  auto* x = h.tensor<int64_t>({2, 3}, {0, 1, 2, 3, 4, 5});
  auto* oi = h.out<int64_t>({2, 3});
  auto* idx = h.list({h.tensor<int64_t>({2}, {1, 0}), h.tensor<int64_t>({1}, {2})}, true);
  REQUIRE(h.call("aten::index_put.out", {x, idx, h.tensor<int64_t>({2}, {10, 20}), h.b(false), oi}));
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{0, 1, 20, 3, 4, 10});
  // a 0-d value into the true positions of a mask, negative int index with accumulate
  auto* m = h.tensor<bool>({2, 3}, {true, false, true, false, false, true});
  auto* om = h.out<int64_t>({2, 3});
  REQUIRE(h.call("aten::index_put.out",
                 {h.tensor<int64_t>({2, 3}, std::vector<int64_t>(6, 0)), h.list({m}, true), h.tensor<int64_t>({}, {7}), h.b(false), om}));
  CHECK(Harness::values<int64_t>(om) == std::vector<int64_t>{7, 0, 7, 0, 0, 7});
  auto* oa = h.out<int64_t>({2, 3});
  REQUIRE(h.call("aten::index_put.out", {x, h.list({h.tensor<int32_t>({1}, {-1})}, true), h.tensor<int64_t>({3}, {1, 1, 1}), h.b(true), oa}));
  CHECK(Harness::values<int64_t>(oa) == std::vector<int64_t>{0, 1, 2, 4, 5, 6});
}

TEST_CASE("aten::index_put.out: column-major self, half values, dynamic out") {
  Harness h;
  // logical [[1,2],[3,4]] column-major
  auto* x = h.tensor<Half>({2, 2}, {Half(1), Half(3), Half(2), Half(4)}, Dynamism::Static, {1, 0});
  auto* o = h.out<Half>({3, 3}, 9);
  auto* idx = h.list({nullptr, h.tensor<int64_t>({1}, {1})}, true);
  REQUIRE(h.call("aten::index_put.out", {x, idx, h.tensor<Half>({2, 1}, {Half(-1), Half(-2)}), h.b(true), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2});
  CHECK(as_float<Half>(o) == std::vector<float>{1, 1, 3, 2});
}

TEST_CASE("aten::index_put_: in place on self") {
  Harness h;
  auto* x = h.tensor<float>({4}, {1, 2, 3, 4});
  auto* idx = h.list({h.tensor<int64_t>({2}, {3, 0})}, true);
  REQUIRE(h.call("aten::index_put_", {x, idx, h.tensor<float>({2}, {-4, -1}), h.b(false), x}, false));
  CHECK(Harness::values<float>(x) == std::vector<float>{-1, 2, 3, -4});
}

TEST_CASE("aten::index_put.out: errors") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, iota<float>(6));
  auto* o = h.out<float>({2, 3});
  CHECK_FALSE(h.call("aten::index_put.out", {x, h.list({h.tensor<int64_t>({1}, {2})}, true), h.tensor<float>({}, {1}), h.b(false), o}));
  CHECK(h.message.find("out of bounds") != std::string::npos);
  CHECK_FALSE(h.call("aten::index_put.out", {x, h.list({h.tensor<int64_t>({1}, {1})}, true), h.tensor<float>({2}, {1, 2}), h.b(false), o}));
  CHECK(h.message.find("broadcast") != std::string::npos);
  CHECK_FALSE(h.call("aten::index_put.out", {x, h.list({h.tensor<int64_t>({1}, {1})}, true), h.tensor<int64_t>({3}, {1, 2, 3}), h.b(true), o}));
}
