// pte-run load-time pass: fold_safe_softmax (after fold_constant_permutes, before the copy
// views; MethodOptions::fuse_safe_softmax). The tail of the exporter's safe softmax, six
// kernel instructions ending with the where (the others in any order: exports differ;
// et_view instructions may sit between them):
//   eq.Scalar_out(x, -inf)            -> m      (bool)
//   logical_not.out(m)                -> n
//   any.out(n, dim = last, keepdim)   -> r
//   logical_not.out(r)                -> a      (rows of x that are all -inf)
//   full_like.out(s, 0)               -> z
//   where.self_out(a, z, s)           -> out    (instruction i)
// becomes one kernel, ops/prim/safe_softmax_rows (out = s, zero rows where x is all -inf),
// at instruction i, its condition argument replaced by x; the other five become no-ops (Free).
//
// Memory: the plan ended x's life at the eq and may have given its bytes to m .. z or to out.
// Nothing writes bytes between the eq and i once the five are no-ops (et_view only sets
// pointers), so x's bytes are intact at i unless
// out shares them; out exactly on x is safe (each row of x is read before that row of out
// is written), a partial overlap is refused. The intermediates must be planned, read only
// inside the pattern and neither inputs, outputs nor list items.
// An identity expand_copy of out right after it is absorbed too (see below).
// Changes the instruction list: MethodImpl::load recomputes the access analysis.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "interpreter/method_load.h"
#include "ops/prim/safe_softmax_rows.h"

namespace pte {

using namespace loading;

size_t MethodImpl::Load::fold_safe_softmax() {
  using VA = passes::ValueAccess;
  const bool debug = std::getenv("PTE_DEBUG_SAFE_SOFTMAX") != nullptr;
  size_t folded = 0, absorbed = 0;
  auto vid = [&](const EValue* e) { return static_cast<size_t>(e - m.values_.data()); };
  auto arg = [&](size_t i, uint32_t j) { return m.args_[m.instrs_[i].arg_begin + j]; };
  auto is_op = [&](size_t i, OpId op, uint32_t nargs) {
    const Instr& in = m.instrs_[i];
    return in.kind == Instr::Kernel && op_id(in) == op && in.nargs == nargs && in.fn;
  };
  auto f32 = [&](const EValue* e) { return e->tag == Tag::Tensor && e->t->dtype == DType::Float; };
  auto boolean = [&](const EValue* e) { return e->tag == Tag::Tensor && e->t->dtype == DType::Bool; };
  // an intermediate: bool or fp32 tensor written by instruction w (out and return slots),
  // read by instruction r only, planned, not an input, output or list item
  auto private_link = [&](const EValue* e, size_t w, size_t r) {
    const size_t v = vid(e);
    if (e->tag != Tag::Tensor || is_input[v] || is_output[v] || !m.value_planned_[v]) return false;
    if (access.has(v, VA::InList | VA::MoveFrom | VA::MoveTo | VA::DelegateArg)) return false;
    if (access.writer[v] != static_cast<int32_t>(w)) return false;
    for (int32_t rd : access.readers[v])
      if (rd != static_cast<int32_t>(r)) return false;
    return !access.readers[v].empty();
  };
  auto same_shape = [](const Tensor& a, const Tensor& b) {
    if (a.dim != b.dim) return false;
    for (int d = 0; d < a.dim; ++d)
      if (a.sizes[d] != b.sizes[d]) return false;
    return true;
  };
  for (size_t i = 5; i < m.instrs_.size(); ++i) {
    if (!is_op(i, OpId::where_self_out, 5)) continue;
    // the five others, in any order, right before the where; et_view (pointers only, no
    // bytes written) and no-ops may sit between them
    size_t eq = 0, not1 = 0, any = 0, not2 = 0, full = 0;
    int found = 0;
    std::vector<size_t> window;
    for (size_t k = i; k > 0 && window.size() < 5 && i - k < 16;) {
      --k;
      const Instr& in = m.instrs_[k];
      if (in.kind == Instr::Free || (in.kind == Instr::Kernel && op_id(in) == OpId::et_view_default)) continue;
      window.push_back(k);
    }
    for (size_t k : window) {
      if (is_op(k, OpId::eq_scalar_out, 4) && !eq) eq = k, ++found;
      else if (is_op(k, OpId::any_out, 5) && !any) any = k, ++found;
      else if (is_op(k, OpId::full_like_out, 5) && !full) full = k, ++found;
      else if (is_op(k, OpId::logical_not_out, 3) && !not1) not1 = k, ++found;
      else if (is_op(k, OpId::logical_not_out, 3) && !not2) not2 = k, ++found;
    }
    if (found != 5) continue;
    // which logical_not reads eq's result: the first of the chain
    if (arg(not1, 0) != arg(eq, 2)) std::swap(not1, not2);
    auto no = [&](const char* why) {
      if (debug) std::fprintf(stderr, "safe softmax: instruction %zu kept: %s\n", i, why);
    };
    // eq(x, -inf) -> m
    EValue *x = arg(eq, 0), *inf = arg(eq, 1), *mv = arg(eq, 2);
    if (!f32(x) || !boolean(mv) || arg(eq, 3) != mv) { no("eq arguments"); continue; }
    if (inf->tag != Tag::Double || !(std::isinf(inf->d) && inf->d < 0)) { no("eq is not against -inf"); continue; }
    // logical_not(m) -> n
    EValue* nv = arg(not1, 1);
    if (arg(not1, 0) != mv || !boolean(nv) || arg(not1, 2) != nv) { no("first logical_not"); continue; }
    // any(n, dim = last, keepdim = true) -> r
    EValue *dim = arg(any, 1), *keep = arg(any, 2), *rv = arg(any, 3);
    if (arg(any, 0) != nv || !boolean(rv) || arg(any, 4) != rv) { no("any arguments"); continue; }
    const int xd = x->t->dim;
    if (dim->tag != Tag::Int || !(dim->i == -1 || dim->i == xd - 1) || keep->tag != Tag::Bool || !keep->b) {
      no("any is not over the last dim with keepdim");
      continue;
    }
    // logical_not(r) -> a
    EValue* av = arg(not2, 1);
    if (arg(not2, 0) != rv || !boolean(av) || arg(not2, 2) != av) { no("second logical_not"); continue; }
    // full_like(s, 0) -> z
    EValue *fill = arg(full, 1), *zv = arg(full, 3);
    if (!f32(zv) || arg(full, 4) != zv) { no("full_like arguments"); continue; }
    if (!((fill->tag == Tag::Int && fill->i == 0) || (fill->tag == Tag::Double && fill->d == 0.0))) {
      no("full_like does not fill zeros");
      continue;
    }
    // where(a, z, s) -> out
    EValue *s = arg(i, 2), *out = arg(i, 3);
    if (arg(i, 0) != av || arg(i, 1) != zv || !f32(s) || !f32(out) || arg(i, 4) != out) { no("where arguments"); continue; }
    if (!same_shape(*x->t, *s->t) || !same_shape(*s->t, *out->t) || !same_shape(*s->t, *zv->t) ||
        x->t->dynamism != s->t->dynamism) {
      no("shapes differ");
      continue;
    }
    if (!private_link(mv, eq, not1) || !private_link(nv, not1, any) || !private_link(rv, any, not2) ||
        !private_link(av, not2, i) || !private_link(zv, full, i)) {
      no("an intermediate is read elsewhere, unplanned or an input or output");
      continue;
    }
    // x's bytes must survive to i: planned or bound memory other than out's, or exactly out's
    const Tensor &xt = *x->t, &ot = *out->t;
    if (!m.value_planned_[vid(x)] || !xt.data || !ot.data) { no("x or out has no planned memory"); continue; }
    const auto* xb = static_cast<const uint8_t*>(xt.data);
    const auto* ob = static_cast<const uint8_t*>(ot.data);
    const bool overlap = xb < ob + ot.capacity && ob < xb + xt.capacity;
    if (overlap && xb != ob) { no("out partly overlaps x"); continue; }
    if (!xt.contiguous_order() || !s->t->contiguous_order() || !ot.contiguous_order()) { no("layout"); continue; }
    // An identity expand_copy(out) -> y right after (attention's expand before the matmul
    // with V) is absorbed: the kernel writes y, the expand becomes a no-op. y may sit
    // exactly on x or on s (row r of each is read before row r of y is written), not
    // partly over either.
    Tensor* absorb = nullptr;
    if (i + 1 < m.instrs_.size() && is_op(i + 1, OpId::expand_copy_out, 5) && arg(i + 1, 0) == out &&
        f32(arg(i + 1, 3)) && arg(i + 1, 4) == arg(i + 1, 3) && private_link(out, i, i + 1)) {
      Tensor& yt = *arg(i + 1, 3)->t;
      const Tensor& st = *s->t;
      auto clear = [&](const Tensor& t) {
        const auto* a = static_cast<const uint8_t*>(t.data);
        const auto* b = static_cast<const uint8_t*>(yt.data);
        return a == b || !(a < b + yt.capacity && b < a + t.capacity);
      };
      if (same_shape(yt, ot) && yt.dynamism == Dynamism::Static && ot.dynamism == Dynamism::Static &&
          m.value_planned_[vid(arg(i + 1, 3))] && yt.data && yt.contiguous_order() && clear(xt) && clear(st))
        absorb = &yt;
    }
    // i-5 .. i-1: no-ops; i: the fused kernel with x as its first argument
    for (size_t k : window) {
      Instr& in = m.instrs_[k];
      in.kind = Instr::Free;
      in.a = static_cast<int32_t>(vid(arg(k, in.nargs - 1)));
      in.nchecks = 0;
    }
    m.args_[m.instrs_[i].arg_begin] = x;
    m.args_[m.instrs_[i].arg_begin + 1] = s;  // (not read: z is never written now)
    m.instrs_[i].fn = safe_softmax_rows;
    if (absorb) {
      EValue* y = arg(i + 1, 3);
      m.args_[m.instrs_[i].arg_begin + 3] = y;
      m.args_[m.instrs_[i].arg_begin + 4] = y;
      Instr& ex = m.instrs_[i + 1];
      ex.kind = Instr::Free;
      ex.a = static_cast<int32_t>(vid(y));
      ex.nchecks = 0;
      ++absorbed;
    }
    if (debug) std::fprintf(stderr, "safe softmax: instructions %zu-%zu folded\n", window.back(), absorb ? i + 1 : i);
    ++folded;
  }
  m.safe_softmax_folds_ = folded;
  if (debug && folded) std::fprintf(stderr, "safe softmax: %zu tails fused, %zu with their expand_copy\n", folded, absorbed);
  return folded;
}

}  // namespace pte
