// pte-run XNNPACK delegate: quantized nodes.
//
//   Convert        fp32 -> qint8/quint8 (per tensor), qint8/quint8 -> fp32,
//                  fp32 -> qdint8 (dynamic, per row: asymmetric int8, XNNPACK's rule)
//   FullyConnected qint8 x qint8/qcint8 (+ qint32 bias) -> qint8      (static int8)
//                  qdint8 x qcint8 / qcint4 / qbint4 (+ fp32 bias) -> fp32   (8da8w / 8da4w)
//
// Weights are unpacked once at load to int8 [N, K] without their zero point, with
// per-block sums for the activation zero-point correction.
#include <immintrin.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "interpreter/xnnpack/exec.h"
#include "ops/linalg/gemm.h"

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

// XNNPACK's dynamic (qd8) asymmetric parameters for one row: the quantization
// multiplier q = 255 / (max - min) over the row and 0, the zero point from whichever
// end rounds better, nudged to an integer. Values are quantized as round(x * q) + zp
// and dequantized with 1 / q (what XNNPACK stores), never with (max - min) / 255.
void qd8_params(const float* x, int64_t k, float* mult, float* dq_scale, int32_t* zp) {
  float mn = 0.0f, mx = 0.0f;
  for (int64_t i = 0; i < k; ++i) mn = std::min(mn, x[i]), mx = std::max(mx, x[i]);
  const float qmn = -128.0f, qmx = 127.0f;
  const float q = mn == mx ? 1.0f : (qmx - qmn) / (mx - mn);
  const float dmin = mn * q, dmax = mx * q;
  float z = (qmn + dmin) + (qmx + dmax) > 0 ? qmn - dmin : qmx - dmax;
  z = std::min(std::max(z, qmn), qmx);
  *mult = q;
  *dq_scale = 1.0f / q;
  *zp = static_cast<int32_t>(std::lrintf(z));
}

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
    const float* x = s.ptr<float>(n.in[0]);
    int8_t* y = reinterpret_cast<int8_t*>(o.data);
    for (int64_t r = 0; r < rows; ++r) {
      float mult, dq;
      int32_t zp;
      qd8_params(x + r * k, k, &mult, &dq, &zp);
      o.row_scale[r] = dq, o.row_zp[r] = zp;
      for (int64_t i = 0; i < k; ++i) {
        float q = std::nearbyint(x[r * k + i] * mult) + static_cast<float>(zp);
        y[r * k + i] = static_cast<int8_t>(std::min(std::max(q, -128.0f), 127.0f));
      }
    }
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
  // unpack to int8 [N, K]
  p->wq.resize(static_cast<size_t>(N * K));
  const uint8_t* d = w.data;
  const int64_t row_bytes = (K + 1) / 2;
  for (int64_t o = 0; o < N; ++o)
    for (int64_t k = 0; k < K; ++k) {
      int v;
      if (w.dtype == DT::QCInt4 || w.dtype == DT::QBInt4) {
        uint8_t byte = d[o * row_bytes + k / 2];
        v = static_cast<int>((k & 1) ? (byte >> 4) : (byte & 15)) - 8;
      } else {
        v = reinterpret_cast<const int8_t*>(d)[tw ? k * N + o : o * K + k];
      }
      p->wq[static_cast<size_t>(o * K + k)] = static_cast<int8_t>(v);
    }
  const int64_t nb = block ? K / block : 0;
  p->wsum.assign(static_cast<size_t>(N * nb), 0);
  for (int64_t o = 0; o < N; ++o)
    for (int64_t k = 0; k < K; ++k) p->wsum[static_cast<size_t>(o * nb + k / block)] += p->wq[static_cast<size_t>(o * K + k)];
  if (w.dtype == DT::QBInt4) {
    p->ksum.resize(static_cast<size_t>(N));
    for (int64_t o = 0; o < N; ++o)
      p->ksum[static_cast<size_t>(o)] = qb4w_ksum(p->wq.data() + o * K, K, block, scales.data() + o * nb);
  }
  p->w = std::move(scales);
  return Status::ok();
}

float qb4w_ksum(const int8_t* w, int64_t K, int64_t block, const float* block_scales) {
  // chunks of 16 (never across a block boundary; XNNPACK's blocks are multiples of 32)
  float acc = 0.0f;
  for (int64_t k0 = 0; k0 < K;) {
    const int64_t end = std::min({k0 + 16, (k0 / block + 1) * block, K});
    int32_t s = 0;
    for (int64_t k = k0; k < end; ++k) s += w[k];
    acc = acc - static_cast<float>(s) * block_scales[k0 / block];
    k0 = end;
  }
  return acc;
}

// ---- qd8 GEMM kernels ----

void qgemm_qd8_scalar(const QGemm& q, int64_t n0, int64_t n1) {
  const int64_t nb = q.block ? q.K / q.block : 0;
  for (int64_t m = 0; m < q.M; ++m) {
    const int8_t* x = q.x + m * q.K;
    const float xs = q.x_scale[m];
    const int32_t xz = q.x_zp[m];
    for (int64_t n = n0; n < n1; ++n) {
      const int8_t* w = q.w + n * q.K;
      const float bias = q.bias ? q.bias[n] : 0.0f;
      if (q.ksum) {
        float acc = qb4w_start(q.ksum[n], xz);
        for (int64_t b = 0; b < nb; ++b) {
          int32_t dot = 0;
          for (int64_t k = b * q.block; k < (b + 1) * q.block; ++k) dot += static_cast<int32_t>(x[k]) * static_cast<int32_t>(w[k]);
          acc = qb4w_block(acc, dot, q.wsum[n * nb + b], q.w_scale[n * nb + b]);
        }
        q.y[m * q.N + n] = qb4w_finish(acc, xs, bias);
      } else {
        int32_t dot = 0;
        for (int64_t k = 0; k < q.K; ++k) dot += static_cast<int32_t>(x[k]) * static_cast<int32_t>(w[k]);
        q.y[m * q.N + n] = qc_finish(dot - xz * q.wsum[n], xs, q.w_scale[n], bias);
      }
    }
  }
}

namespace {

__attribute__((target("avx2,fma"))) inline int32_t dot_i8_avx2(const int8_t* a, const int8_t* b, int64_t k) {
  __m256i acc = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    __m256i va = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    __m256i vb = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(va, vb));
  }
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  int32_t r = _mm_cvtsi128_si32(s);
  for (; i < k; ++i) r += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
  return r;
}

}  // namespace

// Per (row, column): int8 products summed per block in int32 lanes (madd), the
// block's lanes summed (integers: exact), then the shared epilogue per block.
__attribute__((target("avx2,fma"))) void qgemm_qd8_avx2(const QGemm& q, int64_t n0, int64_t n1) {
  const int64_t nb = q.block ? q.K / q.block : 0;
  for (int64_t m = 0; m < q.M; ++m) {
    const int8_t* x = q.x + m * q.K;
    const float xs = q.x_scale[m];
    const int32_t xz = q.x_zp[m];
    for (int64_t n = n0; n < n1; ++n) {
      const int8_t* w = q.w + n * q.K;
      const float bias = q.bias ? q.bias[n] : 0.0f;
      if (q.ksum) {
        const float* sc = q.w_scale + n * nb;
        const int32_t* ws = q.wsum + n * nb;
        float acc = qb4w_start(q.ksum[n], xz);
        for (int64_t b = 0; b < nb; ++b)
          acc = qb4w_block(acc, dot_i8_avx2(x + b * q.block, w + b * q.block, q.block), ws[b], sc[b]);
        q.y[m * q.N + n] = qb4w_finish(acc, xs, bias);
      } else {
        q.y[m * q.N + n] = qc_finish(dot_i8_avx2(x, w, q.K) - xz * q.wsum[n], xs, q.w_scale[n], bias);
      }
    }
  }
}

namespace {
struct QTask {
  const QGemm* q;
  bool avx2;
  int64_t tile;
};
void qtask(void* ctx, size_t i) {
  const QTask* t = static_cast<const QTask*>(ctx);
  int64_t n0 = static_cast<int64_t>(i) * t->tile, n1 = std::min(t->q->N, n0 + t->tile);
  if (t->avx2)
    qgemm_qd8_avx2(*t->q, n0, n1);
  else
    qgemm_qd8_scalar(*t->q, n0, n1);
}
}  // namespace

void qgemm_qd8(pthreadpool* pool, const QGemm& q, bool force_scalar) {
  QTask t{&q, !force_scalar && linalg::cpu_has_avx2_fma(), 16};
  const size_t tiles = static_cast<size_t>((q.N + t.tile - 1) / t.tile);
  if (!pool || tiles <= 1) {
    for (size_t i = 0; i < tiles; ++i) qtask(&t, i);
    return;
  }
  pthreadpool_parallelize_1d(pool, qtask, &t, tiles, 0);
}

bool run_fully_connected_quantized(State& s, const Node& n) {
  const Value& vx = s.meta(n.in[0]);
  const Value& vw = s.meta(n.in[1]);
  const Value& vy = s.meta(n.out);
  const Shape xs = s.v(n.in[0]).shape;
  const bool tw = (n.flags & kFlagTransposeWeights) != 0;
  const int64_t N = tw ? vw.dims.d[1] : vw.dims.d[0], K = tw ? vw.dims.d[0] : vw.dims.d[1];
  if (xs.n < 1 || xs.d[xs.n - 1] != K)
    return s.ctx->fail("XNNFullyConnected: input has %lld features, the filter %lld", (long long)(xs.n ? xs.d[xs.n - 1] : 0), (long long)K);
  Shape ys = xs;
  ys.d[ys.n - 1] = N;
  if (!s.set_shape(n.out, ys)) return false;
  const int64_t M = K ? xs.numel() / K : 0;
  const Prepared& p = s.p();
  if (vx.dtype == DT::QDInt8) {
    RtValue& x = s.v(n.in[0]);
    if (M > x.row_capacity) return s.ctx->fail("XNNFullyConnected: %lld rows exceed the planned %lld", (long long)M, (long long)x.row_capacity);
    QGemm q;
    q.M = M, q.N = N, q.K = K;
    q.x = reinterpret_cast<const int8_t*>(x.data), q.x_scale = x.row_scale, q.x_zp = x.row_zp;
    q.w = p.wq.data(), q.wsum = p.wsum.data(), q.w_scale = p.w.data();
    q.ksum = vw.dtype == DT::QBInt4 ? p.ksum.data() : nullptr;
    q.block = vw.dtype == DT::QBInt4 ? vw.block_size : K;
    q.bias = n.in[2] >= 0 ? s.ptr<float>(n.in[2]) : nullptr;
    q.y = s.ptr<float>(n.out);
    if (M > 0 && N > 0 && K > 0) qgemm_qd8(s.ctx->threadpool, q);
    if (K == 0)
      for (int64_t i = 0; i < M * N; ++i) q.y[i] = q.bias ? q.bias[i % N] : 0.0f;
    clamp_output(n, q.y, M * N);
    return true;
  }
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
