// pte-run XNNPACK delegate: quantized nodes.
//
//   Convert        fp32 -> qint8/quint8 (per tensor), qint8/quint8 -> fp32,
//                  fp32 -> qdint8 (dynamic, per row: asymmetric int8, XNNPACK's rule)
//   FullyConnected qint8 x qint8/qcint8 (+ qint32 bias) -> qint8      (static int8)
//                  qdint8 x qcint8 / qcint4 / qbint4 (+ fp32 bias) -> fp32   (8da8w / 8da4w)
//
// qd8 (qgemm_qd8.h): 4-bit filters (K, block multiples of 8) are repacked once at load into
// one stream with their scales (qd8_pack_u4, the file's bytes in another order); other
// 4-bit and int8 filters are read in place (a transposed int8 filter is copied once to
// [N, K]) with per-block scales and weight sums [blocks, N]. Static int8 filters are
// unpacked to int8 [N, K]. The float epilogue of every qd8 kernel: qd8_block_step /
// qd8_output (qgemm_qd8.h); the qd8 quantization parameters: quantize_qd8.cpp.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>

#include "interpreter/xnnpack/exec.h"
#include "ops/elementwise/elementwise.h"
#include "ops/qd8/qgemm_qd8.h"
#include "ops/qd8/qgemm_qd8_epilogue.h"
#include "ops/qd8/quantize_qd8.h"

namespace pte::xnn {

int64_t RtValue::rows() const {
  // all but the last dim (num_nonbatch_dims = 1, the only form the partitioner emits)
  if (shape.n == 0) return 1;
  int64_t last = shape.d[shape.n - 1];
  return last ? shape.numel() / last : 0;
}

namespace {

bool is_q8(DT t) { return t == DT::QInt8 || t == DT::QUInt8; }
int qmin(DT t) { return t == DT::QUInt8 ? 0 : -128; }
int qmax(DT t) { return t == DT::QUInt8 ? 255 : 127; }

int32_t load_q(DT t, const uint8_t* p, int64_t i) {
  return t == DT::QUInt8 ? static_cast<int32_t>(p[i]) : static_cast<int32_t>(reinterpret_cast<const int8_t*>(p)[i]);
}
void store_q(DT t, uint8_t* p, int64_t i, int32_t v) {
  if (t == DT::QUInt8)
    p[i] = static_cast<uint8_t>(v);
  else
    reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(v);
}

// Rows of a qd8 Convert, elements [e0, e1) in whole rows (ew::parallel_for's unit k).
struct QuantizeRowsJob {
  const float* x;
  int64_t k;
  int8_t* y;
  float* scale;
  int32_t* zp;
  static void run(void* p, int64_t e0, int64_t e1) {
    const auto& j = *static_cast<const QuantizeRowsJob*>(p);
    quantize_qd8_rows(j.x + e0, (e1 - e0) / j.k, j.k, j.y + e0, j.scale + e0 / j.k, j.zp + e0 / j.k);
  }
};

}  // namespace

bool run_convert(State& s, const Node& n) {
  const Value& vi = s.meta(n.in[0]);
  const Value& vo = s.meta(n.out);
  const Shape sh = s.v(n.in[0]).shape;
  if (!s.set_shape(n.out, sh)) return false;
  const int64_t c = sh.numel();
  if (vi.dtype == DT::F32 && is_q8(vo.dtype) && vo.quant == Quant::PerTensor) {
    const float* x = s.ptr<float>(n.in[0]);
    uint8_t* y = s.v(n.out).data;
    const float inv = 1.0f / vo.scale;
    for (int64_t i = 0; i < c; ++i) {
      float q = std::nearbyint(x[i] * inv) + static_cast<float>(vo.zero_point);
      q = std::min(std::max(q, static_cast<float>(qmin(vo.dtype))), static_cast<float>(qmax(vo.dtype)));
      store_q(vo.dtype, y, i, static_cast<int32_t>(q));
    }
    return true;
  }
  if (is_q8(vi.dtype) && vi.quant == Quant::PerTensor && vo.dtype == DT::F32) {
    const uint8_t* x = s.v(n.in[0]).data;
    float* y = s.ptr<float>(n.out);
    for (int64_t i = 0; i < c; ++i) y[i] = static_cast<float>(load_q(vi.dtype, x, i) - vi.zero_point) * vi.scale;
    clamp_output(n, y, c);
    return true;
  }
  if (vi.dtype == DT::F32 && vo.dtype == DT::QDInt8) {
    RtValue& o = s.v(n.out);
    const int64_t rows = o.rows(), k = rows ? c / rows : 0;
    if (rows > o.row_capacity) return s.ctx->fail("XNNConvert: %lld rows exceed the planned %lld", (long long)rows, (long long)o.row_capacity);
    QuantizeRowsJob j{s.ptr<float>(n.in[0]), k, reinterpret_cast<int8_t*>(o.data), o.row_scale, o.row_zp};
    // a prefill's rows over the method's threads (each row on its own: the same values)
    if (k > 0)
      ew::parallel_for(*s.ctx, rows * k, &j, QuantizeRowsJob::run, k);
    else
      quantize_qd8_rows(j.x, rows, k, j.y, j.scale, j.zp);
    return true;
  }
  return s.ctx->fail("XNNConvert from %s to %s is not supported", dt_name(vi.dtype), dt_name(vo.dtype));
}

Status prepare_fully_connected_quantized(const Graph& g, const Node& n, Prepared* p) {
  const Value& x = g.values[n.in[0]];
  const Value& w = g.values[n.in[1]];
  const Value& y = g.values[n.out];
  const Value* b = n.in[2] >= 0 ? &g.values[n.in[2]] : nullptr;
  auto fail = [&](const std::string& m) {
    return Status::error(std::string("XNNFullyConnected (") + dt_name(x.dtype) + " x " + dt_name(w.dtype) + " -> " +
                         dt_name(y.dtype) + "): " + m);
  };
  const bool dyn = x.dtype == DT::QDInt8;
  const bool stat = is_q8(x.dtype) && x.quant == Quant::PerTensor;
  if (!dyn && !stat) return fail("unsupported input type");
  if (!w.is_constant()) return fail("the quantized filter must be a constant");
  if (w.dims.n != 2) return fail("the filter is not 2-D");
  const bool tw = (n.flags & kFlagTransposeWeights) != 0;
  const int64_t N = tw ? w.dims.d[1] : w.dims.d[0], K = tw ? w.dims.d[0] : w.dims.d[1];
  int64_t block = K;
  std::vector<float> scales(static_cast<size_t>(N), 1.0f);
  if (w.dtype == DT::QInt8 && w.quant == Quant::PerTensor) {
    if (w.zero_point != 0) return fail("filter zero point must be 0");
    std::fill(scales.begin(), scales.end(), w.scale);
  } else if (w.dtype == DT::QCInt8 || w.dtype == DT::QCInt4) {
    if (w.quant != Quant::PerChannel || w.channel_dim != (tw ? 1 : 0)) return fail("filter scales must be per output channel");
    if (w.dtype == DT::QCInt4 && tw) return fail("transposed 4-bit filters are not supported");
    scales = w.scales;
  } else if (w.dtype == DT::QBInt4) {
    if (!dyn) return fail("blockwise filters need dynamically quantized input");
    if (tw) return fail("transposed 4-bit filters are not supported");
    block = w.block_size;
    scales = w.scales;
  } else {
    return fail("unsupported filter type");
  }
  if (dyn && y.dtype != DT::F32) return fail("dynamically quantized FC must output fp32");
  if (stat && !(is_q8(y.dtype) && y.quant == Quant::PerTensor)) return fail("static int8 FC must output per-tensor int8");
  if (b) {
    if (!b->is_constant() || b->dims.numel() != N) return fail("bias must be a constant of " + std::to_string(N) + " elements");
    if (dyn && b->dtype != DT::F32) return fail("bias must be fp32");
    if (stat && b->dtype != DT::QInt32 && b->dtype != DT::QCInt32) return fail("bias must be int32");
  }
  if (!p) return Status::ok();  // checks only
  const bool w4 = w.dtype == DT::QCInt4 || w.dtype == DT::QBInt4;
  const int64_t nb = block ? K / block : 0;
  if (dyn) {
    // qd8: the filter stays where the file has it (4-bit rows or int8 [N, K]); only a
    // transposed int8 filter is copied to [N, K]. Scales and block sums go [blocks, N].
    p->w4 = w4;
    p->w_row_bytes = w4 ? (K + 1) / 2 : K;
    if (!w4 && tw) {
      p->wq.resize(static_cast<size_t>(N * K));
      const int8_t* d = reinterpret_cast<const int8_t*>(w.data);
      for (int64_t o = 0; o < N; ++o)
        for (int64_t k = 0; k < K; ++k) p->wq[static_cast<size_t>(o * K + k)] = d[k * N + o];
      p->wdata = reinterpret_cast<const uint8_t*>(p->wq.data());
    } else {
      p->wdata = w.data;
    }
    // blockwise 4-bit: bf16 scales (exact: the file stores bf16) and int16 sums (|sum| <= 8 block)
    bool compact = w.dtype == DT::QBInt4 && block <= 4096;
    for (size_t i = 0; compact && i < scales.size(); ++i) {
      uint32_t u;
      std::memcpy(&u, &scales[i], 4);
      compact = (u & 0xFFFFu) == 0;
    }
    // 4-bit: repacked for the SIMD kernels (qd8_pack_u4: the file's bytes in another order,
    // with the block scales)
    const bool pack = w4 && K % 8 == 0 && block % 8 == 0;
    p->meta_stride = pack ? (N + 15) / 16 * 16 : N;
    if (pack) {  // the stream holds the scales; the block sums are computed by every kernel
      const size_t bytes = qd8_packed_u4_bytes(N, K, block, compact);
      if (p->arena) {
        p->wpack = p->arena->allocate(bytes);
      } else {
        p->own_wpack.reset(new (std::nothrow) uint8_t[bytes]);
        p->wpack = p->own_wpack.get();
      }
      if (!p->wpack) return fail("cannot allocate the packed filter");
      p->wpack_bf16 = compact;
      qd8_pack_u4(w.data, scales.data(), compact, N, K, block, p->meta_stride, p->wpack, nullptr, nullptr);
    }
    if (w.dtype == DT::QBInt4) {  // (from the packed stream where it can: 16 columns at once)
      p->ksum.resize(static_cast<size_t>(N));
      if (!pack || !qd8_ksum_u4_packed(p->wpack, compact, N, K, block, p->ksum.data()))
        for (int64_t o = 0; o < N; ++o)
          p->ksum[static_cast<size_t>(o)] = qd8_ksum_u4(w.data + o * p->w_row_bytes, K, block, scales.data() + o * nb);
    }
    if (pack) return Status::ok();
    const size_t cells = static_cast<size_t>(p->meta_stride * nb);
    if (compact)
      p->wsum16.assign(cells, 0), p->scale_bf16.assign(cells, 0);
    else
      p->wsum.assign(cells, 0), p->w.assign(cells, 0.0f);
    for (int64_t o = 0; o < N; ++o) {
      const uint8_t* row = p->wdata + o * p->w_row_bytes;
      for (int64_t b = 0; b < nb; ++b) {
        const size_t at = static_cast<size_t>(b * p->meta_stride + o);
        const float sc = scales[static_cast<size_t>(o * nb + b)];
        if (compact) {
          uint32_t u;
          std::memcpy(&u, &sc, 4);
          p->scale_bf16[at] = static_cast<uint16_t>(u >> 16);
        } else {
          p->w[at] = sc;
        }
        int32_t sum = 0;
        if (w4) {
          for (int64_t k = b * block; k < (b + 1) * block; ++k)
            sum += static_cast<int32_t>((k & 1) ? (row[k >> 1] >> 4) : (row[k >> 1] & 15));
          sum -= static_cast<int32_t>(8 * block);
        } else {
          for (int64_t k = b * block; k < (b + 1) * block; ++k) sum += static_cast<int8_t>(row[k]);
        }
        if (compact)
          p->wsum16[at] = static_cast<int16_t>(sum);
        else
          p->wsum[at] = sum;
      }
    }
    return Status::ok();
  }
  // static int8: unpack to int8 [N, K]
  p->wq.resize(static_cast<size_t>(N * K));
  const uint8_t* d = w.data;
  const int64_t row_bytes = (K + 1) / 2;
  for (int64_t o = 0; o < N; ++o)
    for (int64_t k = 0; k < K; ++k) {
      int v;
      if (w4) {
        const uint8_t byte = d[o * row_bytes + k / 2];
        v = static_cast<int>((k & 1) ? (byte >> 4) : (byte & 15)) - 8;
      } else {
        v = reinterpret_cast<const int8_t*>(d)[tw ? k * N + o : o * K + k];
      }
      p->wq[static_cast<size_t>(o * K + k)] = static_cast<int8_t>(v);
    }
  p->w = std::move(scales);
  return Status::ok();
}

namespace {

// A quantized FC's rows M, outputs N and features K from its input and filter; checks the
// input's last dim and sets the output shape. False with ctx.fail.
bool fc_shapes(State& s, const Node& n, int64_t* M, int64_t* N, int64_t* K) {
  const Value& vw = s.meta(n.in[1]);
  const Shape xs = s.v(n.in[0]).shape;
  const bool tw = (n.flags & kFlagTransposeWeights) != 0;
  *N = tw ? vw.dims.d[1] : vw.dims.d[0], *K = tw ? vw.dims.d[0] : vw.dims.d[1];
  if (xs.n < 1 || xs.d[xs.n - 1] != *K)
    return s.ctx->fail("XNNFullyConnected: input has %lld features, the filter %lld", (long long)(xs.n ? xs.d[xs.n - 1] : 0), (long long)*K);
  Shape ys = xs;
  ys.d[ys.n - 1] = *N;
  *M = *K ? xs.numel() / *K : 0;
  return s.set_shape(n.out, ys);
}

// The qd8 product of node `k` (shapes checked, output shape set); false with ctx.fail.
bool qd8_gemm_of(State& s, size_t k, QGemm* out) {
  const Node& n = s.g->nodes[k];
  const Value& vw = s.meta(n.in[1]);
  int64_t M, N, K;
  if (!fc_shapes(s, n, &M, &N, &K)) return false;
  const Prepared& p = (*s.prep)[k];
  RtValue& x = s.v(n.in[0]);
  if (M > x.row_capacity) return s.ctx->fail("XNNFullyConnected: %lld rows exceed the planned %lld", (long long)M, (long long)x.row_capacity);
  QGemm q;
  q.M = M, q.N = N, q.K = K;
  q.x = reinterpret_cast<const int8_t*>(x.data), q.x_scale = x.row_scale, q.x_zp = x.row_zp;
  q.wkind = p.w4 ? QWeights::U4 : QWeights::I8;
  q.w = p.wdata, q.w_row_bytes = p.w_row_bytes, q.meta_stride = p.meta_stride;
  q.wp = p.wpack, q.wp_bf16 = p.wpack_bf16;
  if (!p.wsum16.empty())
    q.wsum16 = p.wsum16.data(), q.w_scale_bf16 = p.scale_bf16.data();
  else if (!p.w.empty())
    q.wsum = p.wsum.data(), q.w_scale = p.w.data();  // (packed 4-bit: none, see qgemm_qd8.h)
  q.block = vw.dtype == DT::QBInt4 ? vw.block_size : K;
  q.ksum = vw.dtype == DT::QBInt4 ? p.ksum.data() : nullptr;
  q.bias = n.in[2] >= 0 ? s.ptr<float>(n.in[2]) : nullptr;
  q.y = s.ptr<float>(n.out);
  if (p.last_row_only && M > 1) {  // the other rows are never read (MethodOptions::last_row_of_output_only)
    q.x += (M - 1) * K, q.x_scale += M - 1, q.x_zp += M - 1, q.y += (M - 1) * N;
    q.M = 1;
  }
  *out = q;
  return true;
}

// The products qs[0, count) (the same activations): as one group when their prepared
// activations (M x K bytes and the block sums) fit the method's scratch; a long prompt's
// may not (Qwen3-0.6B's 3072-wide down projection from 1366 tokens, 4 MB of scratch), and
// then they run in slices of rows that fit, one after the other (each output row is its
// own product: the same values), not on the scalar reference for want of memory.
std::atomic<uint64_t> g_sliced{0};  // products run in slices (tests)

void run_qd8_products(State& s, const QGemm* qs, size_t count) {
  const int helpers = s.helper_thread ? s.ctx->claim_threads - 1 : 0;
  auto need_for = [&](int64_t rows) {
    size_t n = 0;
    for (size_t j = 0; j < count; ++j) {
      QGemm t = qs[j];
      t.M = std::min(t.M, rows);
      n = std::max(n, qgemm_qd8_scratch_bytes(t));
    }
    return n;
  };
  const int64_t M = qs[0].M;
  const size_t left = s.ctx->scratch_left();
  bool same_rows = true;
  for (size_t j = 1; j < count; ++j) same_rows = same_rows && qs[j].M == M;
  const size_t need = need_for(M);
  if (need <= left || M <= 1) {  // (one row that does not fit: the scalar reference, null scratch)
    qgemm_qd8_group(s.ctx->threadpool, qs, static_cast<int>(count), s.ctx->scratch(need), QIsa::Auto, helpers);
    return;
  }
  if (!same_rows) {  // one by one, each sliced as it needs
    for (size_t j = 0; j < count; ++j) run_qd8_products(s, &qs[j], 1);
    return;
  }
  const int64_t nb = qs[0].block > 0 ? qs[0].K / qs[0].block : 0;
  int64_t rows = std::min<int64_t>(M, static_cast<int64_t>(left / static_cast<size_t>(qs[0].K + 4 * nb + 1)));
  if (rows > 16) rows = rows / 16 * 16;
  while (rows > 1 && need_for(rows) > left) rows -= rows > 16 ? 16 : 1;
  void* scratch = s.ctx->scratch(need_for(std::max<int64_t>(rows, 1)));
  g_sliced.fetch_add(1, std::memory_order_relaxed);
  for (int64_t m0 = 0; m0 < M; m0 += std::max<int64_t>(rows, 1)) {
    QGemm part[kQd8GroupMax];
    for (size_t j = 0; j < count; ++j) {
      part[j] = qs[j];
      part[j].M = std::min(std::max<int64_t>(rows, 1), M - m0);
      part[j].x += m0 * qs[j].K;
      if (part[j].x_scale) part[j].x_scale += m0;
      if (part[j].x_zp) part[j].x_zp += m0;
      part[j].y += m0 * qs[j].N;
    }
    qgemm_qd8_group(s.ctx->threadpool, part, static_cast<int>(count), scratch, QIsa::Auto, helpers);
  }
}

// After the product: an empty K gives the bias; the node's output range.
void qd8_finish(const Node& n, const QGemm& q) {
  if (q.K == 0)
    for (int64_t i = 0; i < q.M * q.N; ++i) q.y[i] = q.bias ? q.bias[i % q.N] : 0.0f;
  clamp_output(n, q.y, q.M * q.N);
}

}  // namespace

uint64_t qd8_sliced_runs() { return g_sliced.load(std::memory_order_relaxed); }

bool run_fully_connected_quantized(State& s, const Node& n) {
  const Value& vx = s.meta(n.in[0]);
  const Value& vy = s.meta(n.out);
  const Prepared& p = s.p();
  if (vx.dtype == DT::QDInt8) {
    // this node and its siblings (fuse_qd8_siblings: the nodes after it, same activations)
    const size_t count = static_cast<size_t>(std::min(n.siblings, kQd8GroupMax - 1)) + 1;
    QGemm qs[kQd8GroupMax];
    if (s.node_index + count > s.g->nodes.size()) return s.ctx->fail("XNNFullyConnected: the product group runs past the graph");
    // (the products may differ in rows: one whose output is read at its last row only)
    for (size_t j = 0; j < count; ++j)
      if (!qd8_gemm_of(s, s.node_index + j, &qs[j])) return false;
    if (qs[0].K > 0) run_qd8_products(s, qs, count);  // (one K for the group: fuse_qd8_siblings)
    for (size_t j = 0; j < count; ++j) qd8_finish(s.g->nodes[s.node_index + j], qs[j]);
    return true;
  }
  int64_t M, N, K;
  if (!fc_shapes(s, n, &M, &N, &K)) return false;
  // static int8: acc = bias + sum (x - zx) w;  y = clamp(round(acc * sx*sw/sy) + zy)
  const uint8_t* x = s.v(n.in[0]).data;
  uint8_t* y = s.v(n.out).data;
  const int32_t* bias = n.in[2] >= 0 ? s.ptr<int32_t>(n.in[2]) : nullptr;
  float lo = static_cast<float>(qmin(vy.dtype) - vy.zero_point), hi = static_cast<float>(qmax(vy.dtype) - vy.zero_point);
  if (n.out_min != -__builtin_inff()) lo = std::max(lo, std::nearbyint(n.out_min / vy.scale));
  if (n.out_max != __builtin_inff()) hi = std::min(hi, std::nearbyint(n.out_max / vy.scale));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t o = 0; o < N; ++o) {
      int32_t acc = bias ? bias[o] : 0;
      const int8_t* w = p.wq.data() + o * K;
      for (int64_t k = 0; k < K; ++k) acc += (load_q(vx.dtype, x, m * K + k) - vx.zero_point) * static_cast<int32_t>(w[k]);
      const float r = vx.scale * p.w[static_cast<size_t>(o)] / vy.scale;
      float f = static_cast<float>(acc) * r;
      f = std::min(std::max(f, lo), hi);
      store_q(vy.dtype, y, m * N + o, static_cast<int32_t>(std::lrintf(f)) + vy.zero_point);
    }
  return true;
}

}  // namespace pte::xnn
