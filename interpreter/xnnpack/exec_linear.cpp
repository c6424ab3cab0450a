// pte-run XNNPACK delegate: fully connected (static or runtime fp32 filter, or a constant
// fp16 filter read in place: ops/linalg/gemm_f16w) and batch matrix multiply, on the
// tiled GEMM of ops/linalg (strided views, no copies).
#include <algorithm>

#include "interpreter/xnnpack/exec.h"
#include "ops/linalg/gemm.h"
#include "ops/linalg/gemm_f16w.h"

namespace pte::xnn {

Status prepare_fully_connected(const Graph& g, const Node& n, Prepared* p) {
  const Value& x = g.values[n.in[0]];
  const Value& w = g.values[n.in[1]];
  if (w.dims.n != 2) return Status::error(std::string("XNNFullyConnected: the filter has ") + std::to_string(w.dims.n) + " dims, expected 2");
  if (n.in[2] >= 0 && g.values[n.in[2]].dims.n < 1) return Status::error("XNNFullyConnected: the bias is a scalar");
  if (x.dtype == DT::F32 && w.dtype == DT::F32) {
    if (n.in[2] >= 0 && g.values[n.in[2]].dtype != DT::F32) return Status::error("XNNFullyConnected: fp32 FC with a non-fp32 bias");
    if (g.values[n.out].dtype != DT::F32) return Status::error("XNNFullyConnected: fp32 FC with a non-fp32 output");
    return Status::ok();
  }
  if (x.dtype == DT::F32 && w.dtype == DT::F16 && w.is_constant() && (n.flags & kFlagTransposeWeights) == 0) {
    // fp16 filter read in place (widen_half left it): fp32 bias and output as the fp32 FC
    if (n.in[2] >= 0 && g.values[n.in[2]].dtype != DT::F32) return Status::error("XNNFullyConnected: fp16-weight FC with a non-fp32 bias");
    if (g.values[n.out].dtype != DT::F32) return Status::error("XNNFullyConnected: fp16-weight FC with a non-fp32 output");
    if (static_cast<uint64_t>(w.data_size) / 2 < static_cast<uint64_t>(w.dims.d[0]) * static_cast<uint64_t>(w.dims.d[1]))
      return Status::error("XNNFullyConnected: the fp16 filter holds " + std::to_string(w.data_size) + " bytes, fewer than its shape");
    return Status::ok();
  }
  // quantized combinations are checked (and their weights unpacked) in exec_quant.cpp
  return prepare_fully_connected_quantized(g, n, p);
}

Status attach_library_fc(const Graph& g, const Node& n, XnnpackPolicy policy, Prepared* p, bool* candidate,
                         MatmulPath* path) {
  *candidate = false;
  if (n.op != Op::FullyConnected) return Status::ok();
  const Value& x = g.values[static_cast<size_t>(n.in[0])];
  const Value& w = g.values[static_cast<size_t>(n.in[1])];
  if (x.dtype == DT::F32 && reads_f16_filter(g, n)) {  // ours under every policy: the library's FC takes fp32 filters
    *candidate = true;
    path->where = "node";
    path->op = "XNNFullyConnected";
    path->n = w.dims.d[0], path->k = w.dims.d[1];
    path->why = "ours: an fp16 filter read in place (the library would need an fp32 copy)";
    return Status::ok();
  }
  if (x.dtype != DT::F32 || w.dtype != DT::F32 || g.values[static_cast<size_t>(n.out)].dtype != DT::F32 || w.dims.n != 2 ||
      !w.is_constant())
    return Status::ok();
  const bool tw = (n.flags & kFlagTransposeWeights) != 0;
  const int64_t K = tw ? w.dims.d[0] : w.dims.d[1], N = tw ? w.dims.d[1] : w.dims.d[0];
  if (N < 1 || K < 1) return Status::ok();  // an empty product: ours
  if (static_cast<uint64_t>(w.data_size) / sizeof(float) / static_cast<uint64_t>(K) < static_cast<uint64_t>(N))
    return Status::error("XNNFullyConnected: the filter holds " + std::to_string(w.data_size) + " bytes, fewer than its shape");
  *candidate = true;
  path->where = "node";  // completed by the caller
  path->op = "XNNFullyConnected";
  path->n = N, path->k = K;
  const float* bias = nullptr;
  if (n.in[2] >= 0) {
    const Value& b = g.values[static_cast<size_t>(n.in[2])];
    if (!b.is_constant() || b.dtype != DT::F32 || b.dims.numel() != N || static_cast<uint64_t>(b.data_size) / sizeof(float) < static_cast<uint64_t>(N)) {
      path->why = "ours: the bias is not a constant fp32 vector of N values";
      return Status::ok();
    }
    bias = reinterpret_cast<const float*>(b.data);
  }
  std::string why;
  if (!linalg::xnnlib::choose(policy, N, K, &why)) {
    path->why = "ours: " + why;
    return Status::ok();
  }
  // W(n, k): [N, K] rows, or [K, N] rows with the transpose flag
  PTE_TRY(linalg::xnnlib::FullyConnectedF32::create(N, K, reinterpret_cast<const float*>(w.data), tw ? 1 : K, tw ? N : 1,
                                                    bias, n.out_min, n.out_max, &p->lib));
  path->library = true;
  path->why = "XNNPACK library: " + why;
  return Status::ok();
}

namespace {

// x fp32 against a constant fp16 [N, K] filter (prepare_fully_connected checked it).
bool run_fully_connected_f16w(State& s, const Node& n) {
  const Shape xs = s.v(n.in[0]).shape, ws = s.v(n.in[1]).shape;
  if (xs.n < 1 || ws.n != 2) return s.ctx->fail("XNNFullyConnected: input rank %d, filter rank %d", xs.n, ws.n);
  const int64_t N = ws.d[0], K = ws.d[1];
  if (xs.d[xs.n - 1] != K)
    return s.ctx->fail("XNNFullyConnected: input has %lld features, the filter %lld", (long long)xs.d[xs.n - 1], (long long)K);
  Shape ys = xs;
  ys.d[ys.n - 1] = N;
  if (!s.set_shape(n.out, ys)) return false;
  const float* bias = n.in[2] >= 0 ? s.ptr<float>(n.in[2]) : nullptr;
  if (bias && s.v(n.in[2]).shape.numel() != N)
    return s.ctx->fail("XNNFullyConnected: bias has %lld elements, expected %lld", (long long)s.v(n.in[2]).shape.numel(), (long long)N);
  const int64_t M = K ? xs.numel() / K : 0;
  if (M == 0 || N == 0) return true;
  const int64_t r0 = s.p().last_row_only ? M - 1 : 0;  // MethodOptions::last_row_of_output_only
  linalg::FcF16w f;
  f.M = M - r0, f.N = N, f.K = K;
  f.x = s.ptr<float>(n.in[0]) + r0 * K, f.x_rs = K;
  f.w = reinterpret_cast<const uint16_t*>(s.v(n.in[1]).data);
  f.bias = bias;
  f.y = s.ptr<float>(n.out) + r0 * N, f.y_rs = N;
  linalg::fc_f16w(s.ctx->claim_threads, f);
  clamp_output(n, f.y, f.M * N);
  return true;
}

}  // namespace

bool run_fully_connected(State& s, const Node& n) {
  if (s.meta(n.in[0]).dtype == DT::F32 && s.meta(n.in[1]).dtype == DT::F16) return run_fully_connected_f16w(s, n);
  if (s.meta(n.in[0]).dtype != DT::F32 || s.meta(n.in[1]).dtype != DT::F32) return run_fully_connected_quantized(s, n);
  const Shape xs = s.v(n.in[0]).shape, ws = s.v(n.in[1]).shape;
  if (xs.n < 1 || ws.n != 2) return s.ctx->fail("XNNFullyConnected: input rank %d, filter rank %d", xs.n, ws.n);
  const bool tw = (n.flags & kFlagTransposeWeights) != 0;
  const int64_t K = tw ? ws.d[0] : ws.d[1], N = tw ? ws.d[1] : ws.d[0];
  if (xs.d[xs.n - 1] != K)
    return s.ctx->fail("XNNFullyConnected: input has %lld features, the filter %lld", (long long)xs.d[xs.n - 1], (long long)K);
  Shape ys = xs;
  ys.d[ys.n - 1] = N;
  if (!s.set_shape(n.out, ys)) return false;
  const int64_t M = K ? xs.numel() / K : 0;
  float* y = s.ptr<float>(n.out);
  const float* bias = n.in[2] >= 0 ? s.ptr<float>(n.in[2]) : nullptr;
  if (bias && s.v(n.in[2]).shape.numel() != N)
    return s.ctx->fail("XNNFullyConnected: bias has %lld elements, expected %lld", (long long)s.v(n.in[2]).shape.numel(), (long long)N);
  if (M == 0 || N == 0) return true;
  // MethodOptions::last_row_of_output_only (BackendInit): only the last row is read
  const int64_t r0 = s.p().last_row_only ? M - 1 : 0, rows = M - r0;
  y += r0 * N;
  if (s.p().lib) return s.p().lib->run(*s.ctx, rows, s.ptr<float>(n.in[0]) + r0 * K, y);  // bias and clamp included
  if (bias)
    for (int64_t m = 0; m < rows; ++m) std::copy(bias, bias + N, y + m * N);
  linalg::GemmF32 g;
  g.M = rows, g.N = N, g.K = K;
  g.a = s.ptr<float>(n.in[0]) + r0 * K, g.a_rs = K, g.a_cs = 1, g.a_bs = rows * K;
  g.b = s.ptr<float>(n.in[1]);
  if (tw)
    g.b_rs = N, g.b_cs = 1;
  else
    g.b_rs = 1, g.b_cs = K;
  g.b_bs = K * N;
  g.c = y, g.c_rs = N, g.c_cs = 1, g.c_bs = rows * N;
  g.accumulate = bias != nullptr;
  if (K == 0) {
    if (!bias) std::fill(y, y + rows * N, 0.0f);
  } else {
    linalg::gemm_f32(s.ctx->claim_threads, g);
  }
  clamp_output(n, y, rows * N);
  return true;
}

bool run_batch_matmul(State& s, const Node& n) {
  for (int i = 0; i < 2; ++i)
    if (s.meta(n.in[i]).dtype != DT::F32) return s.ctx->fail("XNNBatchMatrixMultiply: input %d is %s, only fp32 is supported", i, dt_name(s.meta(n.in[i]).dtype));
  const Shape as = s.v(n.in[0]).shape, bs = s.v(n.in[1]).shape;
  if (as.n < 2 || bs.n < 2) return s.ctx->fail("XNNBatchMatrixMultiply: inputs of rank %d and %d", as.n, bs.n);
  const bool tb = (n.flags & kFlagTransposeWeights) != 0;
  const int64_t M = as.d[as.n - 2], K = as.d[as.n - 1];
  const int64_t bK = tb ? bs.d[bs.n - 1] : bs.d[bs.n - 2], N = tb ? bs.d[bs.n - 2] : bs.d[bs.n - 1];
  if (K != bK) return s.ctx->fail("XNNBatchMatrixMultiply: inner dims %lld and %lld differ", (long long)K, (long long)bK);
  // batch dims, broadcast (aligned right)
  Shape ys;
  const int na = as.n - 2, nb = bs.n - 2, nbatch = std::max(na, nb);
  ys.n = nbatch + 2;
  for (int i = 0; i < nbatch; ++i) {
    int ia = i - (nbatch - na), ib = i - (nbatch - nb);
    int64_t da = ia >= 0 ? as.d[ia] : 1, db = ib >= 0 ? bs.d[ib] : 1;
    if (da != db && da != 1 && db != 1) return s.ctx->fail("XNNBatchMatrixMultiply: batch dims do not broadcast");
    ys.d[i] = da == 1 ? db : da;
  }
  ys.d[nbatch] = M, ys.d[nbatch + 1] = N;
  if (!s.set_shape(n.out, ys)) return false;
  int64_t B = 1, Ba = 1, Bb = 1;
  for (int i = 0; i < nbatch; ++i) B *= ys.d[i];
  for (int i = 0; i < na; ++i) Ba *= as.d[i];
  for (int i = 0; i < nb; ++i) Bb *= bs.d[i];
  float* y = s.ptr<float>(n.out);
  if (B * M * N == 0) return true;
  if (K == 0) {
    std::fill(y, y + B * M * N, 0.0f);
    return true;
  }
  linalg::GemmF32 g;
  g.M = M, g.N = N, g.K = K;
  g.a_rs = K, g.a_cs = 1;
  if (tb)
    g.b_rs = 1, g.b_cs = K;
  else
    g.b_rs = N, g.b_cs = 1;
  g.c_rs = N, g.c_cs = 1, g.c_bs = M * N;
  const float* a = s.ptr<float>(n.in[0]);
  const float* b = s.ptr<float>(n.in[1]);
  if ((Ba == B || Ba == 1) && (Bb == B || Bb == 1)) {
    g.batch = B;
    g.a = a, g.a_bs = Ba == 1 ? 0 : M * K;
    g.b = b, g.b_bs = Bb == 1 ? 0 : K * N;
    g.c = y;
    linalg::gemm_f32(s.ctx->claim_threads, g);
  } else {
    // general broadcast: one product per output batch
    int64_t sa[kMaxDims] = {}, sb[kMaxDims] = {};
    int64_t ea = M * K, eb = K * N;
    for (int i = nbatch - 1; i >= 0; --i) {
      int ia = i - (nbatch - na), ib = i - (nbatch - nb);
      int64_t da = ia >= 0 ? as.d[ia] : 1, db = ib >= 0 ? bs.d[ib] : 1;
      sa[i] = da == 1 ? 0 : ea;
      sb[i] = db == 1 ? 0 : eb;
      ea *= da, eb *= db;
    }
    g.batch = 1;
    int64_t idx[kMaxDims] = {};
    for (int64_t t = 0; t < B; ++t) {
      int64_t oa = 0, ob = 0;
      for (int i = 0; i < nbatch; ++i) oa += idx[i] * sa[i], ob += idx[i] * sb[i];
      g.a = a + oa, g.b = b + ob, g.c = y + t * M * N;
      linalg::gemm_f32(s.ctx->claim_threads, g);
      for (int i = nbatch - 1; i >= 0; --i) {
        if (++idx[i] < ys.d[i]) break;
        idx[i] = 0;
      }
    }
  }
  clamp_output(n, y, B * M * N);
  return true;
}

}  // namespace pte::xnn
