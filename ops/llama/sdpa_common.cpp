// GCC 12 flags the _mm256_undefined_pd() inside _mm512_reduce_add_ps (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "ops/llama/sdpa_common.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/linalg/claim_pool.h"
#include "ops/linalg/gemm.h"  // cpu_has_avx512f

namespace pte {

namespace {

constexpr int kMaxHeadDim = 1024;

template <class T>
struct SdpaJob {
  const SdpaArgs* a;
  int64_t S, Hq, D, reps;
};

template <class T>
void sdpa_row(void* p, size_t row) {
  const auto& job = *static_cast<const SdpaJob<T>*>(p);
  const SdpaArgs& a = *job.a;
  const int64_t S = job.S, Hq = job.Hq, D = job.D;
  const int64_t s = static_cast<int64_t>(row) % S;
  const int64_t h = static_cast<int64_t>(row) / S % Hq;
  const int64_t b = static_cast<int64_t>(row) / S / Hq;
  const int64_t hk = h / job.reps;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  const T* qp = q.ptr<T>() + b * q.strides[0] + s * q.strides[1] + h * q.strides[2];
  const T* kb = k.ptr<T>() + b * k.strides[0] + hk * k.strides[2];
  const T* vb = v.ptr<T>() + b * v.strides[0] + hk * v.strides[2];
  int64_t nkeys = a.causal ? std::min(a.start_pos + s + 1, a.kv_len) : a.kv_len;

  float qv[kMaxHeadDim], acc[kMaxHeadDim];
  for (int64_t d = 0; d < D; ++d) {
    qv[d] = static_cast<float>(qp[d * q.strides[3]]) * a.scale;
    acc[d] = 0.f;
  }
  float m = -std::numeric_limits<float>::infinity(), l = 0.f;
  const float* mrow = a.mask ? a.mask->ptr<float>() + s * a.mask->strides[0] : nullptr;
  for (int64_t j = 0; j < nkeys; ++j) {
    const T* kp = kb + j * k.strides[1];
    float sc = 0.f;
    if (k.strides[3] == 1) {
      for (int64_t d = 0; d < D; ++d) sc += qv[d] * static_cast<float>(kp[d]);
    } else {
      for (int64_t d = 0; d < D; ++d) sc += qv[d] * static_cast<float>(kp[d * k.strides[3]]);
    }
    if (mrow) sc += mrow[j * a.mask->strides[1]];
    if (sc == -std::numeric_limits<float>::infinity()) continue;
    const T* vp = vb + j * v.strides[1];
    if (sc > m) {
      float c = std::exp(m - sc);  // rescale what was accumulated under the old max
      l *= c;
      for (int64_t d = 0; d < D; ++d) acc[d] *= c;
      m = sc;
    }
    float w = std::exp(sc - m);
    l += w;
    for (int64_t d = 0; d < D; ++d) acc[d] += w * static_cast<float>(vp[d * v.strides[3]]);
  }
  T* op = o.ptr<T>() + b * o.strides[0] + s * o.strides[1] + h * o.strides[2];
  float inv = l > 0.f ? 1.f / l : 0.f;
  for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = static_cast<T>(acc[d] * inv);
}

// f32 with contiguous head vectors, AVX-512F: the same online softmax, but over blocks
// of kBlock keys: the block's scores (vector dot products), one rescale per block to
// the block's max, then the weighted sum of the value rows (vector FMAs). Equal to the
// per-key form up to float rounding.
constexpr int64_t kBlock = 64;

__attribute__((target("avx512f"))) void sdpa_row_f32_avx512f(void* p, size_t row) {
  const auto& job = *static_cast<const SdpaJob<float>*>(p);
  const SdpaArgs& a = *job.a;
  const int64_t S = job.S, Hq = job.Hq, D = job.D;
  const int64_t s = static_cast<int64_t>(row) % S;
  const int64_t h = static_cast<int64_t>(row) / S % Hq;
  const int64_t b = static_cast<int64_t>(row) / S / Hq;
  const int64_t hk = h / job.reps;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  const float* qp = q.ptr<float>() + b * q.strides[0] + s * q.strides[1] + h * q.strides[2];
  const float* kb = k.ptr<float>() + b * k.strides[0] + hk * k.strides[2];
  const float* vb = v.ptr<float>() + b * v.strides[0] + hk * v.strides[2];
  const int64_t nkeys = a.causal ? std::min(a.start_pos + s + 1, a.kv_len) : a.kv_len;
  const int64_t nv = (D + 15) / 16;  // vectors per head row; the last one masked
  const __mmask16 tail = (D % 16) ? __mmask16((1u << (D % 16)) - 1u) : __mmask16(0xffff);
  alignas(64) float qv[kMaxHeadDim], acc[kMaxHeadDim], sc[kBlock];
  for (int64_t d = 0; d < D; ++d) {
    qv[d] = qp[d * q.strides[3]] * a.scale;
    acc[d] = 0.f;
  }
  for (int64_t d = D; d < nv * 16; ++d) qv[d] = acc[d] = 0.f;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  float m = kNegInf, l = 0.f;
  const float* mrow = a.mask ? a.mask->ptr<float>() + s * a.mask->strides[0] : nullptr;
  for (int64_t j0 = 0; j0 < nkeys; j0 += kBlock) {
    const int64_t nb = std::min(kBlock, nkeys - j0);
    float bm = kNegInf;
    for (int64_t jj = 0; jj < nb; ++jj) {
      const float* kp = kb + (j0 + jj) * k.strides[1];
      __m512 x = _mm512_setzero_ps();
      for (int64_t e = 0; e < nv; ++e) {
        const __mmask16 mk = e + 1 < nv ? __mmask16(0xffff) : tail;
        x = _mm512_fmadd_ps(_mm512_load_ps(qv + 16 * e), _mm512_maskz_loadu_ps(mk, kp + 16 * e), x);
      }
      float t = _mm512_reduce_add_ps(x);
      if (mrow) t += mrow[(j0 + jj) * a.mask->strides[1]];
      sc[jj] = t;
      bm = std::max(bm, t);
    }
    if (bm == kNegInf) continue;  // every key of the block masked out
    if (bm > m) {
      const float c = std::exp(m - bm);  // rescale what was accumulated under the old max
      l *= c;
      const __m512 vc = _mm512_set1_ps(c);
      for (int64_t e = 0; e < nv; ++e) _mm512_store_ps(acc + 16 * e, _mm512_mul_ps(_mm512_load_ps(acc + 16 * e), vc));
      m = bm;
    }
    for (int64_t jj = 0; jj < nb; ++jj) {
      if (sc[jj] == kNegInf) continue;
      const float w = std::exp(sc[jj] - m);
      l += w;
      const __m512 vw = _mm512_set1_ps(w);
      const float* vp = vb + (j0 + jj) * v.strides[1];
      for (int64_t e = 0; e < nv; ++e) {
        const __mmask16 mk = e + 1 < nv ? __mmask16(0xffff) : tail;
        _mm512_store_ps(acc + 16 * e, _mm512_fmadd_ps(vw, _mm512_maskz_loadu_ps(mk, vp + 16 * e), _mm512_load_ps(acc + 16 * e)));
      }
    }
  }
  float* op = o.ptr<float>() + b * o.strides[0] + s * o.strides[1] + h * o.strides[2];
  const float inv = l > 0.f ? 1.f / l : 0.f;
  for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = acc[d] * inv;
}

template <class T>
void sdpa_typed(KernelContext& ctx, const SdpaArgs& a) {
  SdpaJob<T> job{&a, a.q->sizes[1], a.q->sizes[2], a.q->sizes[3], a.q->sizes[2] / a.k->sizes[2]};
  void (*row_fn)(void*, size_t) = sdpa_row<T>;
  if constexpr (std::is_same_v<T, float>)
    if (a.k->strides[3] == 1 && a.v->strides[3] == 1 && linalg::cpu_has_avx512f()) row_fn = sdpa_row_f32_avx512f;
  size_t rows = static_cast<size_t>(a.q->sizes[0] * job.Hq * job.S);
  // One decode step (a few heads x the filled positions) is too little work to wake
  // the workers for; prefill chunks are split over rows.
  const int64_t keys = a.causal ? std::min(a.start_pos + job.S, a.kv_len) : a.kv_len;
  const double work = static_cast<double>(rows) * static_cast<double>(keys) * static_cast<double>(job.D);
  const int threads = work >= double(1 << 20) ? ctx.claim_threads : 1;
  if (threads <= 1) {
    for (size_t r = 0; r < rows; ++r) row_fn(&job, r);
    return;
  }
  // Tiles claimed by the caller and the awake helpers (ops/linalg/claim_pool.h); tile t
  // takes rows t, t + T, ... so causal rows (more keys further down) spread evenly.
  struct Tiles {
    void (*row_fn)(void*, size_t);
    void* job;
    size_t rows, ntiles;
  } tiles{row_fn, &job, rows, std::min<size_t>(rows, static_cast<size_t>(8 * threads))};
  linalg::claim_parallel_for(
      threads - 1, static_cast<int64_t>(tiles.ntiles),
      [](void* p, int64_t t) {
        const Tiles& tl = *static_cast<const Tiles*>(p);
        for (size_t r = static_cast<size_t>(t); r < tl.rows; r += tl.ntiles) tl.row_fn(tl.job, r);
      },
      &tiles);
}

}  // namespace

bool sdpa_prepare(KernelContext& ctx, SdpaArgs& a, bool has_scale, double scale) {
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v;
  if (q.dim != 4 || k.dim != 4 || v.dim != 4)
    return ctx.fail("query, key and value must be 4-D [B, S, H, D] (got %d-D, %d-D, %d-D)", q.dim, k.dim, v.dim);
  if (q.dtype != k.dtype || q.dtype != v.dtype || q.dtype != a.out->dtype)
    return ctx.fail("query, key, value and out must share a dtype (%s, %s, %s, %s)", dtype_name(q.dtype),
                    dtype_name(k.dtype), dtype_name(v.dtype), dtype_name(a.out->dtype));
  if (q.dtype != DType::Float && q.dtype != DType::Half && q.dtype != DType::BFloat16)
    return ctx.fail("unsupported dtype %s (float32, float16, bfloat16)", dtype_name(q.dtype));
  if (k.sizes[0] != q.sizes[0] || v.sizes[0] != q.sizes[0] || k.sizes[3] != q.sizes[3] || v.sizes[3] != q.sizes[3] ||
      v.sizes[1] != k.sizes[1] || v.sizes[2] != k.sizes[2])
    return ctx.fail("query/key/value shapes disagree");
  if (k.sizes[2] == 0 || q.sizes[2] % k.sizes[2] != 0)
    return ctx.fail("query heads (%lld) must be a multiple of key/value heads (%lld)", (long long)q.sizes[2], (long long)k.sizes[2]);
  if (q.sizes[3] > kMaxHeadDim) return ctx.fail("head dim %lld exceeds %d", (long long)q.sizes[3], kMaxHeadDim);
  if (a.start_pos < 0) return ctx.fail("start_pos %lld is negative", (long long)a.start_pos);
  const int64_t S = q.sizes[1], cache = k.sizes[1];
  if (a.mask) {
    if (a.causal) return ctx.fail("attn_mask and is_causal cannot both be set");
    if (a.mask->dtype != DType::Float || a.mask->dim != 2)
      return ctx.fail("attn_mask must be a 2-D float32 tensor (got %s %d-D)", dtype_name(a.mask->dtype), a.mask->dim);
    if (a.mask->sizes[0] != S || a.mask->sizes[1] > cache)
      return ctx.fail("attn_mask shape [%lld, %lld] does not fit [S=%lld, <= %lld]", (long long)a.mask->sizes[0],
                      (long long)a.mask->sizes[1], (long long)S, (long long)cache);
    a.kv_len = a.mask->sizes[1];
  } else {
    if (a.start_pos + S > cache)
      return ctx.fail("start_pos %lld + seq_len %lld exceeds the cache length %lld", (long long)a.start_pos, (long long)S,
                      (long long)cache);
    a.kv_len = a.start_pos + S;
  }
  a.scale = has_scale ? static_cast<float>(scale) : 1.0f / std::sqrt(static_cast<float>(q.sizes[3]));
  return resize_output(ctx, *a.out, q.sizes, 4);
}

bool sdpa_run(KernelContext& ctx, const SdpaArgs& a) {
  switch (a.q->dtype) {
    case DType::Float: sdpa_typed<float>(ctx, a); return true;
    case DType::Half: sdpa_typed<Half>(ctx, a); return true;
    case DType::BFloat16: sdpa_typed<BFloat16>(ctx, a); return true;
    default: return ctx.fail("unsupported dtype %s", dtype_name(a.q->dtype));
  }
}

bool cache_write(KernelContext& ctx, const Tensor& value, Tensor& cache, int64_t start_pos) {
  if (value.dim != 4 || cache.dim != 4) return ctx.fail("value and cache must be 4-D [B, S, H, D]");
  if (value.dtype != cache.dtype) return ctx.fail("value (%s) and cache (%s) dtypes differ", dtype_name(value.dtype), dtype_name(cache.dtype));
  if (value.sizes[0] != cache.sizes[0] || value.sizes[2] != cache.sizes[2] || value.sizes[3] != cache.sizes[3])
    return ctx.fail("value [%lld,%lld,%lld,%lld] does not match cache [%lld,%lld,%lld,%lld] in dims 0, 2, 3",
                    (long long)value.sizes[0], (long long)value.sizes[1], (long long)value.sizes[2], (long long)value.sizes[3],
                    (long long)cache.sizes[0], (long long)cache.sizes[1], (long long)cache.sizes[2], (long long)cache.sizes[3]);
  const int64_t S = value.sizes[1];
  if (start_pos < 0 || start_pos + S > cache.sizes[1])
    return ctx.fail("cache update at position %lld of %lld tokens exceeds the cache length %lld", (long long)start_pos,
                    (long long)S, (long long)cache.sizes[1]);
  if (!cache.contiguous_order()) return ctx.fail("cache must be contiguous");
  const size_t es = dtype_size(value.dtype);
  const int64_t row = value.sizes[2] * value.sizes[3];  // elements of one [H, D] slice
  const auto* src = static_cast<const uint8_t*>(value.data);
  auto* dst = static_cast<uint8_t*>(cache.data);
  for (int64_t b = 0; b < value.sizes[0]; ++b) {
    uint8_t* d = dst + (b * cache.strides[0] + start_pos * cache.strides[1]) * es;
    if (value.contiguous_order()) {
      std::memcpy(d, src + b * value.strides[0] * es, static_cast<size_t>(S * row) * es);
      continue;
    }
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < value.sizes[2]; ++h)
        for (int64_t e = 0; e < value.sizes[3]; ++e)
          std::memcpy(d + ((s * value.sizes[2] + h) * value.sizes[3] + e) * es,
                      src + (b * value.strides[0] + s * value.strides[1] + h * value.strides[2] + e * value.strides[3]) * es, es);
  }
  return true;
}

}  // namespace pte
