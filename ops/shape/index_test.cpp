// Expected values were worked out by hand and cross-checked with torch 2.x indexing.
#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

namespace {
// x[i,j,k] = 12i + 4j + k, shape [2,3,4]
EValue* x234(Harness& h) { return h.tensor<float>({2, 3, 4}, iota<float>(24)); }
}  // namespace

TEST_CASE("aten::index.Tensor_out: one index tensor after a None keeps its place") {
  Harness h;
  auto* o = h.out<float>({2, 2, 4});
  REQUIRE(h.call("aten::index.Tensor_out", {x234(h), h.list({nullptr, h.tensor<int64_t>({2}, {2, 0})}, true), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2, 4});
  CHECK(Harness::values<float>(o) == std::vector<float>{8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15});
}

TEST_CASE("aten::index.Tensor_out: separated index tensors put the broadcast dims first") {
  Harness h;
  auto* o = h.out<float>({2, 3});
  auto* idx = h.list({h.tensor<int64_t>({2}, {1, 0}), nullptr, h.tensor<int32_t>({2}, {3, 1})}, true);
  REQUIRE(h.call("aten::index.Tensor_out", {x234(h), idx, o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 3});
  // out[b, j] = x[i_b, j, k_b]: (1,3) -> 15,19,23 ; (0,1) -> 1,5,9
  CHECK(Harness::values<float>(o) == std::vector<float>{15, 19, 23, 1, 5, 9});
}

TEST_CASE("aten::index.Tensor_out: broadcasting index tensors, negative indices") {
  Harness h;
  auto* o = h.out<float>({2, 2, 4});
  auto* idx = h.list({h.tensor<int64_t>({2, 1}, {0, 1}), h.tensor<int64_t>({2}, {0, 2})}, true);
  REQUIRE(h.call("aten::index.Tensor_out", {x234(h), idx, o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23});
  auto* o2 = h.out<float>({1, 4});
  REQUIRE(h.call("aten::index.Tensor_out",
                 {x234(h), h.list({h.tensor<int64_t>({1}, {-1}), h.tensor<int64_t>({1}, {-3})}, true), o2}));
  CHECK(Harness::values<float>(o2) == std::vector<float>{12, 13, 14, 15});
  // every dim indexed: one element per position
  auto* o3 = h.out<float>({3});
  auto* all = h.list({h.tensor<int64_t>({3}, {0, 1, 1}), h.tensor<int64_t>({1}, {2}), h.tensor<int64_t>({3}, {0, 3, -1})}, true);
  REQUIRE(h.call("aten::index.Tensor_out", {x234(h), all, o3}));
  CHECK(Harness::values<float>(o3) == std::vector<float>{8, 23, 23});
}

TEST_CASE("aten::index.Tensor_out: boolean masks (data-dependent size into a dynamic out)") {
  Harness h;
  auto* m = h.tensor<bool>({2, 3}, {true, false, true, false, false, true});
  auto* o = h.out<float>({6, 4}, 24);
  REQUIRE(h.call("aten::index.Tensor_out", {x234(h), h.list({m}, true), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{3, 4});
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23});
  auto* m1 = h.tensor<bool>({3}, {false, true, true});
  auto* o1 = h.out<float>({2, 3, 4}, 24);
  REQUIRE(h.call("aten::index.Tensor_out", {x234(h), h.list({nullptr, m1}, true), o1}));
  CHECK(Harness::shape(o1) == std::vector<int64_t>{2, 2, 4});
  CHECK(Harness::values<float>(o1) == std::vector<float>{4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23});
  // a mask broadcast with an int index, separated by a None
  auto* m4 = h.tensor<bool>({4}, {true, false, false, true});
  auto* o4 = h.out<float>({4, 3}, 12);
  REQUIRE(h.call("aten::index.Tensor_out", {x234(h), h.list({h.tensor<int64_t>({1}, {1}), nullptr, m4}, true), o4}));
  CHECK(Harness::shape(o4) == std::vector<int64_t>{2, 3});
  CHECK(Harness::values<float>(o4) == std::vector<float>{12, 16, 20, 15, 19, 23});
}

TEST_CASE("aten::index.Tensor_out: channels-last self, i64 data") {
  Harness h;
  // logical x[0,c,h,w] = 4c + 2h + w, stored channels-last (memory h, w, c)
  auto* x = h.tensor<int64_t>({1, 2, 2, 2}, {0, 4, 1, 5, 2, 6, 3, 7}, Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.out<int64_t>({1, 2, 2});
  auto* idx = h.list({nullptr, nullptr, h.tensor<int64_t>({1}, {1}), h.tensor<int64_t>({2}, {0, 1})}, true);
  REQUIRE(h.call("aten::index.Tensor_out", {x, idx, o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{2, 3, 6, 7});
}

TEST_CASE("aten::index.Tensor_out: errors") {
  Harness h;
  auto* o = h.out<float>({2, 3, 4}, 24);
  CHECK_FALSE(h.call("aten::index.Tensor_out", {x234(h), h.list({h.tensor<int64_t>({1}, {2})}, true), o}));
  CHECK(h.message.find("out of bounds") != std::string::npos);
  CHECK_FALSE(h.call("aten::index.Tensor_out", {x234(h), h.list({h.tensor<int64_t>({1}, {-3})}, true), o}));
  CHECK_FALSE(h.call("aten::index.Tensor_out",
                     {x234(h), h.list({h.tensor<int64_t>({2}, {0, 1}), h.tensor<int64_t>({3}, {0, 1, 2})}, true), o}));
  CHECK(h.message.find("broadcast") != std::string::npos);
  CHECK_FALSE(h.call("aten::index.Tensor_out", {x234(h), h.list({h.tensor<bool>({3}, {true, true, true})}, true), o}));
  CHECK(h.message.find("mask") != std::string::npos);
  CHECK_FALSE(h.call("aten::index.Tensor_out", {x234(h), h.list({h.tensor<float>({1}, {0})}, true), o}));
}
