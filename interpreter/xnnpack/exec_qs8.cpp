// pte-run XNNPACK delegate: statically quantized int8 nodes (see exec_qs8.h).
//
// Load time: parameters checked (types, per-tensor / per-channel quantization, the
// scale ratios XNNPACK accepts), filters and int32 biases copied once, requantization
// scales and fixed-point parameters computed. Run time: plain integer loops in NHWC.
#include "interpreter/xnnpack/exec_qs8.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace pte::xnn {

int32_t qs8_quantize_bound(float v, float scale, int32_t zp) {
  float f = v / scale + static_cast<float>(zp);
  f = std::fmin(std::fmax(f, -128.0f), 127.0f);
  return static_cast<int32_t>(std::lrintf(f));
}

namespace {
uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float u2f(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace

bool qs8_add_params(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float y_scale, int32_t y_zp, QS8Add* out) {
  const float ra = a_scale / y_scale, rb = b_scale / y_scale;
  const float aa = std::fabs(ra), ab = std::fabs(rb);
  auto in_range = [](float r) { return r >= 0x1.0p-10f && r < 0x1.0p+8f; };
  if (!in_range(aa) || !in_range(ab)) return false;
  const float mx = std::max(aa, ab);
  const int32_t exp = static_cast<int32_t>(f2u(mx) >> 23) - 127;
  const uint32_t shift = static_cast<uint32_t>(20 - exp);  // in [12, 30]
  // scale the ratios by 2^shift through their exponent, then round to nearest even
  const int32_t ma = static_cast<int32_t>(std::lrintf(u2f(f2u(aa) + (shift << 23))));
  const int32_t mb = static_cast<int32_t>(std::lrintf(u2f(f2u(ab) + (shift << 23))));
  out->a_mult = std::signbit(ra) ? -ma : ma;
  out->b_mult = std::signbit(rb) ? -mb : mb;
  out->shift = shift;
  out->bias = (INT32_C(1) << (shift - 1)) - out->a_mult * a_zp - out->b_mult * b_zp;
  out->zp = y_zp;
  return true;
}

QS8Mean qs8_mean_params(float x_scale, int32_t x_zp, float y_scale, int32_t y_zp, int64_t n) {
  QS8Mean p;
  p.scale = (x_scale / y_scale) * (1.0f / static_cast<float>(n));
  p.offset = static_cast<float>(y_zp) - (static_cast<float>(n) * static_cast<float>(x_zp)) * p.scale;
  return p;
}

int8_t qs8_mean(int32_t sum, const QS8Mean& p) {
  float f = static_cast<float>(sum) * p.scale;
  f = f + p.offset;
  if (std::isnan(f)) f = 0.0f;
  f = std::nearbyint(f);
  f = std::min(std::max(f, -128.0f), 127.0f);
  return static_cast<int8_t>(f);
}

namespace {

bool is_qs8(const Value& v) { return v.dtype == DT::QInt8 && v.quant == Quant::PerTensor; }

// Output size of a window op (0 when the window does not fit).
int64_t win_out(int64_t in, uint32_t pa, uint32_t pb, uint32_t k, uint32_t s, uint32_t d) {
  int64_t eff = static_cast<int64_t>(d) * (k - 1) + 1, padded = in + pa + pb;
  return padded < eff ? 0 : (padded - eff) / s + 1;
}

// Prepared layout (in Prepared's vectors):
//   conv:      wq = filter as serialized (Conv2d [OC, KH, KW, gic], depthwise [1, KH, KW, OC]),
//              w = requantization scale per output channel, wsum = [bias[OC]..., lo, hi]
//   add:       wsum = [bias, a_mult, b_mult, shift, zp, lo, hi]
//   multiply:  w = [scale], wsum = [a_zp, b_zp, y_zp, lo, hi]
//   max pool / clamp: wsum = [lo, hi]
//   mean:      w = [scale, offset], wsum = [lo, hi]

Status prepare_conv_qs8(const Graph& g, const Node& n, Prepared* p, const std::string& name) {
  const Value& x = g.values[n.in[0]];
  const Value& w = g.values[n.in[1]];
  const Value& y = g.values[n.out];
  const ConvParams& c = n.conv;
  auto fail = [&](const std::string& m) { return Status::error(name + ": " + m); };
  if (!is_qs8(x) || !is_qs8(y)) return fail("input and output must be per-tensor qint8");
  if (!w.is_constant()) return fail("the quantized filter must be a constant");
  const int64_t OC = static_cast<int64_t>(c.groups) * c.goc;
  const bool dw = n.op == Op::DepthwiseConv2d;
  if (dw && c.gic != 1) return fail("depthwise convolution with " + std::to_string(c.gic) + " input channels per group");
  if (w.dims.n != 4) return fail("the filter has " + std::to_string(w.dims.n) + " dims");
  const bool dims_ok = dw ? (w.dims.d[0] == 1 && w.dims.d[1] == c.kh && w.dims.d[2] == c.kw && w.dims.d[3] == OC)
                          : (w.dims.d[0] == OC && w.dims.d[1] == c.kh && w.dims.d[2] == c.kw && w.dims.d[3] == c.gic);
  if (!dims_ok) return fail("filter dims do not match the kernel size and channels");
  std::vector<float> ws(static_cast<size_t>(OC));
  if (w.dtype == DT::QCInt8 && w.quant == Quant::PerChannel) {
    if (w.channel_dim != (dw ? 3 : 0)) return fail("filter scales must be per output channel");
    if (static_cast<int64_t>(w.scales.size()) != OC) return fail("filter has " + std::to_string(w.scales.size()) + " scales for " + std::to_string(OC) + " channels");
    ws = w.scales;
  } else if (w.dtype == DT::QInt8 && w.quant == Quant::PerTensor) {
    if (w.zero_point != 0) return fail("filter zero point must be 0");
    std::fill(ws.begin(), ws.end(), w.scale);
  } else {
    return fail(std::string("unsupported filter type ") + dt_name(w.dtype));
  }
  if (w.data_size < static_cast<size_t>(w.dims.numel())) return fail("filter data is too short");
  const Value* b = n.in[2] >= 0 ? &g.values[n.in[2]] : nullptr;
  if (b) {
    if (!b->is_constant() || (b->dtype != DT::QInt32 && b->dtype != DT::QCInt32) || b->dims.numel() != OC ||
        b->data_size < static_cast<size_t>(OC) * 4)
      return fail("bias must be an int32 constant of " + std::to_string(OC) + " elements");
  }
  std::vector<float> rs(static_cast<size_t>(OC));
  for (int64_t o = 0; o < OC; ++o) {
    const float k = ws[static_cast<size_t>(o)];
    if (!(k > 0.0f) || !std::isnormal(k)) return fail("filter scale " + std::to_string(k) + " of channel " + std::to_string(o) + " is not positive and normal");
    rs[static_cast<size_t>(o)] = x.scale * k / y.scale;
    if (!(rs[static_cast<size_t>(o)] < 256.0f)) return fail("requantization scale of channel " + std::to_string(o) + " is not below 256");
  }
  const int32_t lo = qs8_quantize_bound(n.out_min, y.scale, y.zero_point);
  const int32_t hi = qs8_quantize_bound(n.out_max, y.scale, y.zero_point);
  if (lo > hi) return fail("empty output range");
  if (!p) return Status::ok();
  p->wq.assign(reinterpret_cast<const int8_t*>(w.data), reinterpret_cast<const int8_t*>(w.data) + w.dims.numel());
  p->w = std::move(rs);
  p->wsum.assign(static_cast<size_t>(OC) + 2, 0);
  if (b) std::memcpy(p->wsum.data(), b->data, static_cast<size_t>(OC) * 4);
  p->wsum[static_cast<size_t>(OC)] = lo;
  p->wsum[static_cast<size_t>(OC) + 1] = hi;
  return Status::ok();
}

bool run_conv_qs8(State& s, const Node& n) {
  const ConvParams& c = n.conv;
  const Value& vx = s.meta(n.in[0]);
  const Value& vy = s.meta(n.out);
  const Shape xs = s.v(n.in[0]).shape;
  const char* name = op_name(n.op);
  if (xs.n != 4) return s.ctx->fail("%s: input has %d dims, expected NHWC", name, xs.n);
  const int64_t N = xs.d[0], H = xs.d[1], W = xs.d[2], C = xs.d[3];
  const int64_t G = c.groups, ICG = c.gic, OCG = c.goc, OC = G * OCG;
  if (C != G * ICG) return s.ctx->fail("%s: input has %lld channels, expected %lld", name, (long long)C, (long long)(G * ICG));
  const int64_t OH = win_out(H, c.pad_top, c.pad_bottom, c.kh, c.sh, c.dh);
  const int64_t OW = win_out(W, c.pad_left, c.pad_right, c.kw, c.sw, c.dw);
  if (OH <= 0 || OW <= 0) return s.ctx->fail("%s: the %lldx%lld input is smaller than the kernel", name, (long long)H, (long long)W);
  Shape ys;
  ys.n = 4, ys.d[0] = N, ys.d[1] = OH, ys.d[2] = OW, ys.d[3] = OC;
  if (!s.set_shape(n.out, ys)) return false;
  const Prepared& p = s.p();
  const int8_t* x = reinterpret_cast<const int8_t*>(s.v(n.in[0]).data);
  int8_t* y = reinterpret_cast<int8_t*>(s.v(n.out).data);
  const int8_t* w = p.wq.data();
  const int32_t* bias = p.wsum.data();
  const int32_t lo = p.wsum[static_cast<size_t>(OC)], hi = p.wsum[static_cast<size_t>(OC) + 1];
  const int32_t zx = vx.zero_point, zy = vy.zero_point;
  const bool dw = n.op == Op::DepthwiseConv2d;
  const int64_t KH = c.kh, KW = c.kw;
  for (int64_t b = 0; b < N; ++b)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        int8_t* py = y + ((b * OH + oh) * OW + ow) * OC;
        for (int64_t oc = 0; oc < OC; ++oc) {
          const int64_t gr = oc / OCG;
          int32_t acc = bias[oc];
          for (int64_t kh = 0; kh < KH; ++kh) {
            const int64_t ih = oh * c.sh - static_cast<int64_t>(c.pad_top) + kh * c.dh;
            if (ih < 0 || ih >= H) continue;  // padding holds the zero point: contributes 0
            for (int64_t kw = 0; kw < KW; ++kw) {
              const int64_t iw = ow * c.sw - static_cast<int64_t>(c.pad_left) + kw * c.dw;
              if (iw < 0 || iw >= W) continue;
              const int8_t* px = x + ((b * H + ih) * W + iw) * C + gr * ICG;
              if (dw) {
                acc += (static_cast<int32_t>(px[0]) - zx) * static_cast<int32_t>(w[(kh * KW + kw) * OC + oc]);
              } else {
                const int8_t* pw = w + ((oc * KH + kh) * KW + kw) * ICG;
                for (int64_t i = 0; i < ICG; ++i) acc += (static_cast<int32_t>(px[i]) - zx) * static_cast<int32_t>(pw[i]);
              }
            }
          }
          py[oc] = qs8_requantize(acc, p.w[static_cast<size_t>(oc)], zy, lo, hi);
        }
      }
  return true;
}

// Broadcast index helper for binary nodes: numpy rules over up to 6 dims.
struct Bcast {
  int n = 0;
  int64_t out[kMaxDims] = {}, sa[kMaxDims] = {}, sb[kMaxDims] = {};
};
bool make_bcast(const Shape& a, const Shape& b, Bcast* r, Shape* ys) {
  const int n = std::max(a.n, b.n);
  r->n = n;
  int64_t da[kMaxDims], db[kMaxDims];
  for (int i = 0; i < n; ++i) {
    da[i] = i - (n - a.n) >= 0 ? a.d[i - (n - a.n)] : 1;
    db[i] = i - (n - b.n) >= 0 ? b.d[i - (n - b.n)] : 1;
    if (da[i] != db[i] && da[i] != 1 && db[i] != 1) return false;
    r->out[i] = da[i] == 1 ? db[i] : da[i];
  }
  int64_t ta = 1, tb = 1;
  for (int i = n - 1; i >= 0; --i) {
    r->sa[i] = da[i] == 1 ? 0 : ta;
    r->sb[i] = db[i] == 1 ? 0 : tb;
    ta *= da[i], tb *= db[i];
  }
  ys->n = n;
  for (int i = 0; i < n; ++i) ys->d[i] = r->out[i];
  return true;
}

template <class F>
bool run_binary_qs8(State& s, const Node& n, F f) {
  const Shape as = s.v(n.in[0]).shape, bs = s.v(n.in[1]).shape;
  Bcast bc;
  Shape ys;
  if (!make_bcast(as, bs, &bc, &ys)) return s.ctx->fail("%s: shapes do not broadcast", op_name(n.op));
  if (!s.set_shape(n.out, ys)) return false;
  const int8_t* a = reinterpret_cast<const int8_t*>(s.v(n.in[0]).data);
  const int8_t* b = reinterpret_cast<const int8_t*>(s.v(n.in[1]).data);
  int8_t* y = reinterpret_cast<int8_t*>(s.v(n.out).data);
  const int64_t total = ys.numel();
  if (as == bs) {
    for (int64_t i = 0; i < total; ++i) y[i] = f(a[i], b[i]);
    return true;
  }
  int64_t idx[kMaxDims] = {};
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < total; ++i) {
    y[i] = f(a[ia], b[ib]);
    for (int d = bc.n - 1; d >= 0; --d) {
      ia += bc.sa[d], ib += bc.sb[d];
      if (++idx[d] < bc.out[d]) break;
      ia -= bc.sa[d] * bc.out[d], ib -= bc.sb[d] * bc.out[d];
      idx[d] = 0;
    }
  }
  return true;
}

}  // namespace

bool is_qs8_node(const Graph& g, const Node& n) {
  switch (n.op) {
    case Op::Conv2d: case Op::DepthwiseConv2d: case Op::Add: case Op::Multiply: case Op::MaxPooling2d:
    case Op::GlobalAvgPooling2d: case Op::Clamp: case Op::AvgPooling2d: case Op::Subtract: case Op::ConvTranspose2d: {
      const DT t = g.values[n.out].dtype;
      const DT u = g.values[n.in[0]].dtype;
      return t == DT::QInt8 || t == DT::QUInt8 || u == DT::QInt8 || u == DT::QUInt8;
    }
    default:
      return false;
  }
}

Status check_q8_passthrough(const Graph& g, const Node& n) {
  const Value& y = g.values[n.out];
  if (y.dtype != DT::QInt8 && y.dtype != DT::QUInt8) return Status::ok();
  if (y.quant != Quant::PerTensor) return Status::error(std::string(op_name(n.op)) + ": quantized output is not per-tensor");
  for (int i = 0; i < n.nin; ++i) {
    const Value& x = g.values[n.in[i]];
    if (x.quant != Quant::PerTensor || x.scale != y.scale || x.zero_point != y.zero_point)
      return Status::error(std::string(op_name(n.op)) + ": input " + std::to_string(i) + " (scale " + std::to_string(x.scale) +
                           ", zero point " + std::to_string(x.zero_point) + ") and output (scale " + std::to_string(y.scale) +
                           ", zero point " + std::to_string(y.zero_point) + ") are quantized differently");
  }
  return Status::ok();
}

Status prepare_qs8(const Graph& g, const Node& n, Prepared* p) {
  const std::string name = op_name(n.op);
  const Value& x = g.values[n.in[0]];
  const Value& y = g.values[n.out];
  auto fail = [&](const std::string& m) { return Status::error(name + " (" + dt_name(x.dtype) + " -> " + dt_name(y.dtype) + "): " + m); };
  if (!is_qs8(x) || !is_qs8(y)) return fail("only per-tensor qint8 activations are supported");
  // a damaged file can hold any zero point: outside int8 the integer rules would overflow
  for (int32_t id : {n.in[0], n.in[1], n.out}) {
    if (id < 0 || static_cast<size_t>(id) >= g.values.size()) continue;
    const Value& v = g.values[static_cast<size_t>(id)];
    if (v.dtype == DT::QInt8 && (v.zero_point < -128 || v.zero_point > 127))
      return fail("zero point " + std::to_string(v.zero_point) + " outside [-128, 127]");
  }
  switch (n.op) {
    case Op::Conv2d: case Op::DepthwiseConv2d: return prepare_conv_qs8(g, n, p, name);
    case Op::Add: {
      const Value& b = g.values[n.in[1]];
      if (!is_qs8(b)) return fail(std::string("second input is ") + dt_name(b.dtype) + ", expected per-tensor qint8");
      QS8Add a;
      if (!qs8_add_params(x.scale, x.zero_point, b.scale, b.zero_point, y.scale, y.zero_point, &a))
        return fail("input / output scale ratio outside [2^-10, 2^8)");
      a.lo = qs8_quantize_bound(n.out_min, y.scale, y.zero_point);
      a.hi = qs8_quantize_bound(n.out_max, y.scale, y.zero_point);
      if (a.lo > a.hi) return fail("empty output range");
      if (p) p->wsum = {a.bias, a.a_mult, a.b_mult, static_cast<int32_t>(a.shift), a.zp, a.lo, a.hi};
      return Status::ok();
    }
    case Op::Multiply: {
      const Value& b = g.values[n.in[1]];
      if (!is_qs8(b)) return fail(std::string("second input is ") + dt_name(b.dtype) + ", expected per-tensor qint8");
      const float sc = x.scale * b.scale / y.scale;
      if (!(sc >= 0x1.0p-16f && sc < 0x1.0p+8f)) return fail("product / output scale ratio outside [2^-16, 2^8)");
      const int32_t lo = qs8_quantize_bound(n.out_min, y.scale, y.zero_point);
      const int32_t hi = qs8_quantize_bound(n.out_max, y.scale, y.zero_point);
      if (lo > hi) return fail("empty output range");
      if (p) p->w = {sc}, p->wsum = {x.zero_point, b.zero_point, y.zero_point, lo, hi};
      return Status::ok();
    }
    case Op::MaxPooling2d: case Op::Clamp: {
      if (x.scale != y.scale || x.zero_point != y.zero_point) return fail("input and output quantization must be equal");
      if (n.op == Op::MaxPooling2d && (n.conv.kh * n.conv.kw <= 1)) return fail("a 1x1 pooling window");
      const int32_t lo = qs8_quantize_bound(n.out_min, y.scale, y.zero_point);
      const int32_t hi = qs8_quantize_bound(n.out_max, y.scale, y.zero_point);
      if (lo > hi) return fail("empty output range");
      if (p) p->wsum = {lo, hi};
      return Status::ok();
    }
    case Op::GlobalAvgPooling2d: {
      if (x.dims.n != 4) return fail("input has " + std::to_string(x.dims.n) + " dims, expected NHWC");
      const float r = x.scale / y.scale;
      if (!(r >= 0x1.0p-8f && r <= 0x1.0p+8f)) return fail("input / output scale ratio outside [2^-8, 2^8]");
      const int32_t lo = qs8_quantize_bound(n.out_min, y.scale, y.zero_point);
      const int32_t hi = qs8_quantize_bound(n.out_max, y.scale, y.zero_point);
      if (lo > hi) return fail("empty output range");
      if (p) p->wsum = {lo, hi};
      return Status::ok();
    }
    default:
      return fail("not supported on quantized values");
  }
}

bool run_qs8(State& s, const Node& n) {
  const Prepared& p = s.p();
  const Value& vx = s.meta(n.in[0]);
  const Value& vy = s.meta(n.out);
  switch (n.op) {
    case Op::Conv2d: case Op::DepthwiseConv2d: return run_conv_qs8(s, n);
    case Op::Add: {
      QS8Add a;
      a.bias = p.wsum[0], a.a_mult = p.wsum[1], a.b_mult = p.wsum[2], a.shift = static_cast<uint32_t>(p.wsum[3]);
      a.zp = p.wsum[4], a.lo = p.wsum[5], a.hi = p.wsum[6];
      return run_binary_qs8(s, n, [&a](int8_t u, int8_t v) { return qs8_add(u, v, a); });
    }
    case Op::Multiply: {
      const float sc = p.w[0];
      const int32_t za = p.wsum[0], zb = p.wsum[1], zy = p.wsum[2], lo = p.wsum[3], hi = p.wsum[4];
      return run_binary_qs8(s, n, [=](int8_t u, int8_t v) {
        return qs8_requantize((static_cast<int32_t>(u) - za) * (static_cast<int32_t>(v) - zb), sc, zy, lo, hi);
      });
    }
    case Op::Clamp: {
      const Shape xs = s.v(n.in[0]).shape;
      if (!s.set_shape(n.out, xs)) return false;
      const int8_t* x = reinterpret_cast<const int8_t*>(s.v(n.in[0]).data);
      int8_t* y = reinterpret_cast<int8_t*>(s.v(n.out).data);
      const int32_t lo = p.wsum[0], hi = p.wsum[1];
      for (int64_t i = 0, c = xs.numel(); i < c; ++i) y[i] = static_cast<int8_t>(std::min(std::max<int32_t>(x[i], lo), hi));
      return true;
    }
    case Op::MaxPooling2d: {
      const ConvParams& c = n.conv;
      const Shape xs = s.v(n.in[0]).shape;
      if (xs.n != 4) return s.ctx->fail("XNNMaxPooling2d: input has %d dims, expected NHWC", xs.n);
      const int64_t N = xs.d[0], H = xs.d[1], W = xs.d[2], C = xs.d[3];
      const int64_t OH = win_out(H, c.pad_top, c.pad_bottom, c.kh, c.sh, c.dh);
      const int64_t OW = win_out(W, c.pad_left, c.pad_right, c.kw, c.sw, c.dw);
      if (OH <= 0 || OW <= 0) return s.ctx->fail("XNNMaxPooling2d: the input is smaller than the window");
      Shape ys;
      ys.n = 4, ys.d[0] = N, ys.d[1] = OH, ys.d[2] = OW, ys.d[3] = C;
      if (!s.set_shape(n.out, ys)) return false;
      const int8_t* x = reinterpret_cast<const int8_t*>(s.v(n.in[0]).data);
      int8_t* y = reinterpret_cast<int8_t*>(s.v(n.out).data);
      const int32_t lo = p.wsum[0], hi = p.wsum[1];
      for (int64_t b = 0; b < N; ++b)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            int8_t* py = y + ((b * OH + oh) * OW + ow) * C;
            for (int64_t ch = 0; ch < C; ++ch) {
              int32_t m = -128;  // padding never wins (XNNPACK pads with the lowest value)
              for (uint32_t kh = 0; kh < c.kh; ++kh) {
                const int64_t ih = oh * c.sh - static_cast<int64_t>(c.pad_top) + static_cast<int64_t>(kh) * c.dh;
                if (ih < 0 || ih >= H) continue;
                for (uint32_t kw = 0; kw < c.kw; ++kw) {
                  const int64_t iw = ow * c.sw - static_cast<int64_t>(c.pad_left) + static_cast<int64_t>(kw) * c.dw;
                  if (iw < 0 || iw >= W) continue;
                  m = std::max<int32_t>(m, x[((b * H + ih) * W + iw) * C + ch]);
                }
              }
              py[ch] = static_cast<int8_t>(std::min(std::max(m, lo), hi));
            }
          }
      return true;
    }
    case Op::GlobalAvgPooling2d: {
      const Shape xs = s.v(n.in[0]).shape;
      if (xs.n != 4) return s.ctx->fail("XNNGlobalAvgPooling2d: input has %d dims, expected NHWC", xs.n);
      const int64_t N = xs.d[0], HW = xs.d[1] * xs.d[2], C = xs.d[3];
      if (HW <= 0 || HW > (INT64_C(1) << 23)) return s.ctx->fail("XNNGlobalAvgPooling2d: %lld pixels to average", (long long)HW);
      Shape ys;
      if (vy.dims.n == 4 || (n.flags & kFlagKeepDims)) {
        ys.n = 4, ys.d[0] = N, ys.d[1] = 1, ys.d[2] = 1, ys.d[3] = C;
      } else {
        ys.n = 2, ys.d[0] = N, ys.d[1] = C;
      }
      if (!s.set_shape(n.out, ys)) return false;
      const QS8Mean mp = qs8_mean_params(vx.scale, vx.zero_point, vy.scale, vy.zero_point, HW);
      const int8_t* x = reinterpret_cast<const int8_t*>(s.v(n.in[0]).data);
      int8_t* y = reinterpret_cast<int8_t*>(s.v(n.out).data);
      const int32_t lo = p.wsum[0], hi = p.wsum[1];
      for (int64_t b = 0; b < N; ++b)
        for (int64_t ch = 0; ch < C; ++ch) {
          int32_t sum = 0;
          for (int64_t i = 0; i < HW; ++i) sum += x[(b * HW + i) * C + ch];
          y[b * C + ch] = static_cast<int8_t>(std::min(std::max<int32_t>(qs8_mean(sum, mp), lo), hi));
        }
      return true;
    }
    default:
      return s.ctx->fail("%s is not supported on quantized values", op_name(n.op));
  }
}

}  // namespace pte::xnn
