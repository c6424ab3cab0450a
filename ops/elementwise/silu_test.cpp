// Tests of aten::silu.out (expected values printed by torch 2.13).
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

TEST_CASE("silu.out: f32, f64, transposed input, resized output, int refused") {
  Harness h;
  EValue* x = h.tensor<float>({7}, {-100, -3, -0.5f, 0, 0.5f, 3, 100});
  EValue* o = h.out<float>({1}, 7);
  REQUIRE(h.call("aten::silu.out", {x, o}));
  check_close(Harness::values<float>(o),
              {-0.0, -0.14227761328220367, -0.1887703388929367, 0.0, 0.3112296760082245, 2.857722520828247, 100.0});
  EValue* xd = h.tensor<double>({2}, {-1, 2});
  EValue* od = h.out<double>({2});
  REQUIRE(h.call("aten::silu.out", {xd, od}));
  check_close(Harness::values<double>(od), {-0.2689414213699951, 1.7615941559557646}, 1e-15, 0);
  EValue* t = h.tensor<float>({2, 2}, {-3, 3, 0.5f, -0.5f}, Dynamism::Static, {1, 0});  // [[-3,0.5],[3,-0.5]]
  EValue* ot = h.out<float>({2, 2});
  REQUIRE(h.call("aten::silu.out", {t, ot}));
  check_close(Harness::values<float>(ot), {-0.14227761328220367, 0.3112296760082245, 2.857722520828247, -0.1887703388929367});
  EValue* xi = h.tensor<int32_t>({1}, {1});
  CHECK_FALSE(h.call("aten::silu.out", {xi, h.out<float>({1})}));
  CHECK(h.message == "input dtype int32 is not supported (floating dtypes only)");
}
