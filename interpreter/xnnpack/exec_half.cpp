// pte-run XNNPACK delegate: fp16 / bf16 graphs. The compute nodes run on the fp32
// kernels: widen_half() rewrites the graph at load so that every half-precision
// operand of a compute node is read through an fp32 twin (constants converted once,
// runtime values by an inserted convert node) and every half-precision result is
// written to an fp32 temporary and converted back (round to nearest even); the one
// exception is a fully connected node's constant fp16 filter ([N, K]), which stays in
// the file and is read by ops/linalg/gemm_f16w (half the bytes a decode step reads). Data
// movement nodes (transpose, reshape, slice, concatenate, copy) stay in half
// precision: they move bytes. run_convert_half() is that convert. A Convert from fp16 to
// a quantized type (fp16 models with dynamically quantized linears) reads an fp32 twin too.
#include <atomic>
#include <cstring>

#include "interpreter/xnnpack/exec.h"
#include "ops/elementwise/elementwise.h"
#include "ops/linalg/gemm_f16w.h"
#include "ops/util.h"

namespace pte::xnn {

namespace {

bool is_half(DT t) { return t == DT::F16 || t == DT::BF16; }

bool moves_bytes(Op op) {
  switch (op) {
    case Op::StaticTranspose: case Op::StaticReshape: case Op::StaticSlice: case Op::Concatenate2:
    case Op::Concatenate3: case Op::Concatenate4: case Op::Concatenate5: case Op::Copy:
      return true;
    default:
      return false;
  }
}

float to_f32(DT t, uint16_t h) { return t == DT::F16 ? half_bits_to_float(h) : bf16_bits_to_float(h); }
uint16_t from_f32(DT t, float f) { return t == DT::F16 ? float_to_half_bits(f) : float_to_bf16_bits(f); }

// A compute node's half result h (Convert t32 -> h) read by nothing but the next node's fp32
// twin (Convert h -> u32), and not an external: the pair becomes one pass u32 = t32 rounded
// through h's type, and h is never written (the same values; one pass and one node fewer on
// every edge between two widened nodes: SmolLM2 fp16's prefill ran 843 fp32 -> fp16 Converts,
// 603 after).
void fuse_round_trips(const Graph& g, std::vector<Node>* nodes, std::vector<int32_t>* from) {
  std::vector<int32_t> readers(g.values.size(), 0), twin_at(g.values.size(), -1);
  for (size_t k = 0; k < nodes->size(); ++k) {
    const Node& n = (*nodes)[k];
    for (int i = 0; i < n.nin; ++i)
      if (n.in[i] >= 0) ++readers[static_cast<size_t>(n.in[i])];
    if (n.op == Op::Convert && n.in[0] >= 0 && n.out >= 0 && is_half(g.values[static_cast<size_t>(n.in[0])].dtype) &&
        g.values[static_cast<size_t>(n.out)].dtype == DT::F32 && g.values[static_cast<size_t>(n.out)].quant == Quant::None)
      twin_at[static_cast<size_t>(n.in[0])] = static_cast<int32_t>(k);
  }
  std::vector<bool> drop(nodes->size(), false);
  for (size_t k = 0; k < nodes->size(); ++k) {
    const Node& a = (*nodes)[k];
    if (a.op != Op::Convert || a.in[0] < 0 || a.out < 0 || a.round_through != DT::Invalid) continue;
    const Value& t = g.values[static_cast<size_t>(a.in[0])];
    const Value& h = g.values[static_cast<size_t>(a.out)];
    if (t.dtype != DT::F32 || t.quant != Quant::None || !is_half(h.dtype) || h.quant != Quant::None || h.is_external() ||
        h.is_constant() || readers[static_cast<size_t>(a.out)] != 1)
      continue;
    const int32_t j = twin_at[static_cast<size_t>(a.out)];
    if (j <= static_cast<int32_t>(k)) continue;
    Node& b = (*nodes)[static_cast<size_t>(j)];
    b.in[0] = a.in[0];
    b.round_through = h.dtype;
    drop[k] = true;
  }
  size_t w = 0;
  for (size_t k = 0; k < nodes->size(); ++k) {
    if (drop[k]) continue;
    (*nodes)[w] = (*nodes)[k];
    (*from)[w] = (*from)[k];
    ++w;
  }
  nodes->resize(w);
  from->resize(w);
}

}  // namespace

bool reads_f16_filter(const Graph& g, const Node& n) {
  if (n.op != Op::FullyConnected || n.nin < 2 || n.in[1] < 0 || (n.flags & kFlagTransposeWeights) != 0) return false;
  const Value& w = g.values[static_cast<size_t>(n.in[1])];
  return w.dtype == DT::F16 && w.quant == Quant::None && w.is_constant() && w.dims.n == 2;
}

bool is_half_convert(const Graph& g, const Node& n) {
  if (n.op != Op::Convert || n.in[0] < 0 || n.out < 0) return false;
  if (n.round_through != DT::Invalid) return true;
  const Value& a = g.values[static_cast<size_t>(n.in[0])];
  const Value& b = g.values[static_cast<size_t>(n.out)];
  if (a.quant != Quant::None || b.quant != Quant::None) return false;
  return (is_half(a.dtype) && (b.dtype == DT::F32 || is_half(b.dtype))) || (a.dtype == DT::F32 && is_half(b.dtype));
}

Status widen_half(Graph* g, std::vector<int32_t>* origin) {
  std::vector<Node> out;
  std::vector<int32_t> from;
  out.reserve(g->nodes.size());
  std::vector<int32_t> twin(g->values.size(), -1);
  uint32_t next_id = 0;
  for (const Value& v : g->values) next_id = std::max(next_id, v.id + 1);
  auto new_f32 = [&](int32_t like) {
    Value t;
    t.id = next_id++;
    t.dtype = DT::F32;
    t.dims = g->values[static_cast<size_t>(like)].dims;
    g->values.push_back(t);
    twin.push_back(-1);
    return static_cast<int32_t>(g->values.size() - 1);
  };
  auto convert = [&](int32_t src, int32_t dst, int32_t k) {
    Node c;
    c.op = Op::Convert;
    c.in[0] = src;
    c.nin = 1;
    c.out = dst;
    out.push_back(c);
    from.push_back(k);
  };
  for (size_t k = 0; k < g->nodes.size(); ++k) {
    Node n = g->nodes[k];
    bool any = n.out >= 0 && is_half(g->values[static_cast<size_t>(n.out)].dtype);
    for (int i = 0; i < n.nin; ++i)
      if (n.in[i] >= 0 && is_half(g->values[static_cast<size_t>(n.in[i])].dtype)) any = true;
    // a half <-> fp32 Convert stays; fp16 -> qdint8 (dynamic quantization of fp16 activations) is widened
    if (!any || moves_bytes(n.op) || !op_supported(n.op) || is_half_convert(*g, n)) {
      out.push_back(n);
      from.push_back(static_cast<int32_t>(k));
      continue;
    }
    for (int i = 0; i < n.nin; ++i) {
      const int32_t v = n.in[i];
      if (v < 0 || !is_half(g->values[static_cast<size_t>(v)].dtype)) continue;
      if (i == 1 && reads_f16_filter(*g, n)) continue;  // read in place by the fp16-weight kernels
      if (twin[static_cast<size_t>(v)] < 0) {
        const int32_t t = new_f32(v);
        const Value& src = g->values[static_cast<size_t>(v)];
        if (src.is_constant()) {
          if (src.quant != Quant::None) return Status::error("XNNPACK blob: quantized half-precision constant");
          const int64_t cnt = src.dims.numel();
          if (src.data_size < static_cast<size_t>(cnt) * 2)
            return Status::error("XNNPACK blob: half-precision constant " + std::to_string(src.id) + " is truncated");
          auto buf = std::make_unique<uint8_t[]>(static_cast<size_t>(cnt) * 4 + 16);
          float* f = reinterpret_cast<float*>(buf.get());
          for (int64_t e = 0; e < cnt; ++e) {
            uint16_t h;
            std::memcpy(&h, src.data + 2 * e, 2);
            f[e] = to_f32(src.dtype, h);
          }
          Value& tv = g->values[static_cast<size_t>(t)];
          tv.data = buf.get();
          tv.data_size = static_cast<size_t>(cnt) * 4;
          g->owned.push_back(std::move(buf));
        } else {
          convert(v, t, static_cast<int32_t>(k));
        }
        twin[static_cast<size_t>(v)] = t;
      }
      n.in[i] = twin[static_cast<size_t>(v)];
    }
    if (n.out >= 0 && is_half(g->values[static_cast<size_t>(n.out)].dtype)) {
      const int32_t real = n.out, t = new_f32(real);
      n.out = t;
      out.push_back(n);
      from.push_back(static_cast<int32_t>(k));
      convert(t, real, static_cast<int32_t>(k));
    } else {
      out.push_back(n);
      from.push_back(static_cast<int32_t>(k));
    }
  }
  fuse_round_trips(*g, &out, &from);
  g->nodes = std::move(out);
  if (origin) {  // through the mapping of an earlier rewrite (fuse_pad_into_conv), if any
    if (!origin->empty())
      for (int32_t& f : from) f = f >= 0 && static_cast<size_t>(f) < origin->size() ? (*origin)[static_cast<size_t>(f)] : f;
    *origin = std::move(from);
  }
  return Status::ok();
}

namespace {

// A prefill's fp16 <-> fp32 Converts (MBs a node, hundreds a forward) go over the method's
// threads by ew::parallel_for (from 2^18 values; decode's stay on the calling thread), in
// whole runs of 64 values: each value converted by the same code as in one call.
struct HalfConvertJob {
  const void* x;
  void* y;
  int kind;  // 0: fp32 -> fp16, 1: fp16 -> fp32, 2: fp32 rounded through fp16
  static void run(void* p, int64_t b, int64_t e) {
    const auto& j = *static_cast<const HalfConvertJob*>(p);
    const float* xf = static_cast<const float*>(j.x);
    const uint16_t* xh = static_cast<const uint16_t*>(j.x);
    if (j.kind == 0) linalg::convert_f32_to_f16(xf + b, static_cast<uint16_t*>(j.y) + b, e - b);
    else if (j.kind == 1) linalg::convert_f16_to_f32(xh + b, static_cast<float*>(j.y) + b, e - b);
    else linalg::round_through_f16(xf + b, static_cast<float*>(j.y) + b, e - b);
  }
};
std::atomic<uint64_t> g_half_convert_splits{0};

}  // namespace

uint64_t half_convert_splits() { return g_half_convert_splits.load(std::memory_order_relaxed); }

bool run_convert_half(State& s, const Node& n) {
  const Shape xs = s.v(n.in[0]).shape;
  if (!s.set_shape(n.out, xs)) return false;
  const DT a = s.meta(n.in[0]).dtype, b = s.meta(n.out).dtype;
  if (n.round_through != DT::Invalid) {  // fp32 -> half -> fp32 (fuse_round_trips)
    const float* x = reinterpret_cast<const float*>(s.v(n.in[0]).data);
    float* y = reinterpret_cast<float*>(s.v(n.out).data);
    const int64_t cnt = xs.numel();
    if (n.round_through == DT::F16) {
      HalfConvertJob job{x, y, 2};
      if (ew::parallel_for(*s.ctx, cnt, &job, HalfConvertJob::run, 64) > 1) g_half_convert_splits.fetch_add(1, std::memory_order_relaxed);
    } else {
      for (int64_t i = 0; i < cnt; ++i) y[i] = to_f32(n.round_through, from_f32(n.round_through, x[i]));
    }
    return true;
  }
  int64_t cnt = xs.numel();
  const uint8_t* x = s.v(n.in[0]).data;
  uint8_t* y = s.v(n.out).data;
  if (s.p().last_row_only && xs.n >= 1 && xs.d[xs.n - 1] > 0) {  // the logits' narrowing: only the row the method reads
    const int64_t row = xs.d[xs.n - 1], skip = cnt - row;
    x += skip * static_cast<int64_t>(dt_size(a));
    y += skip * static_cast<int64_t>(dt_size(b));
    cnt = row;
  }
  if ((a == DT::F32 && b == DT::F16) || (a == DT::F16 && b == DT::F32)) {
    HalfConvertJob job{x, y, a == DT::F32 ? 0 : 1};
    if (ew::parallel_for(*s.ctx, cnt, &job, HalfConvertJob::run, 64) > 1) g_half_convert_splits.fetch_add(1, std::memory_order_relaxed);
  } else if (a == DT::F32) {
    const float* xf = reinterpret_cast<const float*>(x);
    for (int64_t i = 0; i < cnt; ++i) {
      const uint16_t h = from_f32(b, xf[i]);
      std::memcpy(y + 2 * i, &h, 2);
    }
  } else if (b == DT::F32) {
    float* yf = reinterpret_cast<float*>(y);
    for (int64_t i = 0; i < cnt; ++i) {
      uint16_t h;
      std::memcpy(&h, x + 2 * i, 2);
      yf[i] = to_f32(a, h);
    }
  } else {  // fp16 <-> bf16 (through fp32), or a plain copy
    for (int64_t i = 0; i < cnt; ++i) {
      uint16_t h;
      std::memcpy(&h, x + 2 * i, 2);
      h = a == b ? h : from_f32(b, to_f32(a, h));
      std::memcpy(y + 2 * i, &h, 2);
    }
  }
  return true;
}

}  // namespace pte::xnn
