// executorch_prim::*.Scalar: arithmetic on symbolic scalars (SymInt / SymFloat / SymBool)
// computed at run time, e.g. a sequence length derived from an input's shape.
//
//   add, sub, mul, floordiv, truediv, mod, sym_max, sym_min (a, b) -> Scalar      args: a, b, return
//   eq, gt, ge, lt, le (a, b) -> bool                                              args: a, b, return
//   neg, ceil, round, trunc, sym_float, sym_int, sym_not (a) -> Scalar             args: a, return
//   sym_ite(bool b, t, f) -> Scalar                                                args: b, t, f, return
//   floordiv.int, mod.int (int a, int b) -> int                                    args: a, b, return
//
// Int op Int stays Int; a Double on either side gives a Double (Python rules).
// floordiv and mod follow Python (floor division; the remainder takes the divisor's
// sign); division by an integer zero fails instead of trapping. Comparisons also
// accept two Bools. The result is written into the return slot EValue.
#include <algorithm>
#include <cmath>

#include "ops/util.h"

namespace pte {

namespace {

bool is_number(const EValue* v) { return v && (v->tag == Tag::Int || v->tag == Tag::Double); }

void set_int(EValue* out, int64_t v) { out->tag = Tag::Int; out->i = v; }
void set_double(EValue* out, double v) { out->tag = Tag::Double; out->d = v; }
void set_bool(EValue* out, bool v) { out->tag = Tag::Bool; out->b = v; }

bool bad_args(KernelContext& ctx, const char* op, const EValue* a, const EValue* b) {
  if (b) return ctx.fail("%s: unsupported operand types %s and %s", op, a ? tag_name(a->tag) : "nothing", tag_name(b->tag));
  return ctx.fail("%s: unsupported operand type %s", op, a ? tag_name(a->tag) : "nothing");
}

int64_t floordiv_int(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t mod_int(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

double floordiv_double(double a, double b) {
  if (b == 0) return a == 0 || std::isnan(a) ? NAN : (std::signbit(a) != std::signbit(b) ? -INFINITY : INFINITY);
  double m = std::fmod(a, b);
  double d = (a - m) / b;
  if (m != 0 && (std::signbit(b) != std::signbit(m))) d -= 1;
  return d;
}

double mod_double(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && (std::signbit(r) != std::signbit(b))) r += b;
  return r;
}

enum class Arith { Add, Sub, Mul, FloorDiv, TrueDiv, Mod, Max, Min };

bool arith(KernelContext& ctx, EValue** args, Arith op, const char* name) {
  const EValue* a = args[0];
  const EValue* b = args[1];
  if (!is_number(a) || !is_number(b)) return bad_args(ctx, name, a, b);
  if (a->tag == Tag::Int && b->tag == Tag::Int && op != Arith::TrueDiv) {
    int64_t x = a->i, y = b->i;
    switch (op) {
      case Arith::Add: set_int(args[2], static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y))); return true;
      case Arith::Sub: set_int(args[2], static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y))); return true;
      case Arith::Mul: set_int(args[2], static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y))); return true;
      case Arith::Max: set_int(args[2], std::max(x, y)); return true;
      case Arith::Min: set_int(args[2], std::min(x, y)); return true;
      case Arith::FloorDiv:
      case Arith::Mod:
        if (y == 0) return ctx.fail("%s: integer division by zero", name);
        if (x == INT64_MIN && y == -1) return ctx.fail("%s: integer overflow", name);
        set_int(args[2], op == Arith::FloorDiv ? floordiv_int(x, y) : mod_int(x, y));
        return true;
      default: break;
    }
  }
  double x = a->to_double(), y = b->to_double();
  switch (op) {
    case Arith::Add: set_double(args[2], x + y); break;
    case Arith::Sub: set_double(args[2], x - y); break;
    case Arith::Mul: set_double(args[2], x * y); break;
    case Arith::TrueDiv: set_double(args[2], x / y); break;
    case Arith::FloorDiv: set_double(args[2], floordiv_double(x, y)); break;
    case Arith::Mod:
      if (y == 0) return ctx.fail("%s: modulo by zero", name);
      set_double(args[2], mod_double(x, y));
      break;
    case Arith::Max: set_double(args[2], std::max(x, y)); break;
    case Arith::Min: set_double(args[2], std::min(x, y)); break;
  }
  return true;
}

enum class Cmp { Eq, Gt, Ge, Lt, Le };

bool compare(KernelContext& ctx, EValue** args, Cmp op, const char* name) {
  const EValue* a = args[0];
  const EValue* b = args[1];
  bool r;
  if (a->tag == Tag::Bool && b->tag == Tag::Bool) {
    int x = a->b, y = b->b;
    r = op == Cmp::Eq ? x == y : op == Cmp::Gt ? x > y : op == Cmp::Ge ? x >= y : op == Cmp::Lt ? x < y : x <= y;
  } else if (a->tag == Tag::Int && b->tag == Tag::Int) {
    int64_t x = a->i, y = b->i;
    r = op == Cmp::Eq ? x == y : op == Cmp::Gt ? x > y : op == Cmp::Ge ? x >= y : op == Cmp::Lt ? x < y : x <= y;
  } else if (is_number(a) && is_number(b)) {
    double x = a->to_double(), y = b->to_double();
    r = op == Cmp::Eq ? x == y : op == Cmp::Gt ? x > y : op == Cmp::Ge ? x >= y : op == Cmp::Lt ? x < y : x <= y;
  } else {
    return bad_args(ctx, name, a, b);
  }
  set_bool(args[2], r);
  return true;
}

}  // namespace

bool prim_add_scalar(KernelContext& ctx, EValue** args) { return arith(ctx, args, Arith::Add, "add"); }
bool prim_sub_scalar(KernelContext& ctx, EValue** args) { return arith(ctx, args, Arith::Sub, "sub"); }
bool prim_mul_scalar(KernelContext& ctx, EValue** args) { return arith(ctx, args, Arith::Mul, "mul"); }
bool prim_floordiv_scalar(KernelContext& ctx, EValue** args) { return arith(ctx, args, Arith::FloorDiv, "floordiv"); }
bool prim_truediv_scalar(KernelContext& ctx, EValue** args) { return arith(ctx, args, Arith::TrueDiv, "truediv"); }
bool prim_mod_scalar(KernelContext& ctx, EValue** args) { return arith(ctx, args, Arith::Mod, "mod"); }
bool prim_sym_max_scalar(KernelContext& ctx, EValue** args) { return arith(ctx, args, Arith::Max, "sym_max"); }
bool prim_sym_min_scalar(KernelContext& ctx, EValue** args) { return arith(ctx, args, Arith::Min, "sym_min"); }

bool prim_floordiv_int(KernelContext& ctx, EValue** args) {
  if (args[0]->tag != Tag::Int || args[1]->tag != Tag::Int) return bad_args(ctx, "floordiv.int", args[0], args[1]);
  return arith(ctx, args, Arith::FloorDiv, "floordiv.int");
}
bool prim_mod_int(KernelContext& ctx, EValue** args) {
  if (args[0]->tag != Tag::Int || args[1]->tag != Tag::Int) return bad_args(ctx, "mod.int", args[0], args[1]);
  return arith(ctx, args, Arith::Mod, "mod.int");
}

bool prim_eq_scalar(KernelContext& ctx, EValue** args) { return compare(ctx, args, Cmp::Eq, "eq"); }
bool prim_gt_scalar(KernelContext& ctx, EValue** args) { return compare(ctx, args, Cmp::Gt, "gt"); }
bool prim_ge_scalar(KernelContext& ctx, EValue** args) { return compare(ctx, args, Cmp::Ge, "ge"); }
bool prim_lt_scalar(KernelContext& ctx, EValue** args) { return compare(ctx, args, Cmp::Lt, "lt"); }
bool prim_le_scalar(KernelContext& ctx, EValue** args) { return compare(ctx, args, Cmp::Le, "le"); }

// args: a, return
bool prim_neg_scalar(KernelContext& ctx, EValue** args) {
  const EValue* a = args[0];
  if (a->tag == Tag::Int) set_int(args[1], static_cast<int64_t>(0 - static_cast<uint64_t>(a->i)));
  else if (a->tag == Tag::Double) set_double(args[1], -a->d);
  else return bad_args(ctx, "neg", a, nullptr);
  return true;
}

namespace {
// Double -> Int by `f`; an Int passes through unchanged.
template <class F>
bool to_int(KernelContext& ctx, EValue** args, const char* name, F f) {
  const EValue* a = args[0];
  if (a->tag == Tag::Int) { set_int(args[1], a->i); return true; }
  if (a->tag != Tag::Double) return bad_args(ctx, name, a, nullptr);
  double r = f(a->d);
  if (!(r >= -9.2233720368547758e18 && r < 9.2233720368547758e18)) return ctx.fail("%s: %g does not fit an int", name, a->d);
  set_int(args[1], static_cast<int64_t>(r));
  return true;
}
}  // namespace

bool prim_ceil_scalar(KernelContext& ctx, EValue** args) { return to_int(ctx, args, "ceil", [](double x) { return std::ceil(x); }); }
bool prim_trunc_scalar(KernelContext& ctx, EValue** args) { return to_int(ctx, args, "trunc", [](double x) { return std::trunc(x); }); }
// Python's round(): halves go to the even neighbour.
bool prim_round_scalar(KernelContext& ctx, EValue** args) {
  return to_int(ctx, args, "round", [](double x) {
    double r = std::round(x);  // halves away from zero
    if (std::fabs(r - x) == 0.5) r = 2.0 * std::round(x / 2.0);
    return r;
  });
}
bool prim_sym_int_scalar(KernelContext& ctx, EValue** args) {
  if (args[0]->tag == Tag::Bool) { set_int(args[1], args[0]->b ? 1 : 0); return true; }
  return to_int(ctx, args, "sym_int", [](double x) { return std::trunc(x); });
}

bool prim_sym_float_scalar(KernelContext& ctx, EValue** args) {
  const EValue* a = args[0];
  if (a->tag != Tag::Int && a->tag != Tag::Double && a->tag != Tag::Bool) return bad_args(ctx, "sym_float", a, nullptr);
  set_double(args[1], a->to_double());
  return true;
}

bool prim_sym_not_scalar(KernelContext& ctx, EValue** args) {
  if (args[0]->tag != Tag::Bool) return bad_args(ctx, "sym_not", args[0], nullptr);
  set_bool(args[1], !args[0]->b);
  return true;
}

// args: b, t, f, return
bool prim_sym_ite_scalar(KernelContext& ctx, EValue** args) {
  if (args[0]->tag != Tag::Bool) return ctx.fail("sym_ite: the condition is a %s, not a Bool", tag_name(args[0]->tag));
  const EValue* v = args[0]->b ? args[1] : args[2];
  if (v->tag != Tag::Int && v->tag != Tag::Double && v->tag != Tag::Bool) return bad_args(ctx, "sym_ite", v, nullptr);
  *args[3] = *v;
  return true;
}

}  // namespace pte
