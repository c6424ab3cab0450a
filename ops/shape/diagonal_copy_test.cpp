// Expected values cross-checked with torch.diagonal.
#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::diagonal_copy.out: offsets and dim pairs") {
  Harness h;
  auto* b = h.tensor<float>({2, 3, 4}, iota<float>(24));
  auto* o = h.out<float>({2, 3});
  REQUIRE(h.call("aten::diagonal_copy.out", {b, h.i(1), h.i(1), h.i(2), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 6, 11, 13, 18, 23});
  auto* o2 = h.out<float>({3, 2});
  REQUIRE(h.call("aten::diagonal_copy.out", {b, h.i(-1), h.i(2), h.i(0), o2}));
  CHECK(Harness::values<float>(o2) == std::vector<float>{1, 14, 5, 18, 9, 22});
  auto* a = h.tensor<int32_t>({3, 4}, iota<int32_t>(12));
  auto* oa = h.out<int32_t>({4}, 4);
  REQUIRE(h.call("aten::diagonal_copy.out", {a, h.i(0), h.i(0), h.i(1), oa}));
  CHECK(Harness::values<int32_t>(oa) == std::vector<int32_t>{0, 5, 10});
  REQUIRE(h.call("aten::diagonal_copy.out", {a, h.i(5), h.i(0), h.i(1), oa}));
  CHECK(Harness::shape(oa) == std::vector<int64_t>{0});
}

TEST_CASE("aten::diagonal_copy.out: column-major input and errors") {
  Harness h;
  auto* a = h.tensor<float>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});  // [[1,2],[3,4]]
  auto* o = h.out<float>({2});
  REQUIRE(h.call("aten::diagonal_copy.out", {a, h.i(0), h.i(0), h.i(1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 4});
  CHECK_FALSE(h.call("aten::diagonal_copy.out", {a, h.i(0), h.i(1), h.i(-1), o}));
  CHECK(h.message.find("same") != std::string::npos);
  CHECK_FALSE(h.call("aten::diagonal_copy.out", {h.tensor<float>({3}, {1, 2, 3}), h.i(0), h.i(0), h.i(1), o}));
}
