#include "ops/llama/sdpa_common.h"

#include <immintrin.h>
#include <pthreadpool.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/linalg/claim_pool.h"

namespace pte {

namespace {

constexpr int kMaxHeadDim = 1024;

template <class T>
struct SdpaJob {
  const SdpaArgs* a;
  int64_t S, Hq, D, reps;
};

// Output row `row` (batch-major, then head, then query position s): its position s and
// the bases of its query row, its key/value head (grouped-query: head h reads key head
// h / reps) and its output row.
template <class T>
struct SdpaRow {
  int64_t s;
  const T *q, *k, *v;
  T* o;
};

template <class T>
inline SdpaRow<T> sdpa_row_at(const SdpaJob<T>& job, size_t row) {
  const SdpaArgs& a = *job.a;
  const int64_t s = static_cast<int64_t>(row) % job.S;
  const int64_t h = static_cast<int64_t>(row) / job.S % job.Hq;
  const int64_t b = static_cast<int64_t>(row) / job.S / job.Hq;
  const int64_t hk = h / job.reps;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  return {s, q.ptr<T>() + b * q.strides[0] + s * q.strides[1] + h * q.strides[2],
          k.ptr<T>() + b * k.strides[0] + hk * k.strides[2], v.ptr<T>() + b * v.strides[0] + hk * v.strides[2],
          o.ptr<T>() + b * o.strides[0] + s * o.strides[1] + h * o.strides[2]};
}

template <class T>
void sdpa_row(void* p, size_t row) {
  const auto& job = *static_cast<const SdpaJob<T>*>(p);
  const SdpaArgs& a = *job.a;
  const int64_t D = job.D;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  const auto [s, qp, kb, vb, op] = sdpa_row_at(job, row);
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
  float inv = l > 0.f ? 1.f / l : 0.f;
  for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = static_cast<T>(acc[d] * inv);
}

// float32: the official runtime's arithmetic, step by step (its flash-attention
// kernel with key blocks of 512, as llama::custom_sdpa runs it), so that programs
// that quantize the attention output (8da4w) give its bits:
//   score = dot(k_j, q) with four interleaved partial sums, then * scale (or
//   * scale + mask); per key block: block max, p = exp(score - max) summed in 16
//   lanes then the tail in order (the tail's exp and sum in double, rounded to float
//   once per step, as its scalar loop does), the running sum and output rescaled by
//   exp(old max - new max); output = sum_j v_j * p_j in key order; finally
//   * (1 / sum). Keys past a query's position (causal) score -inf.
constexpr int64_t kKeyBlock = 512;
std::atomic<bool> g_force_scalar{false};

// One key block's softmax step: scores sc[0, nb) (block max bmax) become weights
// exp(score - max) (16-lane sums, then the tail with the double exp added in double,
// rounded once per step, as the official scalar loop does); the running sum and (after
// the first block) the output so far are rescaled by exp(old max - new max).
inline void softmax_block(float* sc, int64_t nb, float bmax, bool rescale, float* dst, int64_t D, float* run_max,
                          float* run_sum) {
  const float m = *run_max > bmax ? *run_max : bmax;
  if (m == -std::numeric_limits<float>::infinity()) {
    for (int64_t j = 0; j < nb; ++j) sc[j] = 0.f;
    return;
  }
  float lanes[16] = {};
  const int64_t vec = nb / 16 * 16;
  for (int64_t j = 0; j < vec; ++j) {
    sc[j] = std::exp(sc[j] - m);
    lanes[j % 16] += sc[j];
  }
  float bsum = 0.f;
  for (int l = 0; l < 16; ++l) bsum += lanes[l];
  for (int64_t j = vec; j < nb; ++j) {
    const double e = std::exp(static_cast<double>(sc[j] - m));
    bsum = static_cast<float>(static_cast<double>(bsum) + e);
    sc[j] = static_cast<float>(e);
  }
  const float c = std::exp(*run_max - m);
  *run_sum = bsum + c * *run_sum;
  *run_max = m;
  if (rescale)
    for (int64_t d = 0; d < D; ++d) dst[d] = dst[d] * c;
}

// Its two matrix products run through the bundled BLAS sgemm, whose kernel keeps
// one accumulator per output and adds each product with a fused multiply-add in
// order of the inner index.
inline float dot_fma(const float* a, const float* b, int64_t n) {
  float acc = 0.f;
  for (int64_t i = 0; i < n; ++i) acc = std::fma(a[i], b[i], acc);
  return acc;
}

inline void sdpa_row_f32_body(const SdpaJob<float>& job, size_t row) {
  const SdpaArgs& a = *job.a;
  const int64_t D = job.D;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  const auto [s, qp, kb, vb, op] = sdpa_row_at(job, row);
  const int64_t pos = a.start_pos + s;
  const float ninf = -std::numeric_limits<float>::infinity();
  float qv[kMaxHeadDim], kv[kMaxHeadDim], dst[kMaxHeadDim], blk[kMaxHeadDim], sc[kKeyBlock];
  for (int64_t d = 0; d < D; ++d) qv[d] = qp[d * q.strides[3]], dst[d] = 0.f;
  const float* mrow = a.mask ? a.mask->ptr<float>() + s * a.mask->strides[0] : nullptr;
  float run_max = ninf, run_sum = 0.f;
  for (int64_t n = 0; n < a.kv_len; n += kKeyBlock) {
    const int64_t nb = std::min(kKeyBlock, a.kv_len - n);
    if (a.causal && n > pos) break;  // a block wholly in this query's future changes nothing
    float bmax = ninf;
    for (int64_t j = 0; j < nb; ++j) {
      const float* kp = kb + (n + j) * k.strides[1];
      float x;
      if (a.causal && n + j > pos) {
        x = ninf;
      } else {
        if (k.strides[3] == 1) {
          x = dot_fma(kp, qv, D);
        } else {
          for (int64_t d = 0; d < D; ++d) kv[d] = kp[d * k.strides[3]];
          x = dot_fma(kv, qv, D);
        }
      }
      x = x * a.scale;
      if (mrow) x = x + mrow[(n + j) * a.mask->strides[1]];
      sc[j] = x;
      bmax = std::max(bmax, x);
    }
    softmax_block(sc, nb, bmax, n > 0, dst, D, &run_max, &run_sum);
    for (int64_t d = 0; d < D; ++d) blk[d] = 0.f;
    for (int64_t j = 0; j < nb; ++j) {
      const float* vp = vb + (n + j) * v.strides[1];
      const float w = sc[j];
      for (int64_t d = 0; d < D; ++d) blk[d] = std::fma(vp[d * v.strides[3]], w, blk[d]);
    }
    for (int64_t d = 0; d < D; ++d) dst[d] = n == 0 ? blk[d] : dst[d] + blk[d];
  }
  const float inv = 1.f / run_sum;
  for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = dst[d] * inv;
}

// The same arithmetic with AVX-512F for the G query heads h0 .. h0+G-1 of one position
// s that read the same key/value head (grouped-query attention): scores of 16 keys at
// once (one lane per key, each lane its own in-order FMA chain over the head dim; the
// keys gathered once for all G heads), the value sums 16 head-dim lanes at once (each
// lane in key order; one value load for all G heads). Bit-equal to the body, row by row.
constexpr int kMaxGroup = 4;  // query heads per key gather

// GCC 12 flags the _mm512_undefined_ps() pass-through inside its AVX-512 intrinsics
// once inlined here (a false positive).
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// The largest lane (no NaN lanes here).
__attribute__((target("avx512f"))) inline float hmax512(__m512 v) {
  v = _mm512_max_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm512_max_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
  v = _mm512_max_ps(v, _mm512_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm512_max_ps(v, _mm512_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm512_cvtss_f32(v);
}

template <int G>
__attribute__((target("avx512f"))) void sdpa_heads_f32_avx512(const SdpaJob<float>& job, size_t row0) {
  const SdpaArgs& a = *job.a;
  const int64_t D = job.D, S = job.S;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  const int64_t ks = k.strides[1], kd = k.strides[3];
  if (v.strides[3] != 1 || ks * 16 > (int64_t(1) << 30) || kd * D > (int64_t(1) << 30)) {
    for (int g = 0; g < G; ++g) sdpa_row_f32_body(job, row0 + static_cast<size_t>(g * S));
    return;
  }
  // rows row0 + g*S: the same batch, position and key/value head, heads h0 + g
  const auto [s, qp0, kb, vb, op0] = sdpa_row_at(job, row0);
  const int64_t qh = q.strides[2], oh = o.strides[2];
  const int64_t pos = a.start_pos + s;
  const float ninf = -std::numeric_limits<float>::infinity();
  alignas(64) float qv[G][kMaxHeadDim], dst[G][kMaxHeadDim], sc[G][kKeyBlock];
  for (int g = 0; g < G; ++g)
    for (int64_t d = 0; d < D; ++d) qv[g][d] = qp0[g * qh + d * q.strides[3]], dst[g][d] = 0.f;
  const float* mrow = a.mask ? a.mask->ptr<float>() + s * a.mask->strides[0] : nullptr;
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i idx = _mm512_mullo_epi32(lane, _mm512_set1_epi32(static_cast<int32_t>(ks)));
  float run_max[G], run_sum[G];
  for (int g = 0; g < G; ++g) run_max[g] = ninf, run_sum[g] = 0.f;
  for (int64_t n = 0; n < a.kv_len; n += kKeyBlock) {
    const int64_t nb = std::min(kKeyBlock, a.kv_len - n);
    if (a.causal && n > pos) break;
    // keys this query may see in the block: [0, live)
    const int64_t live = a.causal ? std::min(nb, pos - n + 1) : nb;
    for (int64_t j0 = 0; j0 < live; j0 += 16) {
      const int64_t cnt = std::min<int64_t>(16, live - j0);
      const __mmask16 m = static_cast<__mmask16>((1u << cnt) - 1);
      const float* base = kb + (n + j0) * ks;
      __m512 acc[G];
      for (int g = 0; g < G; ++g) acc[g] = _mm512_setzero_ps();
      for (int64_t d = 0; d < D; ++d) {
        const __m512 kv = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, idx, base + d * kd, 4);
        for (int g = 0; g < G; ++g) acc[g] = _mm512_fmadd_ps(kv, _mm512_set1_ps(qv[g][d]), acc[g]);
      }
      for (int g = 0; g < G; ++g) _mm512_mask_storeu_ps(sc[g] + j0, m, acc[g]);
    }
    // scores * scale (+ mask), keys past `live` -inf, and the block max (16 lanes: max
    // is exact, and a NaN score is skipped as std::max(bmax, x) skips it)
    const float* mb = mrow ? mrow + n * a.mask->strides[1] : nullptr;
    const bool mask_rows = mb && a.mask->strides[1] == 1;
    const __m512 vscale = _mm512_set1_ps(a.scale), vninf = _mm512_set1_ps(ninf);
    for (int g = 0; g < G; ++g) {
      float bmax = ninf;
      if (!mb || mask_rows) {
        __m512 vmax = vninf;
        for (int64_t j = 0; j < nb; j += 16) {
          const __mmask16 in = nb - j >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (nb - j)) - 1);
          const int64_t lv = std::clamp<int64_t>(live - j, 0, 16);
          const __mmask16 seen = lv >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << lv) - 1);
          __m512 x = _mm512_mask_loadu_ps(vninf, seen, sc[g] + j);
          x = _mm512_mul_ps(x, vscale);
          if (mb) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(in, mb + j));
          _mm512_mask_storeu_ps(sc[g] + j, in, x);
          vmax = _mm512_mask_max_ps(vmax, in, x, vmax);
        }
        bmax = hmax512(vmax);
      } else {
        for (int64_t j = 0; j < nb; ++j) {
          float x = j < live ? sc[g][j] : ninf;
          x = x * a.scale;
          x = x + mb[j * a.mask->strides[1]];
          sc[g][j] = x;
          bmax = std::max(bmax, x);
        }
      }
      softmax_block(sc[g], nb, bmax, n > 0, dst[g], D, &run_max[g], &run_sum[g]);
    }
    // output += sum_j v_j * p_j: up to 64 head-dim lanes x G heads of independent chains
    for (int64_t d0 = 0; d0 < D; d0 += 64) {
      __mmask16 m[4];
      for (int c = 0; c < 4; ++c) {
        const int64_t r = std::clamp<int64_t>(D - d0 - 16 * c, 0, 16);
        m[c] = r >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << r) - 1);
      }
      __m512 blk[4][G];
      for (int c = 0; c < 4; ++c)
        for (int g = 0; g < G; ++g) blk[c][g] = _mm512_setzero_ps();
      // masked keys have weight 0: v * 0 adds +-0 and changes nothing (the cache is finite)
      for (int64_t j = 0; j < nb; ++j) {
        const float* vp = vb + (n + j) * v.strides[1] + d0;
        __m512 w[G];
        for (int g = 0; g < G; ++g) w[g] = _mm512_set1_ps(sc[g][j]);
        for (int c = 0; c < 4; ++c) {
          if (!m[c]) break;
          const __m512 vv = _mm512_maskz_loadu_ps(m[c], vp + 16 * c);
          for (int g = 0; g < G; ++g) blk[c][g] = _mm512_fmadd_ps(vv, w[g], blk[c][g]);
        }
      }
      for (int c = 0; c < 4 && m[c]; ++c)
        for (int g = 0; g < G; ++g) {
          float* dp = dst[g] + d0 + 16 * c;
          const __m512 prev = _mm512_maskz_loadu_ps(m[c], dp);
          _mm512_mask_storeu_ps(dp, m[c], n == 0 ? blk[c][g] : _mm512_add_ps(prev, blk[c][g]));
        }
    }
  }
  for (int g = 0; g < G; ++g) {
    float* op = op0 + g * oh;
    const float inv = 1.f / run_sum[g];
    for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = dst[g][d] * inv;
  }
}

#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// Work unit of the AVX-512 form: (batch, key/value head, position, group of up to
// kMaxGroup of the query heads that read it).
__attribute__((target("avx512f"))) void sdpa_unit_f32_avx512(void* p, size_t unit) {
  const auto& job = *static_cast<const SdpaJob<float>*>(p);
  const int64_t S = job.S, reps = job.reps, chunks = (reps + kMaxGroup - 1) / kMaxGroup;
  const int64_t u = static_cast<int64_t>(unit);
  const int64_t s = u % S, c = u / S % chunks, bhk = u / S / chunks;  // bhk = b * Hkv + hk
  const int64_t h0 = bhk * reps + c * kMaxGroup;                      // = b * Hq + head
  const size_t row0 = static_cast<size_t>(h0 * S + s);
  switch (std::min<int64_t>(kMaxGroup, reps - c * kMaxGroup)) {
    case 1: sdpa_heads_f32_avx512<1>(job, row0); break;
    case 2: sdpa_heads_f32_avx512<2>(job, row0); break;
    case 3: sdpa_heads_f32_avx512<3>(job, row0); break;
    default: sdpa_heads_f32_avx512<4>(job, row0); break;
  }
}

// std::fma is one instruction where the CPU has FMA, a (slow, same-valued) libm
// call otherwise.
__attribute__((target("fma"))) void sdpa_row_f32_fma(void* p, size_t row) {
  sdpa_row_f32_body(*static_cast<const SdpaJob<float>*>(p), row);
}
void sdpa_row_f32_plain(void* p, size_t row) { sdpa_row_f32_body(*static_cast<const SdpaJob<float>*>(p), row); }

template <class T>
void sdpa_typed(KernelContext& ctx, const SdpaArgs& a) {
  SdpaJob<T> job{&a, a.q->sizes[1], a.q->sizes[2], a.q->sizes[3], a.q->sizes[2] / a.k->sizes[2]};
  size_t rows = static_cast<size_t>(a.q->sizes[0] * job.Hq * job.S);
  // Split over the caller and the awake helpers (which spin between a decode step's
  // matrix products, so taking them costs ~1 us) from ~2^15 multiply-adds of scores
  // on: a decode step past ~60 positions (SmolLM2: 9 heads x 64 dims), prefill chunks.
  const int64_t keys = a.causal ? std::min(a.start_pos + job.S, a.kv_len) : a.kv_len;
  const double work = static_cast<double>(rows) * static_cast<double>(keys) * static_cast<double>(job.D);
  // fn(&job, unit) for unit < units: a row each, or (AVX-512) the query heads of a
  // key/value head at one position
  void (*fn)(void*, size_t) = sdpa_row<T>;
  size_t units = rows;
  if constexpr (std::is_same_v<T, float>) {
    fn = g_force_scalar.load(std::memory_order_relaxed) ? sdpa_row_f32_fma
         : __builtin_cpu_supports("avx512f") ? sdpa_unit_f32_avx512
         : __builtin_cpu_supports("fma")     ? sdpa_row_f32_fma
                                             : sdpa_row_f32_plain;
    if (fn == sdpa_unit_f32_avx512)
      units = static_cast<size_t>(a.q->sizes[0] * a.k->sizes[2] * job.S * ((job.reps + kMaxGroup - 1) / kMaxGroup));
  }
  const int threads = work >= double(1 << 15) && units > 1 ? ctx.claim_threads : 1;
  if (threads <= 1) {
    for (size_t r = 0; r < units; ++r) fn(&job, r);
    return;
  }
  // Tiles claimed by the caller and the awake helpers (ops/linalg/claim_pool.h); tile t
  // takes rows t, t + T, ... so causal rows (more keys further down) spread evenly.
  struct Tiles {
    void (*fn)(void*, size_t);
    void* job;
    size_t rows, ntiles;
  } tiles{fn, &job, units, std::min<size_t>(units, static_cast<size_t>(8 * threads))};
  linalg::claim_parallel_for(
      threads - 1, static_cast<int64_t>(tiles.ntiles),
      [](void* p, int64_t t) {
        const Tiles& tl = *static_cast<const Tiles*>(p);
        for (size_t r = static_cast<size_t>(t); r < tl.rows; r += tl.ntiles) tl.fn(tl.job, r);
      },
      &tiles);
}

}  // namespace

void sdpa_force_scalar(bool on) { g_force_scalar.store(on); }

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
