#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::slice_copy.Tensor_out: start/end/step with Python clamping") {
  Harness h;
  auto* x = h.tensor<float>({2, 5}, iota<float>(10));  // [[0..4],[5..9]]
  auto* o = h.out<float>({2, 2});
  REQUIRE(h.call("aten::slice_copy.Tensor_out", {x, h.i(1), h.i(1), h.i(4), h.i(2), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 3, 6, 8});
  // None start, end beyond the size, negative start
  auto* o2 = h.out<float>({2, 5}, 10);
  REQUIRE(h.call("aten::slice_copy.Tensor_out", {x, h.i(-1), h.i(-2), h.i(100), h.i(1), o2}));
  CHECK(Harness::shape(o2) == std::vector<int64_t>{2, 2});
  CHECK(Harness::values<float>(o2) == std::vector<float>{3, 4, 8, 9});
  REQUIRE(h.call("aten::slice_copy.Tensor_out", {x, h.i(0), h.none(), h.none(), h.i(1), o2}));
  CHECK(Harness::shape(o2) == std::vector<int64_t>{2, 5});
  CHECK(Harness::values<float>(o2) == iota<float>(10));
  // start past the end -> empty; end before start -> empty
  REQUIRE(h.call("aten::slice_copy.Tensor_out", {x, h.i(1), h.i(7), h.none(), h.i(1), o2}));
  CHECK(Harness::shape(o2) == std::vector<int64_t>{2, 0});
  REQUIRE(h.call("aten::slice_copy.Tensor_out", {x, h.i(1), h.i(3), h.i(-4), h.i(1), o2}));
  CHECK(Harness::shape(o2) == std::vector<int64_t>{2, 0});
  REQUIRE(h.call("aten::slice_copy.Tensor_out", {x, h.i(1), h.i(-100), h.i(2), h.i(1), o2}));
  CHECK(Harness::values<float>(o2) == std::vector<float>{0, 1, 5, 6});
}

TEST_CASE("aten::slice_copy.Tensor_out: channels-last input, i8, errors") {
  Harness h;
  // logical x[0,c,h,w] = 10c + 2h + w (C=2,H=2,W=2), memory (h, w, c)
  auto* x = h.tensor<int8_t>({1, 2, 2, 2}, {0, 10, 1, 11, 2, 12, 3, 13}, Dynamism::Static, {0, 2, 3, 1});
  auto* o = h.out<int8_t>({1, 1, 2, 2});
  REQUIRE(h.call("aten::slice_copy.Tensor_out", {x, h.i(1), h.i(1), h.i(2), h.i(1), o}));
  CHECK(Harness::values<int8_t>(o) == std::vector<int8_t>{10, 11, 12, 13});
  CHECK_FALSE(h.call("aten::slice_copy.Tensor_out", {x, h.i(1), h.i(0), h.i(2), h.i(0), o}));
  CHECK(h.message.find("step") != std::string::npos);
  CHECK_FALSE(h.call("aten::slice_copy.Tensor_out", {x, h.i(4), h.i(0), h.i(2), h.i(1), o}));
  CHECK_FALSE(h.call("aten::slice_copy.Tensor_out", {x, h.i(1), h.i(0), h.i(2), h.i(1), o}));  // static out [1,1,2,2] vs [1,2,2,2]
}

TEST_CASE("aten::slice_scatter.out: writes src into a strided slice of a copy of self") {
  Harness h;
  auto* x = h.tensor<float>({2, 4}, std::vector<float>(8, 0.f));
  auto* src = h.tensor<float>({2, 2}, {1, 2, 3, 4});
  auto* o = h.out<float>({2, 4});
  REQUIRE(h.call("aten::slice_scatter.out", {x, src, h.i(1), h.i(1), h.none(), h.i(2), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 1, 0, 2, 0, 3, 0, 4});
  auto* xi = h.tensor<int64_t>({3}, {7, 8, 9});
  auto* si = h.tensor<int64_t>({1}, {-1});
  auto* oi = h.out<int64_t>({3});
  REQUIRE(h.call("aten::slice_scatter.out", {xi, si, h.i(0), h.i(-1), h.none(), h.i(1), oi}));
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{7, 8, -1});
  CHECK_FALSE(h.call("aten::slice_scatter.out", {xi, si, h.i(0), h.i(0), h.none(), h.i(1), oi}));
  CHECK(h.message.find("shape") != std::string::npos);
}
