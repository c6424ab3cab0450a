#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::unsqueeze_copy.out: front, middle, end (negative dim)") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto* o = h.out<float>({1, 2, 3});
  REQUIRE(h.call("aten::unsqueeze_copy.out", {x, h.i(0), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{1, 2, 3});
  auto* o2 = h.out<float>({2, 3, 1});
  REQUIRE(h.call("aten::unsqueeze_copy.out", {x, h.i(-1), o2}));
  CHECK(Harness::shape(o2) == std::vector<int64_t>{2, 3, 1});
  CHECK(Harness::values<float>(o2) == std::vector<float>{1, 2, 3, 4, 5, 6});
  auto* s = h.tensor<int32_t>({}, {42});
  auto* os = h.out<int32_t>({1});
  REQUIRE(h.call("aten::unsqueeze_copy.out", {s, h.i(0), os}));
  CHECK(Harness::values<int32_t>(os) == std::vector<int32_t>{42});
}

TEST_CASE("aten::unsqueeze_copy.out: column-major input, dynamic out, bad dim") {
  Harness h;
  auto* x = h.tensor<Half>({2, 2}, {Half(1), Half(3), Half(2), Half(4)}, Dynamism::Static, {1, 0});
  auto* o = h.out<Half>({4, 4, 4}, 64);
  REQUIRE(h.call("aten::unsqueeze_copy.out", {x, h.i(1), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 1, 2});
  CHECK(as_float<Half>(o) == std::vector<float>{1, 2, 3, 4});
  CHECK_FALSE(h.call("aten::unsqueeze_copy.out", {x, h.i(3), h.out<Half>({2, 2, 1})}));
  CHECK(h.message.find("out of range") != std::string::npos);
}
