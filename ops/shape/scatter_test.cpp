// Expected values cross-checked with torch.scatter / scatter_add.
#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::scatter.src_out: rows of src to the indexed rows") {
  Harness h;
  auto* self = h.tensor<float>({3, 3}, std::vector<float>(9, 0.f));
  auto* src = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({3, 3});
  REQUIRE(h.call("aten::scatter.src_out", {self, h.i(0), h.tensor<int64_t>({2, 3}, {0, 1, 2, 2, 0, 0}), src, o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 5, 6, 0, 2, 0, 4, 0, 3});
}

TEST_CASE("aten::scatter.value_out and scatter_add.out") {
  Harness h;
  auto* self = h.tensor<int64_t>({2, 3}, {1, 1, 1, 1, 1, 1});
  auto* o = h.out<int64_t>({2, 3});
  REQUIRE(h.call("aten::scatter.value_out", {self, h.i(1), h.tensor<int64_t>({2, 1}, {2, 0}), h.d(9.0), o}));
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{1, 1, 9, 9, 1, 1});
  auto* f = h.tensor<float>({2, 3}, std::vector<float>(6, 1.f));
  auto* of = h.out<float>({2, 3});
  REQUIRE(h.call("aten::scatter_add.out", {f, h.i(1), h.tensor<int64_t>({2, 2}, {0, 0, 2, 1}), h.tensor<float>({2, 2}, {1, 2, 3, 4}), of}));
  CHECK(Harness::values<float>(of) == std::vector<float>{4, 1, 1, 1, 5, 4});
  auto* bf = h.tensor<BFloat16>({2}, {BFloat16(0.5f), BFloat16(1.f)});
  auto* obf = h.out<BFloat16>({2});
  REQUIRE(h.call("aten::scatter_add.out", {bf, h.i(0), h.tensor<int64_t>({2}, {1, 1}), h.tensor<BFloat16>({2}, {BFloat16(2.f), BFloat16(4.f)}), obf}));
  CHECK(as_float<BFloat16>(obf) == std::vector<float>{0.5f, 7.f});
}

TEST_CASE("aten::scatter.src_out: channels-last self keeps its layout; dynamic out; errors") {
  Harness h;
  // self logical [1,2,1,2] zeros, channels-last
  auto* self = h.tensor<float>({1, 2, 1, 2}, std::vector<float>(4, 0.f), Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.tensor<float>({1, 2, 1, 2}, std::vector<float>(4), Dynamism::Static, {0, 2, 3, 1});
  auto* idx = h.tensor<int64_t>({1, 1, 1, 2}, {1, 0});
  auto* src = h.tensor<float>({1, 1, 1, 2}, {7, 8});
  REQUIRE(h.call("aten::scatter.src_out", {self, h.i(1), idx, src, o}));
  // out[0,1,0,0] = 7, out[0,0,0,1] = 8
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 8, 7, 0});
  CHECK(raw<float>(o) == std::vector<float>{0, 7, 8, 0});
  auto* d = h.out<float>({8}, 8);
  REQUIRE(h.call("aten::scatter.value_out", {h.tensor<float>({3}, {1, 2, 3}), h.i(0), h.tensor<int64_t>({1}, {1}), h.i(0), d}));
  CHECK(Harness::shape(d) == std::vector<int64_t>{3});
  CHECK(Harness::values<float>(d) == std::vector<float>{1, 0, 3});
  CHECK_FALSE(h.call("aten::scatter.value_out", {h.tensor<float>({3}, {1, 2, 3}), h.i(0), h.tensor<int64_t>({1}, {3}), h.i(0), d}));
  CHECK(h.message.find("out of bounds") != std::string::npos);
  CHECK_FALSE(h.call("aten::scatter_add.out", {h.tensor<float>({3}, {1, 2, 3}), h.i(0), h.tensor<int64_t>({2}, {0, 1}), h.tensor<double>({2}, {1, 2}), d}));
  CHECK(h.message.find("dtype") != std::string::npos);
}
