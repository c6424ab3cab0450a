// Tests of aten::sub.out, aten::sub.Scalar_out and aten::rsub.Scalar_out.
#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::check_close;
using pte::test::check_equal;
using pte::test::Harness;

TEST_CASE("sub.out: broadcast, alpha, non-contiguous input, resized output") {
  Harness h;
  EValue* a = h.tensor<float>({2, 3}, {1, 4, 2, 5, 3, 6}, Dynamism::Static, {1, 0});  // [[1,2,3],[4,5,6]]
  EValue* b = h.tensor<float>({2, 1}, {0.5f, 1.f});
  EValue* out = h.out<float>({0}, 8);
  REQUIRE(h.call("aten::sub.out", {a, b, h.d(2.0), out}));
  CHECK(Harness::shape(out) == std::vector<int64_t>{2, 3});
  check_close(Harness::values<float>(out), {0, 1, 2, 2, 3, 4});
}

TEST_CASE("sub.out: integers wrap; f64") {
  Harness h;
  EValue* a = h.tensor<uint8_t>({3}, {0, 10, 255});
  EValue* b = h.tensor<uint8_t>({3}, {1, 3, 255});
  EValue* o = h.out<uint8_t>({3});
  REQUIRE(h.call("aten::sub.out", {a, b, h.i(1), o}));
  check_equal(Harness::values<uint8_t>(o), {255, 7, 0});
  EValue* x = h.tensor<double>({2}, {1e16, 0.25});
  EValue* y = h.tensor<double>({2}, {1.0, 0.5});
  EValue* od = h.out<double>({2});
  REQUIRE(h.call("aten::sub.out", {x, y, h.i(1), od}));
  check_close(Harness::values<double>(od), {1e16 - 1.0, -0.25}, 0, 0);
}

TEST_CASE("sub.Scalar_out and rsub.Scalar_out") {
  Harness h;
  EValue* a = h.tensor<int64_t>({3}, {1, 2, 3});
  EValue* o = h.out<int64_t>({3});
  REQUIRE(h.call("aten::sub.Scalar_out", {a, h.i(5), h.i(2), o}));
  check_equal(Harness::values<int64_t>(o), {-9, -8, -7});
  REQUIRE(h.call("aten::rsub.Scalar_out", {a, h.i(5), h.i(2), o}));  // 5 - 2*a
  check_equal(Harness::values<int64_t>(o), {3, 1, -1});
  EValue* of = h.out<float>({3});
  REQUIRE(h.call("aten::rsub.Scalar_out", {a, h.d(1.5), h.i(1), of}));
  check_close(Harness::values<float>(of), {0.5, -0.5, -1.5});
}

TEST_CASE("sub: bool operands are refused") {
  Harness h;
  EValue* p = h.tensor<bool>({2}, {true, false});
  EValue* o = h.out<bool>({2});
  CHECK_FALSE(h.call("aten::sub.out", {p, p, h.i(1), o}));
  CHECK(h.message.find("bool") != std::string::npos);
}
