#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::masked_select.out: broadcast mask, data-dependent length") {
  Harness h;
  auto* x = h.tensor<float>({3, 4}, iota<float>(12));
  auto* m = h.tensor<bool>({4}, {true, false, false, true});
  auto* o = h.out<float>({12}, 12);
  REQUIRE(h.call("aten::masked_select.out", {x, m, o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{6});
  CHECK(Harness::values<float>(o) == std::vector<float>{0, 3, 4, 7, 8, 11});
  // column-major x: row-major order of the logical elements is kept
  auto* xc = h.tensor<int32_t>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});  // [[1,2],[3,4]]
  auto* oc = h.out<int32_t>({4}, 4);
  REQUIRE(h.call("aten::masked_select.out", {xc, h.tensor<bool>({2, 2}, {false, true, true, true}), oc}));
  CHECK(Harness::values<int32_t>(oc) == std::vector<int32_t>{2, 3, 4});
  CHECK_FALSE(h.call("aten::masked_select.out", {x, h.tensor<bool>({3}, {true, true, true}), o}));
  CHECK(h.message.find("broadcast") != std::string::npos);
  CHECK_FALSE(h.call("aten::masked_select.out", {x, m, h.out<float>({2}, 2)}));  // 6 do not fit
}

TEST_CASE("aten::masked_scatter.out: fills true positions from source in order") {
  Harness h;
  auto* x = h.tensor<float>({2, 3}, std::vector<float>(6, 0.f));
  auto* m = h.tensor<bool>({2, 3}, {true, false, true, false, true, false});
  auto* o = h.out<float>({2, 3});
  REQUIRE(h.call("aten::masked_scatter.out", {x, m, h.tensor<float>({4}, {1, 2, 3, 4}), o}));
  CHECK(Harness::values<float>(o) == std::vector<float>{1, 0, 2, 0, 3, 0});
  auto* oi = h.out<int64_t>({2, 2});
  REQUIRE(h.call("aten::masked_scatter.out", {h.tensor<int64_t>({2, 2}, {5, 6, 7, 8}), h.tensor<bool>({2}, {false, true}),
                                              h.tensor<int64_t>({2}, {-1, -2}), oi}));
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{5, -1, 7, -2});
  CHECK_FALSE(h.call("aten::masked_scatter.out", {x, m, h.tensor<float>({2}, {1, 2}), o}));
  CHECK(h.message.find("more true") != std::string::npos);
}
