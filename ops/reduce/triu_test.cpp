#include <doctest/doctest.h>

#include "op_harness.h"

using pte::test::Harness;
using pte::Dynamism;

TEST_CASE("triu.out / tril.out with diagonals") {
  Harness h;
  auto* x = h.tensor<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto* o = h.out<float>({3, 3});
  REQUIRE(h.call("aten::triu.out", {x, h.i(0), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 2, 3, 0, 5, 6, 0, 0, 9});
  REQUIRE(h.call("aten::triu.out", {x, h.i(1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 2, 3, 0, 0, 6, 0, 0, 0});
  REQUIRE(h.call("aten::tril.out", {x, h.i(0), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 0, 0, 4, 5, 0, 7, 8, 9});
  REQUIRE(h.call("aten::tril.out", {x, h.i(-1), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 0, 0, 4, 0, 0, 7, 8, 0});
}

TEST_CASE("tril.out: batched bool causal mask, non-contiguous input, dynamic out, errors") {
  Harness h;
  auto* ones = h.tensor<bool>({2, 2, 3}, std::vector<bool>(12, true));
  auto* o = h.out<bool>({1}, 12);
  REQUIRE(h.call("aten::tril.out", {ones, h.i(0), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 2, 3});
  std::vector<bool> m = {1, 0, 0, 1, 1, 0};
  std::vector<bool> want = m;
  want.insert(want.end(), m.begin(), m.end());
  CHECK(Harness::values<bool>(o) == want);

  // logical [[1,2],[3,4]] stored column-major
  auto* xn = h.tensor<int64_t>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});
  auto* on = h.out<int64_t>({2, 2});
  REQUIRE(h.call("aten::triu.out", {xn, h.i(0), on}));
  CHECK(Harness::values<int64_t>(on) == std::vector<int64_t>{1, 2, 0, 4});

  auto* v = h.tensor<float>({3}, {1, 2, 3});
  auto* ov = h.out<float>({3});
  CHECK_FALSE(h.call("aten::triu.out", {v, h.i(0), ov}));
  CHECK(h.message.find("2 dims") != std::string::npos);
}
