// pte-run XNNPACK delegate: unary and binary elementwise nodes, clamp, softmax (fp32).
#include <algorithm>
#include <cmath>

#include "interpreter/xnnpack/exec.h"
#include "ops/elementwise/vbinary_f32.h"
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

bool run_unary(State& s, const Node& n) {
  if (!need_f32(s, n, 1)) return false;
  const Shape sh = s.v(n.in[0]).shape;
  if (!s.set_shape(n.out, sh)) return false;
  const float* x = s.ptr<float>(n.in[0]);
  float* y = s.ptr<float>(n.out);
  const int64_t c = sh.numel();
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
      return s.ctx->fail("%s is not a unary node", op_name(n.op));
  }
  clamp_output(n, y, c);
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

// Calls row(py, pa, ia, pb, ib, n) for every output row of the last dimension (element
// strides ia, ib: 0 when that input is broadcast along it).
template <class Row>
void binary_rows(const Shape& o, const float* a, const int64_t* sa, const float* b, const int64_t* sb, float* y, Row row) {
  if (o.n == 0) {
    row(y, a, 0, b, 0, 1);
    return;
  }
  const int last = o.n - 1;
  const int64_t inner = o.d[last], ia = sa[last], ib = sb[last];
  const int64_t outer = inner ? o.numel() / inner : 0;
  int64_t idx[kMaxDims] = {};
  for (int64_t r = 0; r < outer; ++r) {
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
void binary_loop(const Shape& o, const float* a, const int64_t* sa, const float* b, const int64_t* sb, float* y, F f) {
  binary_rows(o, a, sa, b, sb, y, [f](float* py, const float* pa, int64_t ia, const float* pb, int64_t ib, int64_t n) {
    if (ia == 1 && ib == 1)
      for (int64_t j = 0; j < n; ++j) py[j] = f(pa[j], pb[j]);
    else if (ia == 1 && ib == 0)
      for (int64_t j = 0; j < n; ++j) py[j] = f(pa[j], pb[0]);
    else if (ia == 0 && ib == 1)
      for (int64_t j = 0; j < n; ++j) py[j] = f(pa[0], pb[j]);
    else
      for (int64_t j = 0; j < n; ++j) py[j] = f(pa[j * ia], pb[j * ib]);
  });
}

}  // namespace

bool run_binary(State& s, const Node& n) {
  if (!need_f32(s, n, 2)) return false;
  const Shape sa = s.v(n.in[0]).shape, sb = s.v(n.in[1]).shape;
  Shape so;
  if (!broadcast(sa, sb, &so)) return s.ctx->fail("%s: shapes do not broadcast", op_name(n.op));
  if (!s.set_shape(n.out, so)) return false;
  int64_t st_a[kMaxDims], st_b[kMaxDims];
  bstrides(sa, so, st_a);
  bstrides(sb, so, st_b);
  const float* a = s.ptr<float>(n.in[0]);
  const float* b = s.ptr<float>(n.in[1]);
  float* y = s.ptr<float>(n.out);
  if (so.numel() == 0) return true;
  // Add and Multiply rows by the ops/ vector form where this CPU has one (each element
  // the same single rounding as the loop; the activations of a prefill chunk are
  // hundreds of KiB per node)
  const ew::VRowF32 simd = n.op == Op::Add ? ew::vaddmul_row_f32_simd(false)
                           : n.op == Op::Multiply ? ew::vaddmul_row_f32_simd(true) : nullptr;
  if (simd) {
    binary_rows(so, a, st_a, b, st_b, y, simd);
    clamp_output(n, y, so.numel());
    return true;
  }
  switch (n.op) {
    case Op::Add: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p + q; }); break;
    case Op::Subtract: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p - q; }); break;
    case Op::Multiply: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p * q; }); break;
    case Op::Div: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p / q; }); break;
    case Op::Minimum: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return std::min(p, q); }); break;
    case Op::Maximum: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return std::max(p, q); }); break;
    case Op::PReLU: binary_loop(so, a, st_a, b, st_b, y, [](float p, float q) { return p < 0 ? p * q : p; }); break;
    default: return s.ctx->fail("%s is not a binary node", op_name(n.op));
  }
  clamp_output(n, y, so.numel());
  return true;
}

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
