#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::repeat_interleave.Tensor_out: index i repeated repeats[i] times") {
  Harness h;
  auto* o = h.out<int64_t>({16}, 16);
  REQUIRE(h.call("aten::repeat_interleave.Tensor_out", {h.tensor<int64_t>({4}, {2, 0, 1, 3}), h.none(), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{6});
  CHECK(Harness::values<int64_t>(o) == std::vector<int64_t>{0, 0, 2, 3, 3, 3});
  auto* o32 = h.out<int32_t>({3});
  REQUIRE(h.call("aten::repeat_interleave.Tensor_out", {h.tensor<int32_t>({2}, {1, 2}), h.i(3), o32}));
  CHECK(Harness::values<int32_t>(o32) == std::vector<int32_t>{0, 1, 1});
}

TEST_CASE("aten::repeat_interleave.Tensor_out: strided repeats and errors") {
  Harness h;
  // a [2,2] column-major tensor is not 1-d: refused
  CHECK_FALSE(h.call("aten::repeat_interleave.Tensor_out", {h.tensor<int64_t>({2, 2}, {1, 1, 1, 1}), h.none(), h.out<int64_t>({4})}));
  CHECK_FALSE(h.call("aten::repeat_interleave.Tensor_out", {h.tensor<int64_t>({2}, {1, -1}), h.none(), h.out<int64_t>({4}, 4)}));
  CHECK(h.message.find("negative") != std::string::npos);
  CHECK_FALSE(h.call("aten::repeat_interleave.Tensor_out", {h.tensor<int64_t>({2}, {1, 1}), h.i(3), h.out<int64_t>({4}, 4)}));
  CHECK_FALSE(h.call("aten::repeat_interleave.Tensor_out", {h.tensor<int64_t>({2}, {3, 3}), h.none(), h.out<int64_t>({4}, 4)}));
}
