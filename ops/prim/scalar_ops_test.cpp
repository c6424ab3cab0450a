// Tests for executorch_prim::*.Scalar / *.int (symbolic scalar arithmetic).
#include <doctest/doctest.h>

#include <cmath>

#include "tests/op_harness.h"

namespace pte {
namespace {

using test::Harness;

EValue run(Harness& h, const char* op, std::vector<EValue*> args) {
  EValue* r = h.none();
  args.push_back(r);
  bool ok = h.call(op, args, false);
  REQUIRE_MESSAGE(ok, op << ": " << h.message);
  return *r;
}

TEST_CASE("prim: int arithmetic stays int, a double operand gives double") {
  Harness h;
  EValue r = run(h, "executorch_prim::add.Scalar", {h.i(3), h.i(4)});
  CHECK(r.tag == Tag::Int);
  CHECK(r.i == 7);
  r = run(h, "executorch_prim::add.Scalar", {h.i(3), h.d(0.5)});
  CHECK(r.tag == Tag::Double);
  CHECK(r.d == 3.5);
  CHECK(run(h, "executorch_prim::sub.Scalar", {h.i(3), h.i(10)}).i == -7);
  CHECK(run(h, "executorch_prim::mul.Scalar", {h.i(-6), h.i(7)}).i == -42);
  CHECK(run(h, "executorch_prim::mul.Scalar", {h.d(1.5), h.i(4)}).d == 6.0);
  r = run(h, "executorch_prim::truediv.Scalar", {h.i(7), h.i(2)});
  CHECK(r.tag == Tag::Double);
  CHECK(r.d == 3.5);
  CHECK(run(h, "executorch_prim::neg.Scalar", {h.i(5)}).i == -5);
  CHECK(run(h, "executorch_prim::neg.Scalar", {h.d(-2.5)}).d == 2.5);
  CHECK(run(h, "executorch_prim::sym_max.Scalar", {h.i(3), h.i(9)}).i == 9);
  CHECK(run(h, "executorch_prim::sym_min.Scalar", {h.i(3), h.i(9)}).i == 3);
}

TEST_CASE("prim: floordiv and mod follow Python") {
  Harness h;
  CHECK(run(h, "executorch_prim::floordiv.Scalar", {h.i(7), h.i(2)}).i == 3);
  CHECK(run(h, "executorch_prim::floordiv.Scalar", {h.i(-7), h.i(2)}).i == -4);
  CHECK(run(h, "executorch_prim::floordiv.Scalar", {h.i(7), h.i(-2)}).i == -4);
  CHECK(run(h, "executorch_prim::floordiv.Scalar", {h.i(-8), h.i(2)}).i == -4);
  CHECK(run(h, "executorch_prim::floordiv.int", {h.i(-7), h.i(2)}).i == -4);
  EValue r = run(h, "executorch_prim::floordiv.Scalar", {h.d(-7.5), h.i(2)});
  CHECK(r.tag == Tag::Double);
  CHECK(r.d == -4.0);
  CHECK(run(h, "executorch_prim::floordiv.Scalar", {h.d(7.0), h.d(0.0)}).d == INFINITY);
  CHECK(run(h, "executorch_prim::mod.Scalar", {h.i(7), h.i(3)}).i == 1);
  CHECK(run(h, "executorch_prim::mod.Scalar", {h.i(-7), h.i(3)}).i == 2);
  CHECK(run(h, "executorch_prim::mod.Scalar", {h.i(7), h.i(-3)}).i == -2);
  CHECK(run(h, "executorch_prim::mod.int", {h.i(-1), h.i(128)}).i == 127);
  CHECK(run(h, "executorch_prim::mod.Scalar", {h.d(-1.5), h.i(2)}).d == 0.5);

  EValue* r2 = h.none();
  CHECK_FALSE(h.call("executorch_prim::floordiv.Scalar", {h.i(1), h.i(0), r2}, false));
  CHECK(h.message == "floordiv: integer division by zero");
  CHECK_FALSE(h.call("executorch_prim::mod.int", {h.i(1), h.i(0), r2}, false));
  CHECK_FALSE(h.call("executorch_prim::floordiv.int", {h.d(1), h.i(2), r2}, false));
  CHECK_FALSE(h.call("executorch_prim::add.Scalar", {h.str("a"), h.i(2), r2}, false));
  CHECK(h.message == "add: unsupported operand types String and Int");
}

TEST_CASE("prim: comparisons give Bool, also for two Bools") {
  Harness h;
  EValue r = run(h, "executorch_prim::eq.Scalar", {h.i(3), h.i(3)});
  CHECK(r.tag == Tag::Bool);
  CHECK(r.b == true);
  CHECK(run(h, "executorch_prim::eq.Scalar", {h.i(3), h.d(3.0)}).b == true);
  CHECK(run(h, "executorch_prim::gt.Scalar", {h.i(3), h.i(3)}).b == false);
  CHECK(run(h, "executorch_prim::ge.Scalar", {h.i(3), h.i(3)}).b == true);
  CHECK(run(h, "executorch_prim::lt.Scalar", {h.d(2.5), h.i(3)}).b == true);
  CHECK(run(h, "executorch_prim::le.Scalar", {h.i(4), h.i(3)}).b == false);
  CHECK(run(h, "executorch_prim::eq.Scalar", {h.b(true), h.b(true)}).b == true);
  CHECK(run(h, "executorch_prim::gt.Scalar", {h.b(true), h.b(false)}).b == true);
  // Large ints compare exactly (not through double).
  CHECK(run(h, "executorch_prim::eq.Scalar", {h.i((int64_t{1} << 53) + 1), h.i(int64_t{1} << 53)}).b == false);
}

TEST_CASE("prim: conversions and rounding") {
  Harness h;
  CHECK(run(h, "executorch_prim::ceil.Scalar", {h.d(2.1)}).i == 3);
  CHECK(run(h, "executorch_prim::ceil.Scalar", {h.d(-2.1)}).i == -2);
  CHECK(run(h, "executorch_prim::trunc.Scalar", {h.d(-2.7)}).i == -2);
  CHECK(run(h, "executorch_prim::round.Scalar", {h.d(2.5)}).i == 2);
  CHECK(run(h, "executorch_prim::round.Scalar", {h.d(3.5)}).i == 4);
  CHECK(run(h, "executorch_prim::round.Scalar", {h.d(-2.5)}).i == -2);
  CHECK(run(h, "executorch_prim::round.Scalar", {h.d(2.6)}).i == 3);
  CHECK(run(h, "executorch_prim::sym_int.Scalar", {h.d(-2.7)}).i == -2);
  CHECK(run(h, "executorch_prim::sym_int.Scalar", {h.b(true)}).i == 1);
  EValue f = run(h, "executorch_prim::sym_float.Scalar", {h.i(3)});
  CHECK(f.tag == Tag::Double);
  CHECK(f.d == 3.0);
  EValue n = run(h, "executorch_prim::sym_not.Scalar", {h.b(false)});
  CHECK(n.tag == Tag::Bool);
  CHECK(n.b == true);
  CHECK(run(h, "executorch_prim::sym_ite.Scalar", {h.b(true), h.i(4), h.i(9)}).i == 4);
  CHECK(run(h, "executorch_prim::sym_ite.Scalar", {h.b(false), h.i(4), h.d(0.5)}).d == 0.5);
  EValue* r = h.none();
  CHECK_FALSE(h.call("executorch_prim::ceil.Scalar", {h.d(1e300), r}, false));
  CHECK_FALSE(h.call("executorch_prim::sym_not.Scalar", {h.i(1), r}, false));
}

TEST_CASE("prim: the result may overwrite an operand (i = i + 1)") {
  Harness h;
  EValue* i = h.i(41);
  REQUIRE(h.call("executorch_prim::add.Scalar", {i, h.i(1), i}, false));
  CHECK(i->i == 42);
  EValue* x = h.d(2.5);
  REQUIRE(h.call("executorch_prim::floordiv.Scalar", {x, h.i(2), x}, false));
  CHECK(x->d == 1.0);
}

}  // namespace
}  // namespace pte
