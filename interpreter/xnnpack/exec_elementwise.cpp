// pte-run XNNPACK delegate: unary and binary elementwise nodes, clamp, softmax (fp32).
#include <algorithm>
#include <atomic>
#include <cmath>

#include "interpreter/xnnpack/exec.h"
#include "ops/elementwise/vbinary_f32.h"
#include "ops/linalg/claim_pool.h"
#include "ops/xnn_math/xnn_math.h"

namespace pte::xnn {

void clamp_output(const Node& n, float* y, int64_t count) {
  const float lo = n.out_min, hi = n.out_max;
  if (lo == -__builtin_inff() && hi == __builtin_inff()) return;
  for (int64_t i = 0; i < count; ++i) y[i] = std::min(std::max(y[i], lo), hi);
}

namespace {

bool need_f32(State& s, const Node& n, int nin) {
  for (int i = 0; i < nin; ++i)
    if (s.meta(n.in[i]).dtype != DT::F32)
      return s.ctx->fail("%s: input %d is %s, only fp32 is supported", op_name(n.op), i, dt_name(s.meta(n.in[i]).dtype));
  if (s.meta(n.out).dtype != DT::F32)
    return s.ctx->fail("%s: output is %s, only fp32 is supported", op_name(n.op), dt_name(s.meta(n.out).dtype));
  return true;
}

template <class F>
void map(const float* x, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

}  // namespace

namespace {

// y[0, c) = op(x[0, c)), one element at a time (each element's value does not depend on
// where a call starts or ends).
bool unary_span(KernelContext& ctx, const Node& n, const float* x, float* y, int64_t c) {
  switch (n.op) {
    case Op::Abs: map(x, y, c, [](float v) { return std::fabs(v); }); break;
    case Op::Negate: map(x, y, c, [](float v) { return -v; }); break;
    case Op::Square: map(x, y, c, [](float v) { return v * v; }); break;
    case Op::SquareRoot: sqrt_f32(x, y, c); break;  // XNNPACK's rsqrt estimate + Newton step, times x
    case Op::ReciprocalSquareRoot: rsqrt_f32(x, y, c); break;  // XNNPACK's estimate + Newton step
    case Op::Floor: map(x, y, c, [](float v) { return std::floor(v); }); break;
    case Op::Ceiling: map(x, y, c, [](float v) { return std::ceil(v); }); break;
    case Op::Sigmoid: sigmoid_f32(x, y, c); break;  // XNNPACK's approximation on this ISA
    case Op::Tanh: tanh_f32(x, y, c); break;  // XNNPACK's rational approximations (xnn_math.h)
    case Op::Exp: exp_f32(x, y, c); break;
    case Op::Log: log_f32(x, y, c); break;
    case Op::Sin: sin_f32(x, y, c); break;  // XNNPACK's rational approximation
    case Op::Cos: cos_f32(x, y, c); break;
    case Op::Gelu: gelu_f32(x, y, c); break;
    case Op::Hardswish: hardswish_f32(x, y, c); break;
    case Op::LeakyReLU: {
      const float a = n.f;
      map(x, y, c, [a](float v) { return v < 0 ? v * a : v; });
      break;
    }
    case Op::ELU: {  // not delegated by ExecuTorch 1.5.1's partitioner (aten.elu stays portable)
      const float a = n.f;
      map(x, y, c, [a](float v) { return v < 0 ? a * std::expm1(v) : v; });
      break;
    }
    case Op::Clamp:
    case Op::Copy:
      if (y != x) std::copy(x, x + c, y);
      break;
    default:
      return ctx.fail("%s is not a unary node", op_name(n.op));
  }
  clamp_output(n, y, c);
  return true;
}

// A prefill's activations (hundreds of KB to MB a node) go over the method's threads (the
// claim pool, as ops/elementwise's loops) from kSplitMin elements, in tasks of whole runs
// of kRun elements, so that a vector kernel's masked tail falls on the same elements as in
// one call. Decode's operands stay on the calling thread.
constexpr int64_t kRun = 64, kSplitMin = int64_t{1} << 18, kTaskMin = int64_t{1} << 13;
std::atomic<uint64_t> g_splits{0};
int64_t split_tasks(const State& s, int64_t elems) {
  const int64_t threads = s.ctx->claim_threads;
  if (threads <= 1 || elems < kSplitMin) return 1;
  return std::min<int64_t>(threads * 4, elems / kTaskMin);
}
struct UnaryJob {
  KernelContext* ctx;
  const Node* n;
  const float* x;
  float* y;
  int64_t c, runs, tasks;
  static void task(void* p, int64_t i) {
    const auto& j = *static_cast<const UnaryJob*>(p);
    const int64_t e0 = j.runs * i / j.tasks * kRun, e1 = std::min(j.c, j.runs * (i + 1) / j.tasks * kRun);
    if (e1 > e0) unary_span(*j.ctx, *j.n, j.x + e0, j.y + e0, e1 - e0);
  }
};

bool is_unary(Op op) {
  switch (op) {
    case Op::Abs: case Op::Negate: case Op::Square: case Op::SquareRoot: case Op::ReciprocalSquareRoot:
    case Op::Floor: case Op::Ceiling: case Op::Sigmoid: case Op::Tanh: case Op::Exp: case Op::Log:
    case Op::Sin: case Op::Cos: case Op::Gelu: case Op::Hardswish: case Op::LeakyReLU: case Op::ELU:
    case Op::Clamp: case Op::Copy: return true;
    default: return false;
  }
}

}  // namespace

bool run_unary(State& s, const Node& n) {
  if (!need_f32(s, n, 1)) return false;
  const Shape sh = s.v(n.in[0]).shape;
  if (!s.set_shape(n.out, sh)) return false;
  const float* x = s.ptr<float>(n.in[0]);
  float* y = s.ptr<float>(n.out);
  const int64_t c = sh.numel();
  const int64_t tasks = split_tasks(s, c);
  if (tasks <= 1 || !is_unary(n.op)) return unary_span(*s.ctx, n, x, y, c);
  UnaryJob job{s.ctx, &n, x, y, c, (c + kRun - 1) / kRun, tasks};
  g_splits.fetch_add(1, std::memory_order_relaxed);
  linalg::claim_parallel_for(s.ctx->claim_threads - 1, tasks, UnaryJob::task, &job);
  return true;
}

namespace {

// Broadcast shape (numpy rules, aligned right); false when incompatible.
bool broadcast(const Shape& a, const Shape& b, Shape* out) {
  out->n = std::max(a.n, b.n);
  for (int i = 0; i < out->n; ++i) {
    int ia = i - (out->n - a.n), ib = i - (out->n - b.n);
    int64_t da = ia >= 0 ? a.d[ia] : 1, db = ib >= 0 ? b.d[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out->d[i] = da == 1 ? db : da;
  }
  return true;
}

// Element strides of `a` broadcast to `o` (0 on broadcast dims).
void bstrides(const Shape& a, const Shape& o, int64_t* st) {
  int64_t s = 1;
  for (int i = o.n - 1; i >= 0; --i) {
    int ia = i - (o.n - a.n);
    int64_t d = ia >= 0 ? a.d[ia] : 1;
    st[i] = d == 1 ? 0 : s;
    s *= d;
  }
}

// Calls row(py, pa, ia, pb, ib, n) for output rows [r0, r1) of the last dimension (element
// strides ia, ib: 0 when that input is broadcast along it); r1 < 0: to the last row.
template <class Row>
void binary_rows(const Shape& o, const float* a, const int64_t* sa, const float* b, const int64_t* sb, float* y, Row row,
                 int64_t r0 = 0, int64_t r1 = -1) {
  if (o.n == 0) {
    if (r0 == 0) row(y, a, 0, b, 0, 1);
    return;
  }
  const int last = o.n - 1;
  const int64_t inner = o.d[last], ia = sa[last], ib = sb[last];
  const int64_t outer = inner ? o.numel() / inner : 0;
  if (r1 < 0 || r1 > outer) r1 = outer;
  if (r0 >= r1) return;
  int64_t idx[kMaxDims] = {};
  for (int64_t d = last - 1, rem = r0; d >= 0; --d) idx[d] = rem % o.d[d], rem /= o.d[d];
  for (int64_t r = r0; r < r1; ++r) {
    int64_t oa = 0, ob = 0;
    for (int d = 0; d < last; ++d) oa += idx[d] * sa[d], ob += idx[d] * sb[d];
    row(y + r * inner, a + oa, ia, b + ob, ib, inner);
    for (int d = last - 1; d >= 0; --d) {
      if (++idx[d] < o.d[d]) break;
      idx[d] = 0;
    }
  }
}

template <class F>
void binary_loop(const Shape& o, const float* a, const int64_t* sa, const float* b, const int64_t* sb, float* y, F f, int64_t r0,
                 int64_t r1) {
  binary_rows(
      o, a, sa, b, sb, y,
      [f](float* py, const float* pa, int64_t ia, const float* pb, int64_t ib, int64_t n) {
        if (ia == 1 && ib == 1)
          for (int64_t j = 0; j < n; ++j) py[j] = f(pa[j], pb[j]);
        else if (ia == 1 && ib == 0)
          for (int64_t j = 0; j < n; ++j) py[j] = f(pa[j], pb[0]);
        else if (ia == 0 && ib == 1)
          for (int64_t j = 0; j < n; ++j) py[j] = f(pa[0], pb[j]);
        else
          for (int64_t j = 0; j < n; ++j) py[j] = f(pa[j * ia], pb[j * ib]);
      },
      r0, r1);
}

struct BinaryJob {
  const Node* n;
  Shape so;
  const float *a, *b;
  int64_t st_a[kMaxDims], st_b[kMaxDims];
  float* y;
  int64_t rows, inner, tasks;
  // Output rows [r0, r1) (r1 < 0: all), then the node's output range over them.
  void span(int64_t r0, int64_t r1) const {
    // Add and Multiply rows by the ops/ vector form where this CPU has one (each element
    // the same single rounding as the loop)
    const ew::VRowF32 simd = n->op == Op::Add ? ew::vaddmul_row_f32_simd(false)
                             : n->op == Op::Multiply ? ew::vaddmul_row_f32_simd(true) : nullptr;
    if (simd) {
      binary_rows(so, a, st_a, b, st_b, y, simd, r0, r1);
    } else {
      switch (n->op) {
        case Op::Add: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p + q; }, r0, r1); break;
        case Op::Subtract: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p - q; }, r0, r1); break;
        case Op::Multiply: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p * q; }, r0, r1); break;
        case Op::Div: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p / q; }, r0, r1); break;
        case Op::Minimum: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return std::min(p, q); }, r0, r1); break;
        case Op::Maximum: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return std::max(p, q); }, r0, r1); break;
        case Op::PReLU: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p < 0 ? p * q : p; }, r0, r1); break;
        default: return;
      }
    }
    const int64_t e0 = so.n == 0 ? 0 : r0 * inner, e1 = so.n == 0 ? 1 : (r1 < 0 ? rows : r1) * inner;
    clamp_output(*n, y + e0, e1 - e0);
  }
  static void task(void* p, int64_t i) {
    const auto& j = *static_cast<const BinaryJob*>(p);
    const int64_t r0 = j.rows * i / j.tasks, r1 = j.rows * (i + 1) / j.tasks;
    if (r1 > r0) j.span(r0, r1);
  }
};

bool is_binary(Op op) {
  switch (op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Div: case Op::Minimum: case Op::Maximum: case Op::PReLU:
      return true;
    default: return false;
  }
}

}  // namespace

bool run_binary(State& s, const Node& n) {
  if (!need_f32(s, n, 2)) return false;
  if (!is_binary(n.op)) return s.ctx->fail("%s is not a binary node", op_name(n.op));
  BinaryJob j{};
  j.n = &n;
  const Shape sa = s.v(n.in[0]).shape, sb = s.v(n.in[1]).shape;
  if (!broadcast(sa, sb, &j.so)) return s.ctx->fail("%s: shapes do not broadcast", op_name(n.op));
  if (!s.set_shape(n.out, j.so)) return false;
  bstrides(sa, j.so, j.st_a);
  bstrides(sb, j.so, j.st_b);
  j.a = s.ptr<float>(n.in[0]);
  j.b = s.ptr<float>(n.in[1]);
  j.y = s.ptr<float>(n.out);
  const int64_t count = j.so.numel();
  if (count == 0) return true;
  j.inner = j.so.n == 0 ? 1 : j.so.d[j.so.n - 1];
  j.rows = j.so.n == 0 ? 1 : count / j.inner;
  // a prefill's operands over the method's threads, in whole rows (as the unary nodes)
  j.tasks = std::min(split_tasks(s, count), j.rows);
  if (j.tasks <= 1) {
    j.span(0, -1);
  } else {
    g_splits.fetch_add(1, std::memory_order_relaxed);
    linalg::claim_parallel_for(s.ctx->claim_threads - 1, j.tasks, BinaryJob::task, &j);
  }
  return true;
}

uint64_t elementwise_split_runs() { return g_splits.load(std::memory_order_relaxed); }

bool run_softmax(State& s, const Node& n) {
  if (!need_f32(s, n, 1)) return false;
  const Shape sh = s.v(n.in[0]).shape;
  if (!s.set_shape(n.out, sh)) return false;
  if (sh.n == 0) return s.ctx->fail("XNNSoftmax of a scalar");
  const int64_t c = sh.d[sh.n - 1], rows = c ? sh.numel() / c : 0;
  const float* x = s.ptr<float>(n.in[0]);
  float* y = s.ptr<float>(n.out);
  for (int64_t r = 0; r < rows; ++r) softmax_f32(x + r * c, y + r * c, c);  // XNNPACK's softmax_nc_f32 (xnn_math.h)
  return true;
}

}  // namespace pte::xnn
