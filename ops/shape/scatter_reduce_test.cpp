// Expected values cross-checked with torch.scatter_reduce.
#include "ops/shape/shape_test_util.h"

using namespace pte;
using namespace pte::test;

TEST_CASE("aten::scatter_reduce.two_out: every reduction, with and without self") {
  struct Case {
    const char* reduce;
    bool include_self;
    std::vector<float> want;
  };
  const Case cases[] = {
      {"sum", true, {13, 16, 3, 4}},  {"sum", false, {12, 14, 3, 4}}, {"prod", true, {35, 96, 3, 4}},
      {"prod", false, {35, 48, 3, 4}}, {"mean", false, {6, 7, 3, 4}},  {"amax", true, {7, 8, 3, 4}},
      {"amin", true, {1, 2, 3, 4}},    {"amin", false, {5, 6, 3, 4}},
  };
  for (const Case& c : cases) {
    Harness h;
    auto* o = h.out<float>({4});
    INFO(c.reduce, " include_self=", c.include_self);
    REQUIRE(h.call("aten::scatter_reduce.two_out",
                   {h.tensor<float>({4}, {1, 2, 3, 4}), h.i(0), h.tensor<int64_t>({4}, {0, 1, 0, 1}),
                    h.tensor<float>({4}, {5, 6, 7, 8}), h.str(c.reduce), h.b(c.include_self), o}));
    CHECK(Harness::values<float>(o) == c.want);
  }
  Harness h;
  auto* o = h.out<float>({4});
  REQUIRE(h.call("aten::scatter_reduce.two_out", {h.tensor<float>({4}, {1, 2, 3, 4}), h.i(0), h.tensor<int64_t>({4}, {0, 1, 0, 1}),
                                                   h.tensor<float>({4}, {5, 6, 7, 8}), h.str("mean"), h.b(true), o}));
  CHECK(Harness::values<float>(o)[0] == doctest::Approx(13.0 / 3));
  CHECK(Harness::values<float>(o)[1] == doctest::Approx(16.0 / 3));
}

TEST_CASE("aten::scatter_reduce.two_out: integer mean floors; 2-d column-major src; errors") {
  Harness h;
  auto* oi = h.out<int64_t>({3});
  REQUIRE(h.call("aten::scatter_reduce.two_out", {h.tensor<int64_t>({3}, {10, 20, 30}), h.i(0), h.tensor<int64_t>({3}, {0, 0, 1}),
                                                   h.tensor<int64_t>({3}, {1, 2, -7}), h.str("mean"), h.b(true), oi}));
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{4, 6, 30});
  REQUIRE(h.call("aten::scatter_reduce.two_out", {h.tensor<int64_t>({3}, {0, 0, 0}), h.i(0), h.tensor<int64_t>({2}, {2, 2}),
                                                   h.tensor<int64_t>({2}, {-6, -7}), h.str("mean"), h.b(true), oi}));
  CHECK(Harness::values<int64_t>(oi) == std::vector<int64_t>{0, 0, -5});  // floor(-13 / 3)
  // src [[1,2],[3,4]] column-major, amax along dim 1 into [2,1]
  auto* src = h.tensor<float>({2, 2}, {1, 3, 2, 4}, Dynamism::Static, {1, 0});
  auto* o = h.out<float>({4, 4}, 16);
  REQUIRE(h.call("aten::scatter_reduce.two_out", {h.tensor<float>({2, 1}, {0, 10}), h.i(1), h.tensor<int64_t>({2, 2}, {0, 0, 0, 0}),
                                                   src, h.str("amax"), h.b(true), o}));
  CHECK(Harness::shape(o) == std::vector<int64_t>{2, 1});
  CHECK(Harness::values<float>(o) == std::vector<float>{2, 10});
  CHECK_FALSE(h.call("aten::scatter_reduce.two_out", {h.tensor<float>({2}, {0, 0}), h.i(0), h.tensor<int64_t>({1}, {0}),
                                                       h.tensor<float>({1}, {1}), h.str("max"), h.b(true), h.out<float>({2})}));
  CHECK(h.message.find("reduce") != std::string::npos);
}
