#include "ops/linalg/matmul.h"

#include <pthreadpool.h>

#include <algorithm>

#include "ops/linalg/gemm.h"
#include "ops/linalg/linalg_util.h"
#include "ops/util.h"

namespace pte::linalg {

namespace {

constexpr double kMinParallelWork = 65536.0;

// C = beta * bias (prefill before an accumulating f32 GEMM).
void prefill_bias_f32(const MatmulDesc& d, float* c, int64_t c_bs, int64_t c_rs, int64_t c_cs, const float* bias) {
  const float beta = static_cast<float>(d.beta);
  for (int64_t n = 0; n < d.batch; ++n)
    for (int64_t i = 0; i < d.M; ++i)
      for (int64_t j = 0; j < d.N; ++j)
        c[n * c_bs + i * c_rs + j * c_cs] = beta * bias[n * d.bias_bs + i * d.bias_rs + j * d.bias_cs];
}

void matmul_f32(KernelContext& ctx, const MatmulDesc& d) {
  GemmF32 g;
  g.batch = d.batch, g.M = d.M, g.N = d.N, g.K = d.K;
  g.a = static_cast<const float*>(d.a), g.a_bs = d.a_bs, g.a_rs = d.a_rs, g.a_cs = d.a_cs;
  g.b = static_cast<const float*>(d.b), g.b_bs = d.b_bs, g.b_rs = d.b_rs, g.b_cs = d.b_cs;
  g.c = static_cast<float*>(d.c), g.c_bs = d.c_bs, g.c_rs = d.c_rs, g.c_cs = d.c_cs;
  g.alpha = static_cast<float>(d.alpha);
  if (d.bias && d.beta != 0.0) {
    prefill_bias_f32(d, g.c, d.c_bs, d.c_rs, d.c_cs, static_cast<const float*>(d.bias));
    g.accumulate = true;
  }
  gemm_f32(ctx.claim_threads, g);
}

// Row-accumulating loop for every other dtype: each C(i, j) is summed over k in
// order in the accumulator type A (the same sums as gemm_ref), rounded once.
template <class T, class A>
void matmul_rows(KernelContext& ctx, const MatmulDesc& d) {
  const T* a = static_cast<const T*>(d.a);
  const T* b = static_cast<const T*>(d.b);
  const T* bias = static_cast<const T*>(d.bias);
  T* c = static_cast<T*>(d.c);
  const A alpha = static_cast<A>(d.alpha), beta = static_cast<A>(d.beta);
  const bool use_bias = bias && d.beta != 0.0;
  auto row = [&](size_t bi, size_t i) {
    constexpr int64_t kChunk = 256;
    A acc[kChunk];
    for (int64_t j0 = 0; j0 < d.N; j0 += kChunk) {
      const int64_t nj = std::min(kChunk, d.N - j0);
      for (int64_t j = 0; j < nj; ++j) acc[j] = A(0);
      for (int64_t k = 0; k < d.K; ++k) {
        const A av = convert<A>(a[bi * d.a_bs + i * d.a_rs + k * d.a_cs]);
        const T* br = b + bi * d.b_bs + k * d.b_rs + j0 * d.b_cs;
        if (d.b_cs == 1) {
          for (int64_t j = 0; j < nj; ++j) acc[j] += av * convert<A>(br[j]);
        } else {
          for (int64_t j = 0; j < nj; ++j) acc[j] += av * convert<A>(br[j * d.b_cs]);
        }
      }
      for (int64_t j = 0; j < nj; ++j) {
        A r = alpha * acc[j];
        if (use_bias) r += beta * convert<A>(bias[bi * d.bias_bs + i * d.bias_rs + (j0 + j) * d.bias_cs]);
        c[bi * d.c_bs + i * d.c_rs + (j0 + j) * d.c_cs] = convert<T>(r);
      }
    }
  };
  double work = static_cast<double>(d.batch) * d.M * d.N * d.K;
  pthreadpool* pool = work >= kMinParallelWork ? ctx.threadpool : nullptr;
  pthreadpool_parallelize_2d(pool, row, static_cast<size_t>(d.batch), static_cast<size_t>(d.M), 0);
}

// f16/bf16: convert A, B (and bias) to contiguous f32 scratch, run the f32 path,
// round the result once. False when the scratch arena is too small.
template <class T>
bool matmul_16bit_via_f32(KernelContext& ctx, const MatmulDesc& d) {
  const int64_t na = d.batch * d.M * d.K, nb = d.batch * d.K * d.N, nc = d.batch * d.M * d.N;
  float* a32 = static_cast<float*>(ctx.scratch(static_cast<size_t>(na) * 4));
  float* b32 = a32 ? static_cast<float*>(ctx.scratch(static_cast<size_t>(nb) * 4)) : nullptr;
  float* c32 = b32 ? static_cast<float*>(ctx.scratch(static_cast<size_t>(nc) * 4)) : nullptr;
  if (!c32) return false;
  const T* a = static_cast<const T*>(d.a);
  const T* b = static_cast<const T*>(d.b);
  for (int64_t n = 0; n < d.batch; ++n) {
    for (int64_t i = 0; i < d.M; ++i)
      for (int64_t k = 0; k < d.K; ++k) a32[(n * d.M + i) * d.K + k] = static_cast<float>(a[n * d.a_bs + i * d.a_rs + k * d.a_cs]);
    for (int64_t k = 0; k < d.K; ++k)
      for (int64_t j = 0; j < d.N; ++j) b32[(n * d.K + k) * d.N + j] = static_cast<float>(b[n * d.b_bs + k * d.b_rs + j * d.b_cs]);
  }
  GemmF32 g;
  g.batch = d.batch, g.M = d.M, g.N = d.N, g.K = d.K;
  g.a = a32, g.a_bs = d.M * d.K, g.a_rs = d.K, g.a_cs = 1;
  g.b = b32, g.b_bs = d.K * d.N, g.b_rs = d.N, g.b_cs = 1;
  g.c = c32, g.c_bs = d.M * d.N, g.c_rs = d.N, g.c_cs = 1;
  g.alpha = static_cast<float>(d.alpha);
  if (d.bias && d.beta != 0.0) {
    const T* bias = static_cast<const T*>(d.bias);
    const float beta = static_cast<float>(d.beta);
    for (int64_t n = 0; n < d.batch; ++n)
      for (int64_t i = 0; i < d.M; ++i)
        for (int64_t j = 0; j < d.N; ++j)
          c32[(n * d.M + i) * d.N + j] = beta * static_cast<float>(bias[n * d.bias_bs + i * d.bias_rs + j * d.bias_cs]);
    g.accumulate = true;
  }
  gemm_f32(ctx.claim_threads, g);
  T* c = static_cast<T*>(d.c);
  for (int64_t n = 0; n < d.batch; ++n)
    for (int64_t i = 0; i < d.M; ++i)
      for (int64_t j = 0; j < d.N; ++j) c[n * d.c_bs + i * d.c_rs + j * d.c_cs] = T(c32[(n * d.M + i) * d.N + j]);
  return true;
}

}  // namespace

bool run_matmul(KernelContext& ctx, DType dt, const MatmulDesc& d, const char* op) {
  if (d.batch == 0 || d.M == 0 || d.N == 0) return true;
  switch (dt) {
    case DType::Float:
      matmul_f32(ctx, d);
      return true;
    case DType::Half:
      if (!matmul_16bit_via_f32<Half>(ctx, d)) matmul_rows<Half, float>(ctx, d);
      return true;
    case DType::BFloat16:
      if (!matmul_16bit_via_f32<BFloat16>(ctx, d)) matmul_rows<BFloat16, float>(ctx, d);
      return true;
    case DType::Double:
      matmul_rows<double, double>(ctx, d);
      return true;
    case DType::Int64:
      matmul_rows<int64_t, int64_t>(ctx, d);
      return true;
    case DType::Int32:
      matmul_rows<int32_t, int64_t>(ctx, d);
      return true;
    case DType::Int16:
      matmul_rows<int16_t, int64_t>(ctx, d);
      return true;
    case DType::Int8:
      matmul_rows<int8_t, int64_t>(ctx, d);
      return true;
    case DType::UInt8:
      matmul_rows<uint8_t, int64_t>(ctx, d);
      return true;
    default:
      return ctx.fail("%s: unsupported dtype %s", op, dtype_name(dt));
  }
}

bool bias_strides(const Tensor& bias, int32_t out_rank, int64_t batch, int64_t M, int64_t N, int64_t* bs, int64_t* rs,
                  int64_t* cs) {
  if (bias.dim > out_rank) return false;
  const int64_t target[3] = {N, M, batch};  // from the innermost dim outwards
  int64_t* stride_out[3] = {cs, rs, bs};
  for (int q = 0; q < 3; ++q) {
    *stride_out[q] = 0;
    int d = bias.dim - 1 - q;
    if (q >= out_rank || d < 0) continue;
    if (bias.sizes[d] == target[q])
      *stride_out[q] = target[q] == 1 ? 0 : bias.strides[d];
    else if (bias.sizes[d] != 1)
      return false;
  }
  return true;
}

}  // namespace pte::linalg
