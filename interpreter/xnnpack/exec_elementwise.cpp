// pte-run XNNPACK delegate: unary and binary elementwise nodes, clamp, softmax (fp32).
#include <algorithm>
#include <atomic>
#include <cmath>

#include "interpreter/xnnpack/exec.h"
#include "ops/elementwise/vbinary_f32.h"
#include "ops/elementwise/elementwise.h"
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

// A prefill's activations (hundreds of KB to MB a node) go over the method's threads by
// ew::parallel_for (from 2^18 elements; decode's operands stay on the calling thread), in
// whole runs of kRun elements for unary nodes (a vector kernel's masked tail falls where one
// call puts it) and whole output rows for binary nodes: each element the same code as in one call.
constexpr int64_t kRun = 64;
std::atomic<uint64_t> g_splits{0};
struct UnaryJob {
  KernelContext* ctx;
  const Node* n;
  const float* x;
  float* y;
  static void run(void* p, int64_t b, int64_t e) {
    const auto& j = *static_cast<const UnaryJob*>(p);
    unary_span(*j.ctx, *j.n, j.x + b, j.y + b, e - b);
  }
};

}  // namespace

bool run_unary(State& s, const Node& n) {
  if (!need_f32(s, n, 1)) return false;
  const Shape sh = s.v(n.in[0]).shape;
  if (!s.set_shape(n.out, sh)) return false;
  const float* x = s.ptr<float>(n.in[0]);
  float* y = s.ptr<float>(n.out);
  if (!unary_span(*s.ctx, n, x, y, 0)) return false;  // (an op this file does not run fails here, on this thread)
  UnaryJob job{s.ctx, &n, x, y};
  if (ew::parallel_for(*s.ctx, sh.numel(), &job, UnaryJob::run, kRun) > 1) g_splits.fetch_add(1, std::memory_order_relaxed);
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
// strides ia, ib: 0 when that input is broadcast along it; a 0-d output is one row of one).
void binary_rows(const Shape& o, const float* a, const int64_t* sa, const float* b, const int64_t* sb, float* y,
                 ew::VRowF32 row, int64_t r0, int64_t r1) {
  if (o.n == 0) {
    if (r0 == 0 && r1 > 0) row(y, a, 0, b, 0, 1);
    return;
  }
  const int last = o.n - 1;
  const int64_t inner = o.d[last], ia = sa[last], ib = sb[last];
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

// One output row of f(a, b) (element strides ia, ib: 0 when broadcast).
template <class F>
void loop_row(float* py, const float* pa, int64_t ia, const float* pb, int64_t ib, int64_t n) {
  const F f{};
  if (ia == 1 && ib == 1)
    for (int64_t j = 0; j < n; ++j) py[j] = f(pa[j], pb[j]);
  else if (ia == 1 && ib == 0)
    for (int64_t j = 0; j < n; ++j) py[j] = f(pa[j], pb[0]);
  else if (ia == 0 && ib == 1)
    for (int64_t j = 0; j < n; ++j) py[j] = f(pa[0], pb[j]);
  else
    for (int64_t j = 0; j < n; ++j) py[j] = f(pa[j * ia], pb[j * ib]);
}
struct AddF { float operator()(float p, float q) const { return p + q; } };
struct SubF { float operator()(float p, float q) const { return p - q; } };
struct MulF { float operator()(float p, float q) const { return p * q; } };
struct DivF { float operator()(float p, float q) const { return p / q; } };
struct MinF { float operator()(float p, float q) const { return std::min(p, q); } };
struct MaxF { float operator()(float p, float q) const { return std::max(p, q); } };
struct PReluF { float operator()(float p, float q) const { return p < 0 ? p * q : p; } };

// The row function of a binary node (null: not a binary node). Add and Multiply by the ops/
// vector form where this CPU has one (each element the same single rounding as the loop).
ew::VRowF32 binary_row(Op op) {
  if (op == Op::Add || op == Op::Multiply)
    if (const ew::VRowF32 simd = ew::vaddmul_row_f32_simd(op == Op::Multiply)) return simd;
  switch (op) {
    case Op::Add: return loop_row<AddF>;
    case Op::Subtract: return loop_row<SubF>;
    case Op::Multiply: return loop_row<MulF>;
    case Op::Div: return loop_row<DivF>;
    case Op::Minimum: return loop_row<MinF>;
    case Op::Maximum: return loop_row<MaxF>;
    case Op::PReLU: return loop_row<PReluF>;
    default: return nullptr;
  }
}

struct BinaryJob {
  const Node* n;
  ew::VRowF32 row;
  Shape so;
  const float *a, *b;
  int64_t st_a[kMaxDims], st_b[kMaxDims];
  float* y;
  int64_t inner;
  // elements [e0, e1) of the output (whole rows: ew::parallel_for's unit), then its output range
  static void run(void* p, int64_t e0, int64_t e1) {
    const auto& j = *static_cast<const BinaryJob*>(p);
    binary_rows(j.so, j.a, j.st_a, j.b, j.st_b, j.y, j.row, e0 / j.inner, e1 / j.inner);
    clamp_output(*j.n, j.y + e0, e1 - e0);
  }
};

}  // namespace

bool run_binary(State& s, const Node& n) {
  if (!need_f32(s, n, 2)) return false;
  BinaryJob j{};
  j.n = &n;
  j.row = binary_row(n.op);
  if (!j.row) return s.ctx->fail("%s is not a binary node", op_name(n.op));
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
  if (ew::parallel_for(*s.ctx, count, &j, BinaryJob::run, j.inner) > 1) g_splits.fetch_add(1, std::memory_order_relaxed);
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
