#include "ops/llama/sdpa_common.h"

#if defined(__x86_64__)
// GCC 12: false -Wmaybe-uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#endif
#include <pthreadpool.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/isa.h"
#include "ops/linalg/claim_pool.h"
#include "ops/llama/sdpa_blas_order.h"
#include "ops/prim/cast_cache_prefix.h"
#include "ops/transpose16_avx512.h"

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
std::atomic<bool> g_tiles{true};  // tests: false runs prefill row by row

// The end of a block's softmax step (both forms): the 16 lane sums in order, the tail's
// exps in double, the running sum and the output rescaled.
inline void softmax_block_end(const float* lanes, float* sc, int64_t vec, int64_t nb, float m, bool rescale, float* dst,
                              int64_t D, float* run_max, float* run_sum) {
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
  for (int64_t j = 0; j < vec; ++j) {  // masked keys (-inf): +0 without a call
    sc[j] = sc[j] == -std::numeric_limits<float>::infinity() ? 0.f : std::exp(sc[j] - m);
    lanes[j % 16] += sc[j];
  }
  softmax_block_end(lanes, sc, vec, nb, m, rescale, dst, D, run_max, run_sum);
}

// expf of 16 lanes, the very arithmetic of glibc's expf (its FMA variant, which std::exp
// runs on this ISA): x * N / ln2 = k + r in double (fused), 2^(k/N) from a 32-entry table
// (bits of 2^(i/32) - i << 47, plus k << 47), a cubic in r (fused steps), one rounding to
// float. Only for lanes |x| < 2^... below its special-case bound (top 12 bits < 0x42a,
// |x| < ~88): the caller checks. The table is built at first use and the whole form checked
// against std::exp on ~70k inputs (the test: millions); on any difference (another libm)
// it is not used.
struct VecExpf {
  alignas(64) uint64_t tab[32];
  bool ok = false;
};
#if defined(__x86_64__)
__attribute__((target("avx512f"))) inline __m256 expf8_avx512(__m256 xf, const uint64_t* tab) {
  const __m512d invln2n = _mm512_set1_pd(0x1.71547652b82fep+5), shift = _mm512_set1_pd(0x1.8p+52);
  const __m512d xd = _mm512_cvtps_pd(xf);
  const __m512d kds = _mm512_fmadd_pd(invln2n, xd, shift);
  const __m512i ki = _mm512_castpd_si512(kds);
  const __m512d kd = _mm512_sub_pd(kds, shift);
  const __m512d r = _mm512_fmsub_pd(invln2n, xd, kd);
  const __m512i idx = _mm512_and_si512(ki, _mm512_set1_epi64(31));
  const __m512i lo = _mm512_permutex2var_epi64(_mm512_load_si512(tab), idx, _mm512_load_si512(tab + 8));
  const __m512i hi = _mm512_permutex2var_epi64(_mm512_load_si512(tab + 16), idx, _mm512_load_si512(tab + 24));
  __m512i t = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(idx, _mm512_set1_epi64(16)), lo, hi);
  t = _mm512_add_epi64(t, _mm512_slli_epi64(ki, 47));
  const __m512d sc = _mm512_castsi512_pd(t);
  const __m512d z = _mm512_fmadd_pd(r, _mm512_set1_pd(0x1.c6af84b912394p-20), _mm512_set1_pd(0x1.ebfce50fac4f3p-13));
  const __m512d r2 = _mm512_mul_pd(r, r);
  __m512d y = _mm512_fmadd_pd(r, _mm512_set1_pd(0x1.62e42ff0c52d6p-6), _mm512_set1_pd(1.0));
  y = _mm512_fmadd_pd(z, r2, y);
  return _mm512_cvtpd_ps(_mm512_mul_pd(y, sc));
}
__attribute__((target("avx512f"))) inline __m512 expf16_avx512(__m512 x, const uint64_t* tab) {
  const __m256 lo = expf8_avx512(_mm512_castps512_ps256(x), tab);
  const __m256 hi = expf8_avx512(_mm256_castsi256_ps(_mm512_extracti64x4_epi64(_mm512_castps_si512(x), 1)), tab);
  return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1));
}
// lanes whose |x| is below expf's special-case bound
__attribute__((target("avx512f"))) inline __mmask16 expf_plain_lanes(__m512 x) {
  const __m512i top = _mm512_and_si512(_mm512_srli_epi32(_mm512_castps_si512(x), 20), _mm512_set1_epi32(0x7ff));
  return _mm512_cmplt_epi32_mask(top, _mm512_set1_epi32(0x42a));
}
__attribute__((target("avx512f"))) bool vec_expf_same16(const VecExpf& v, const float* in) {
  alignas(64) float out[16];
  const __m512 x = _mm512_loadu_ps(in);
  const __mmask16 plain = expf_plain_lanes(x);
  _mm512_store_ps(out, expf16_avx512(x, v.tab));
  for (int l = 0; l < 16; ++l) {
    if (!((plain >> l) & 1)) continue;
    const float e = std::exp(in[l]);
    if (std::memcmp(&e, &out[l], 4) != 0) return false;
  }
  return true;
}
// every stride-th float of [-104, 0] and of [0, 89] (lanes past the plain range skipped)
bool vec_expf_check(const VecExpf& v, uint32_t stride) {
  float in[16];
  int n = 0;
  for (float lim : {-104.0f, 89.0f}) {
    uint32_t u0, u1;
    const float z = lim < 0 ? -0.0f : 0.0f;
    std::memcpy(&u0, &z, 4), std::memcpy(&u1, &lim, 4);
    for (uint32_t u = u0; u <= u1; u += stride) {
      std::memcpy(&in[n++], &u, 4);
      if (n == 16) {
        if (!vec_expf_same16(v, in)) return false;
        n = 0;
      }
    }
  }
  return true;
}
const VecExpf& vec_expf() {
  static const VecExpf v = [] {
    VecExpf t;
    for (int i = 0; i < 32; ++i) {
      const double e = std::exp2(i / 32.0);
      uint64_t b;
      std::memcpy(&b, &e, 8);
      t.tab[i] = b - (static_cast<uint64_t>(i) << 47);
    }
    t.ok = isa::cpu().avx512f && vec_expf_check(t, 16381);  // ~70k inputs, ~1 ms
    return t;
  }();
  return v;
}

// softmax_block with the 16-lane part's exps 16 at a time (vec_expf; vectors with a lane
// past the plain range through std::exp, unless those lanes are -inf: +0): the same values
// and sums. Scores [live, nb) are -inf (keys past a causal row's position) and are not
// read: their weights are +0, which changes no lane sum and no step of the tail's, so only
// [0, live) is computed and sc[live, nb) is left as it was (callers read no weight there).
__attribute__((target("avx512f"))) void softmax_block_avx512_live(float* sc, int64_t nb, int64_t live, float bmax, bool rescale,
                                                                 float* dst, int64_t D, float* run_max, float* run_sum) {
  const VecExpf& ve = vec_expf();
  const float m = *run_max > bmax ? *run_max : bmax;
  const float ninf = -std::numeric_limits<float>::infinity();
  if (!ve.ok || m == ninf) {
    for (int64_t j = live; j < nb; ++j) sc[j] = ninf;
    return softmax_block(sc, nb, bmax, rescale, dst, D, run_max, run_sum);
  }
  const int64_t vec = nb / 16 * 16, vend = std::min(vec, (live + 15) / 16 * 16);
  __m512 lane = _mm512_setzero_ps();
  const __m512 vm = _mm512_set1_ps(m), vninf = _mm512_set1_ps(ninf);
  for (int64_t j = 0; j < vend; j += 16) {
    const __mmask16 in = live - j >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (live - j)) - 1);
    const __m512 x = _mm512_sub_ps(_mm512_mask_loadu_ps(vninf, in, sc + j), vm);
    const __mmask16 plain = expf_plain_lanes(x);
    __m512 e;
    if (plain == 0xFFFF) {
      e = expf16_avx512(x, ve.tab);
    } else if ((plain | _mm512_cmp_ps_mask(x, vninf, _CMP_EQ_OQ)) == 0xFFFF) {
      e = _mm512_maskz_mov_ps(plain, expf16_avx512(x, ve.tab));  // the -inf lanes: exp(-inf) = +0
    } else {
      alignas(64) float t[16];
      _mm512_store_ps(t, x);
      for (int l = 0; l < 16; ++l) t[l] = std::exp(t[l]);
      e = _mm512_load_ps(t);
    }
    _mm512_storeu_ps(sc + j, e);
    lane = _mm512_add_ps(lane, e);
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, lane);
  softmax_block_end(lanes, sc, vec, std::max(vec, std::min(nb, live)), m, rescale, dst, D, run_max, run_sum);
}
__attribute__((target("avx512f"))) void softmax_block_avx512(float* sc, int64_t nb, float bmax, bool rescale, float* dst, int64_t D,
                                                            float* run_max, float* run_sum) {
  softmax_block_avx512_live(sc, nb, nb, bmax, rescale, dst, D, run_max, run_sum);
}

// Scores [0, live) of a key block scaled (and masked); returns their max. Past `live` the
// scores are -inf (causal rows: no mask) and left unwritten (softmax_block_avx512_live).
// Sixteen at a time: the same products and sums; max_ps(x, m) keeps m on a NaN x and on
// equal values as std::max(m, x) does, and the lanes' maxima meet in another order, which
// can only change the sign of a zero maximum (no exp(score - max) changes with it).
__attribute__((target("avx512f"))) inline float scale_scores(float* sc, int64_t live, float scale, const float* mrow,
                                                            int64_t mstride) {
  float bmax = -std::numeric_limits<float>::infinity();
  int64_t j = 0;
  if (!mrow || mstride == 1) {
    const __m512 vs = _mm512_set1_ps(scale);
    __m512 vmax = _mm512_set1_ps(bmax);
    for (; j + 16 <= live; j += 16) {
      __m512 x = _mm512_mul_ps(_mm512_loadu_ps(sc + j), vs);
      if (mrow) x = _mm512_add_ps(x, _mm512_loadu_ps(mrow + j));
      _mm512_storeu_ps(sc + j, x);
      vmax = _mm512_max_ps(x, vmax);
    }
    bmax = _mm512_reduce_max_ps(vmax);
  }
  for (; j < live; ++j) {
    float x = sc[j] * scale;
    if (mrow) x = x + mrow[j * mstride];
    sc[j] = x;
    bmax = std::max(bmax, x);
  }
  return bmax;
}
#endif  // defined(__x86_64__)

// Its two matrix products run through the BLAS sgemm it was built with (MKL in the
// Python package), whose kernel, for three or more query rows, keeps one accumulator
// per output and adds each product with a fused multiply-add in order of the inner
// index. One or two rows: sdpa_blas_order.h.
inline float dot_fma(const float* a, const float* b, int64_t n) {
  float acc = 0.f;
  for (int64_t i = 0; i < n; ++i) acc = std::fma(a[i], b[i], acc);
  return acc;
}

// The official kernel splits the query rows in blocks of 32 (64 from 192 rows, 256 from
// 768); a block of one row (a decode step, or the last row of a prefill of 32n + 1) or
// of two rows takes other BLAS orders (sdpa_blas_order.h). Rows in row s's block:
inline int64_t sdpa_q_block_rows(int64_t S, int64_t s) {
  const int64_t split = S >= 768 ? 256 : S >= 192 ? 64 : 32;
  return std::min(split, S - s / split * split);
}

// sdpa_blas_order.h's functions, AVX-512 or NEON forms where the CPU has them (bit-equal).
// (and the softmax step's: bit-equal too)
struct BlasOrder {
  float (*dot1)(const float*, const float*, int64_t, int64_t, int64_t);
  float (*dot2)(const float*, const float*, int64_t);
  void (*value1)(const float*, int64_t, const float*, int64_t, int64_t, float*);
  void (*softmax)(float*, int64_t, float, bool, float*, int64_t, float*, float*);
};
inline const BlasOrder& blas_order() {
  static const BlasOrder scalar{blas_gemv1_dot, blas_gemm2_dot, blas_gemv1_value, softmax_block};
  if (g_force_scalar.load(std::memory_order_relaxed)) return scalar;  // tests: every step in its scalar form
#if defined(__x86_64__)
  static const BlasOrder simd{blas_gemv1_dot_avx512, blas_gemm2_dot_avx512, blas_gemv1_value_avx512, softmax_block_avx512};
  static const bool avx512 = isa::cpu().avx512f;
  return avx512 ? simd : scalar;
#elif defined(__aarch64__)
  static const BlasOrder simd{blas_gemv1_dot_neon, blas_gemm2_dot_neon, blas_gemv1_value_neon, softmax_block};
  static const bool neon = isa::cpu().neon;
  return neon ? simd : scalar;
#else
  return scalar;
#endif
}

inline void sdpa_row_f32_body(const SdpaJob<float>& job, size_t row) {
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
  const int64_t pos = a.start_pos + s;
  const int64_t qrows = sdpa_q_block_rows(S, s);
  const bool one = qrows == 1, two = qrows == 2 && blas_gemm2_applies(D);
  const BlasOrder& blas = blas_order();
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
        const float* kr = kp;
        if (k.strides[3] != 1) {
          for (int64_t d = 0; d < D; ++d) kv[d] = kp[d * k.strides[3]];
          kr = kv;
        }
        x = one ? blas.dot1(kr, qv, D, j, nb) : two ? blas.dot2(kr, qv, D) : dot_fma(kr, qv, D);
      }
      x = x * a.scale;
      if (mrow) x = x + mrow[(n + j) * a.mask->strides[1]];
      sc[j] = x;
      bmax = std::max(bmax, x);
    }
    blas.softmax(sc, nb, bmax, n > 0, dst, D, &run_max, &run_sum);
    for (int64_t d = 0; d < D; ++d) blk[d] = 0.f;
    if (one && v.strides[3] == 1) {
      blas.value1(vb + n * v.strides[1], v.strides[1], sc, nb, D, blk);
    } else {
      // keys past a causal row's position have weight +0: v * 0 adds +-0 and changes no
      // sum (as in the AVX-512 forms), so they are skipped
      const int64_t live = a.causal ? std::min(nb, pos - n + 1) : nb;
      for (int64_t j = 0; j < live; ++j) {
        const float* vp = vb + (n + j) * v.strides[1];
        const float w = sc[j];
        for (int64_t d = 0; d < D; ++d) blk[d] = std::fma(vp[d * v.strides[3]], w, blk[d]);
      }
    }
    for (int64_t d = 0; d < D; ++d) dst[d] = n == 0 ? blk[d] : dst[d] + blk[d];
  }
  float* op = o.ptr<float>() + b * o.strides[0] + s * o.strides[1] + h * o.strides[2];
  const float inv = 1.f / run_sum;
  for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = dst[d] * inv;
}

#if defined(__x86_64__)

// The same arithmetic with AVX-512F: scores of 16 keys at once (one lane per key,
// each lane its own in-order FMA chain over the head dim; contiguous keys are loaded
// as rows and transposed 16 x 16, strided ones gathered), the value
// sum 16 head-dim lanes at once (each lane in key order). Bit-equal to the body.
__attribute__((target("avx512f"))) void sdpa_row_f32_avx512(void* p, size_t row) {
  const auto& job = *static_cast<const SdpaJob<float>*>(p);
  const SdpaArgs& a = *job.a;
  const int64_t S = job.S, Hq = job.Hq, D = job.D;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  const int64_t ks = k.strides[1], kd = k.strides[3];
  if (v.strides[3] != 1 || ks * 16 > (int64_t(1) << 30) || kd * D > (int64_t(1) << 30)) {
    sdpa_row_f32_body(job, row);
    return;
  }
  const int64_t s = static_cast<int64_t>(row) % S;
  const int64_t h = static_cast<int64_t>(row) / S % Hq;
  const int64_t b = static_cast<int64_t>(row) / S / Hq;
  const int64_t hk = h / job.reps;
  if (sdpa_q_block_rows(S, s) <= 2) {  // BLAS's small-block orders: the body (their AVX-512 forms)
    sdpa_row_f32_body(job, row);
    return;
  }
  const float* qp = q.ptr<float>() + b * q.strides[0] + s * q.strides[1] + h * q.strides[2];
  const float* kb = k.ptr<float>() + b * k.strides[0] + hk * k.strides[2];
  const float* vb = v.ptr<float>() + b * v.strides[0] + hk * v.strides[2];
  const int64_t pos = a.start_pos + s;
  const float ninf = -std::numeric_limits<float>::infinity();
  alignas(64) float qv[kMaxHeadDim], dst[kMaxHeadDim], sc[kKeyBlock];
  for (int64_t d = 0; d < D; ++d) qv[d] = qp[d * q.strides[3]], dst[d] = 0.f;
  const float* mrow = a.mask ? a.mask->ptr<float>() + s * a.mask->strides[0] : nullptr;
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i idx = _mm512_mullo_epi32(lane, _mm512_set1_epi32(static_cast<int32_t>(ks)));
  float run_max = ninf, run_sum = 0.f;
  for (int64_t n = 0; n < a.kv_len; n += kKeyBlock) {
    const int64_t nb = std::min(kKeyBlock, a.kv_len - n);
    if (a.causal && n > pos) break;
    // keys this query may see in the block: [0, live)
    const int64_t live = a.causal ? std::min(nb, pos - n + 1) : nb;
    if (kd == 1) {  // (gathers are slow: ~1 element per cycle, far worse with the GDS mitigation)
      // up to 4 groups of 16 keys: their rows transposed 16 x 16 into t, their FMA chains interleaved
      alignas(64) float t[4][16][16];
      for (int64_t j0 = 0; j0 < live; j0 += 64) {
        const int64_t ng = std::min<int64_t>(4, (live - j0 + 15) / 16);
        __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
        for (int64_t d0 = 0; d0 < D; d0 += 16) {
          const int64_t dn = std::min<int64_t>(16, D - d0);
          const __mmask16 dm = static_cast<__mmask16>((1u << dn) - 1);
          for (int64_t g = 0; g < ng; ++g) {
            const int64_t cnt = std::min<int64_t>(16, live - j0 - 16 * g);
            const float* base = kb + (n + j0 + 16 * g) * ks + d0;
            __m512 r[16];
#pragma GCC unroll 16
            for (int j = 0; j < 16; ++j)  // keys past cnt: zero, as the gather's masked lanes
              r[j] = _mm512_maskz_loadu_ps(j < cnt ? dm : static_cast<__mmask16>(0), base + j * ks);
            transpose16_avx512(r);
#pragma GCC unroll 16
            for (int i = 0; i < 16; ++i) _mm512_store_ps(t[g][i], r[i]);
          }
          for (int64_t d = 0; d < dn; ++d) {
            const __m512 qd = _mm512_set1_ps(qv[d0 + d]);
#pragma GCC unroll 4
            for (int g = 0; g < 4; ++g)
              if (g < ng) acc[g] = _mm512_fmadd_ps(_mm512_load_ps(t[g][d]), qd, acc[g]);
          }
        }
        for (int64_t g = 0; g < ng; ++g) {
          const int64_t cnt = std::min<int64_t>(16, live - j0 - 16 * g);
          _mm512_mask_storeu_ps(sc + j0 + 16 * g, static_cast<__mmask16>((1u << cnt) - 1), acc[g]);
        }
      }
    }
    for (int64_t j0 = 0; kd != 1 && j0 < live; j0 += 16) {
      const int64_t cnt = std::min<int64_t>(16, live - j0);
      const __mmask16 m = static_cast<__mmask16>((1u << cnt) - 1);
      const float* base = kb + (n + j0) * ks;
      __m512 acc = _mm512_setzero_ps();
      for (int64_t d = 0; d < D; ++d) {
        const __m512 kv = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, idx, base + d * kd, 4);
        acc = _mm512_fmadd_ps(kv, _mm512_set1_ps(qv[d]), acc);
      }
      _mm512_mask_storeu_ps(sc + j0, m, acc);
    }
    const float bmax = scale_scores(sc, live, a.scale, mrow ? mrow + n * a.mask->strides[1] : nullptr, mrow ? a.mask->strides[1] : 0);
    softmax_block_avx512_live(sc, nb, live, bmax, n > 0, dst, D, &run_max, &run_sum);
    // masked keys have weight 0: v * 0 adds +-0 and changes nothing (the cache is finite;
    // the sums start at +0 and a sum is -0 only if both terms are), so the causal ones
    // past `live` are skipped. 64 head-dim lanes at a time: four independent FMA chains.
    for (int64_t d0 = 0; d0 < D; d0 += 64) {
      __mmask16 m[4];
      __m512 blk[4];
      for (int i = 0; i < 4; ++i) {
        const int64_t rem = D - d0 - 16 * i;
        m[i] = rem >= 16 ? static_cast<__mmask16>(0xFFFF) : rem > 0 ? static_cast<__mmask16>((1u << rem) - 1) : 0;
        blk[i] = _mm512_setzero_ps();
      }
      for (int64_t j = 0; j < live; ++j) {
        const float* vp = vb + (n + j) * v.strides[1] + d0;
        const __m512 w = _mm512_set1_ps(sc[j]);
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) blk[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m[i], vp + 16 * i), w, blk[i]);
      }
      for (int i = 0; i < 4; ++i) {
        const __m512 prev = _mm512_maskz_loadu_ps(m[i], dst + d0 + 16 * i);
        _mm512_mask_storeu_ps(dst + d0 + 16 * i, m[i], n == 0 ? blk[i] : _mm512_add_ps(prev, blk[i]));
      }
    }
  }
  float* op = o.ptr<float>() + b * o.strides[0] + s * o.strides[1] + h * o.strides[2];
  const float inv = 1.f / run_sum;
  for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = dst[d] * inv;
}

// The query heads that share a key/value head (grouped-query attention, 2 to 4 of them),
// one (batch, kv head, position) at a time: each key row is loaded and transposed once
// for all of them, each value row loaded once. Per head, every score and output lane is
// the same in-order FMA chain as in sdpa_row_f32_avx512 (contiguous keys and values
// only), so bit-equal to it and to the body.
constexpr int64_t kGroupMaxDim = 256;
template <int R>
__attribute__((target("avx512f"))) void sdpa_heads_f32_avx512(const SdpaJob<float>& job, int64_t b, int64_t hk, int64_t s) {
  const SdpaArgs& a = *job.a;
  const int64_t D = job.D;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  const int64_t ks = k.strides[1], vs = v.strides[1];
  const float* kb = k.ptr<float>() + b * k.strides[0] + hk * k.strides[2];
  const float* vb = v.ptr<float>() + b * v.strides[0] + hk * v.strides[2];
  const int64_t pos = a.start_pos + s;
  const float ninf = -std::numeric_limits<float>::infinity();
  alignas(64) float qv[R][kGroupMaxDim], dst[R][kGroupMaxDim], sc[R][kKeyBlock];
  alignas(64) float t[4][16][16];
  float run_max[R], run_sum[R];
  for (int r = 0; r < R; ++r) {
    const float* qp = q.ptr<float>() + b * q.strides[0] + s * q.strides[1] + (hk * job.reps + r) * q.strides[2];
    for (int64_t d = 0; d < D; ++d) qv[r][d] = qp[d * q.strides[3]], dst[r][d] = 0.f;
    run_max[r] = ninf, run_sum[r] = 0.f;
  }
  const float* mrow = a.mask ? a.mask->ptr<float>() + s * a.mask->strides[0] : nullptr;
  for (int64_t n = 0; n < a.kv_len; n += kKeyBlock) {
    const int64_t nb = std::min(kKeyBlock, a.kv_len - n);
    if (a.causal && n > pos) break;
    const int64_t live = a.causal ? std::min(nb, pos - n + 1) : nb;
    for (int64_t j0 = 0; j0 < live; j0 += 64) {
      const int64_t ng = std::min<int64_t>(4, (live - j0 + 15) / 16);
      __m512 acc[R][4];
      for (int r = 0; r < R; ++r)
        for (int g = 0; g < 4; ++g) acc[r][g] = _mm512_setzero_ps();
      for (int64_t d0 = 0; d0 < D; d0 += 16) {
        const int64_t dn = std::min<int64_t>(16, D - d0);
        const __mmask16 dm = static_cast<__mmask16>((1u << dn) - 1);
        // the next 64 keys' rows (this slice of them): the cache is cold at every step
        for (int64_t j = j0 + 64; j < std::min(live, j0 + 128); ++j) _mm_prefetch(reinterpret_cast<const char*>(kb + (n + j) * ks + d0), _MM_HINT_T0);
        for (int64_t g = 0; g < ng; ++g) {
          const int64_t cnt = std::min<int64_t>(16, live - j0 - 16 * g);
          const float* base = kb + (n + j0 + 16 * g) * ks + d0;
          __m512 rw[16];
#pragma GCC unroll 16
          for (int j = 0; j < 16; ++j)
            rw[j] = _mm512_maskz_loadu_ps(j < cnt ? dm : static_cast<__mmask16>(0), base + j * ks);
          transpose16_avx512(rw);
#pragma GCC unroll 16
          for (int i = 0; i < 16; ++i) _mm512_store_ps(t[g][i], rw[i]);
        }
        for (int64_t d = 0; d < dn; ++d)
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r) {
            const __m512 qd = _mm512_set1_ps(qv[r][d0 + d]);
#pragma GCC unroll 4
            for (int g = 0; g < 4; ++g)
              if (g < ng) acc[r][g] = _mm512_fmadd_ps(_mm512_load_ps(t[g][d]), qd, acc[r][g]);
          }
      }
      for (int64_t g = 0; g < ng; ++g) {
        const int64_t cnt = std::min<int64_t>(16, live - j0 - 16 * g);
        for (int r = 0; r < R; ++r) _mm512_mask_storeu_ps(sc[r] + j0 + 16 * g, static_cast<__mmask16>((1u << cnt) - 1), acc[r][g]);
      }
    }
    for (int r = 0; r < R; ++r) {
      const float bmax = scale_scores(sc[r], live, a.scale, mrow ? mrow + n * a.mask->strides[1] : nullptr, mrow ? a.mask->strides[1] : 0);
      softmax_block_avx512_live(sc[r], nb, live, bmax, n > 0, dst[r], D, &run_max[r], &run_sum[r]);
    }
    for (int64_t d0 = 0; d0 < D; d0 += 64) {  // (keys past `live`: weight 0, skipped as there)
      __mmask16 m[4];
      __m512 blk[R][4];
      for (int i = 0; i < 4; ++i) {
        const int64_t rem = D - d0 - 16 * i;
        m[i] = rem >= 16 ? static_cast<__mmask16>(0xFFFF) : rem > 0 ? static_cast<__mmask16>((1u << rem) - 1) : 0;
        for (int r = 0; r < R; ++r) blk[r][i] = _mm512_setzero_ps();
      }
      for (int64_t j = 0; j < live; ++j) {
        const float* vp = vb + (n + j) * vs + d0;
        if (j + 16 < live)
          for (int64_t c = 0; c < std::min<int64_t>(D - d0, 64); c += 16) _mm_prefetch(reinterpret_cast<const char*>(vp + 16 * vs + c), _MM_HINT_T0);
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
          const __m512 vv = _mm512_maskz_loadu_ps(m[i], vp + 16 * i);
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r) blk[r][i] = _mm512_fmadd_ps(vv, _mm512_set1_ps(sc[r][j]), blk[r][i]);
        }
      }
      for (int r = 0; r < R; ++r)
        for (int i = 0; i < 4; ++i) {
          const __m512 prev = _mm512_maskz_loadu_ps(m[i], dst[r] + d0 + 16 * i);
          _mm512_mask_storeu_ps(dst[r] + d0 + 16 * i, m[i], n == 0 ? blk[r][i] : _mm512_add_ps(prev, blk[r][i]));
        }
    }
  }
  for (int r = 0; r < R; ++r) {
    float* op = o.ptr<float>() + b * o.strides[0] + s * o.strides[1] + (hk * job.reps + r) * o.strides[2];
    const float inv = 1.f / run_sum[r];
    for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = dst[r][d] * inv;
  }
}

// row = (batch, kv head, position) of the grouped form
__attribute__((target("avx512f"))) void sdpa_group_f32_avx512(void* p, size_t row) {
  const auto& job = *static_cast<const SdpaJob<float>*>(p);
  const int64_t S = job.S, Hk = job.Hq / job.reps;
  const int64_t s = static_cast<int64_t>(row) % S, hk = static_cast<int64_t>(row) / S % Hk, b = static_cast<int64_t>(row) / S / Hk;
  if (sdpa_q_block_rows(S, s) <= 2) {  // BLAS's small-block orders: the body, head by head
    for (int64_t h = hk * job.reps; h < (hk + 1) * job.reps; ++h)
      sdpa_row_f32_body(job, static_cast<size_t>((b * job.Hq + h) * S + s));
    return;
  }
  switch (job.reps) {
    case 2: return sdpa_heads_f32_avx512<2>(job, b, hk, s);
    case 3: return sdpa_heads_f32_avx512<3>(job, b, hk, s);
    default: return sdpa_heads_f32_avx512<4>(job, b, hk, s);
  }
}

bool sdpa_group_f32_ok(const SdpaArgs& a, int64_t reps, int64_t D) {
  return reps >= 2 && reps <= 4 && D <= kGroupMaxDim && a.k->strides[3] == 1 && a.v->strides[3] == 1 &&
         a.k->strides[1] * 16 <= (int64_t(1) << 30);
}

// Prefill: a tile of P consecutive query positions x the R query heads of one kv head
// (R = 1..4, P * R <= 24 rows). Each slab of up to 64 keys is loaded and transposed
// once for the whole tile (sdpa_heads_f32_avx512 transposes it once per position, which
// costs more shuffles than the score FMAs it feeds); 24 rows rather than 12: Qwen3-0.6B's
// shapes, 512 positions, 9.8 -> 7.4 ms a call on one thread. Per row, every score lane is the
// same in-order FMA chain over the head dim and every output lane the same in-order
// chain over the keys, so bit-equal to sdpa_row_f32_avx512 and the body. Rows of the
// last query block with one or two rows (BLAS's small-block orders) take the body.
constexpr int64_t kTileRows = 24;
constexpr int64_t kTileMaxDim = 128;
inline int64_t sdpa_tile_positions(int64_t reps) { return std::max<int64_t>(1, kTileRows / reps); }

// A tile's rows go in groups of up to six (24 accumulators of 16 lanes): each transposed
// key vector and each value row is loaded once for the group (per row, the value rows
// came from L2 once a row: a key block of Qwen3's values is 256 KB).
constexpr int64_t kTileGroupRows = 6;

// The scores of G rows against 64 transposed keys t[g][d][lane] (key j0 + 16 g + lane):
// per score the in-order FMA chain over the head dim, as the row form. Rows whose keys
// end before j0 + 64 store only their own vectors (as the row form), those whose keys
// end before j0 none. Full: all four key vectors are this slab's; else the first ng.
template <int G, bool Full>
__attribute__((target("avx512f"))) void tile_scores(const float (*t)[kTileMaxDim][16], const float (*qv)[kTileMaxDim], int64_t D,
                                                   int64_t ng, int64_t j0, float (*sc)[kKeyBlock], const int64_t* live) {
  __m512 acc[G][4];
#pragma GCC unroll 6
  for (int r = 0; r < G; ++r)
    for (int g = 0; g < 4; ++g) acc[r][g] = _mm512_setzero_ps();
  for (int64_t d = 0; d < D; ++d) {
    __m512 tv[4];
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g)
      if (Full || g < ng) tv[g] = _mm512_load_ps(t[g][d]);
#pragma GCC unroll 6
    for (int r = 0; r < G; ++r) {
      const __m512 qd = _mm512_set1_ps(qv[r][d]);
#pragma GCC unroll 4
      for (int g = 0; g < 4; ++g)
        if (Full || g < ng) acc[r][g] = _mm512_fmadd_ps(tv[g], qd, acc[r][g]);
    }
  }
  // lanes past the row's own keys hold other keys' scores: the mask step makes them -inf
#pragma GCC unroll 6
  for (int r = 0; r < G; ++r) {
    if (live[r] <= j0) continue;
    const int64_t ngp = std::min<int64_t>(4, (live[r] - j0 + 15) / 16);
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g)
      if (g < ngp) _mm512_storeu_ps(sc[r] + j0 + 16 * g, acc[r][g]);
  }
}

// The value sums of G rows of a tile over one key block: dst[g][d] (+)= sum_j v[j][d] sc[g][j]
// for j < live[g] (ascending in g), an FMA chain in key order per output, 64 outputs at a
// time.
template <int G>
__attribute__((target("avx512f"))) void tile_values(const float* vb, int64_t vs, int64_t D, const float (*sc)[kKeyBlock],
                                                   float (*dst)[kTileMaxDim], const int64_t* live, bool first) {
  for (int64_t d0 = 0; d0 < D; d0 += 64) {
    __mmask16 m[4];
    for (int i = 0; i < 4; ++i) {
      const int64_t rem = D - d0 - 16 * i;
      m[i] = rem >= 16 ? static_cast<__mmask16>(0xFFFF) : rem > 0 ? static_cast<__mmask16>((1u << rem) - 1) : 0;
    }
    __m512 blk[G][4];
#pragma GCC unroll 6
    for (int g = 0; g < G; ++g)
      for (int i = 0; i < 4; ++i) blk[g][i] = _mm512_setzero_ps();
    const int64_t common = live[0];
    for (int64_t j = 0; j < common; ++j) {
      const float* vp = vb + j * vs + d0;
      __m512 vv[4];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) vv[i] = _mm512_maskz_loadu_ps(m[i], vp + 16 * i);
#pragma GCC unroll 6
      for (int g = 0; g < G; ++g) {
        const __m512 w = _mm512_set1_ps(sc[g][j]);
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) blk[g][i] = _mm512_fmadd_ps(vv[i], w, blk[g][i]);
      }
    }
#pragma GCC unroll 6
    for (int g = 1; g < G; ++g)
      for (int64_t j = common; j < live[g]; ++j) {
        const float* vp = vb + j * vs + d0;
        const __m512 w = _mm512_set1_ps(sc[g][j]);
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) blk[g][i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m[i], vp + 16 * i), w, blk[g][i]);
      }
#pragma GCC unroll 6
    for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        float* dp = dst[g] + d0 + 16 * i;
        _mm512_mask_storeu_ps(dp, m[i], first ? blk[g][i] : _mm512_add_ps(_mm512_maskz_loadu_ps(m[i], dp), blk[g][i]));
      }
  }
}

// The group kernels for G = 1..6 rows (scores: all four key vectors this slab's, or not).
struct TileGroup {
  void (*scores_full)(const float (*)[kTileMaxDim][16], const float (*)[kTileMaxDim], int64_t, int64_t, int64_t,
                      float (*)[kKeyBlock], const int64_t*);
  decltype(scores_full) scores_part;
  void (*values)(const float*, int64_t, int64_t, const float (*)[kKeyBlock], float (*)[kTileMaxDim], const int64_t*, bool);
};
template <int G>
constexpr TileGroup tile_group() { return {tile_scores<G, true>, tile_scores<G, false>, tile_values<G>}; }
constexpr TileGroup kTileGroups[kTileGroupRows] = {tile_group<1>(), tile_group<2>(), tile_group<3>(),
                                                   tile_group<4>(), tile_group<5>(), tile_group<6>()};

template <int R>
__attribute__((target("avx512f"))) void sdpa_tile_f32_avx512(const SdpaJob<float>& job, int64_t b, int64_t hk, int64_t s0, int64_t P) {
  const SdpaArgs& a = *job.a;
  const int64_t D = job.D;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  const int64_t ks = k.strides[1], vs = v.strides[1];
  const float* kb = k.ptr<float>() + b * k.strides[0] + hk * k.strides[2];
  const float* vb = v.ptr<float>() + b * v.strides[0] + hk * v.strides[2];
  const float ninf = -std::numeric_limits<float>::infinity();
  alignas(64) float qv[kTileRows][kTileMaxDim], dst[kTileRows][kTileMaxDim], sc[kTileRows][kKeyBlock];
  alignas(64) float t[4][kTileMaxDim][16];  // 64 keys transposed: t[g][d][lane] = key 16 g + lane, dim d
  float run_max[kTileRows], run_sum[kTileRows];
  for (int64_t p = 0; p < P; ++p)
    for (int r = 0; r < R; ++r) {
      const int64_t i = p * R + r;
      const float* qp = q.ptr<float>() + b * q.strides[0] + (s0 + p) * q.strides[1] + (hk * job.reps + r) * q.strides[2];
      for (int64_t d = 0; d < D; ++d) qv[i][d] = qp[d * q.strides[3]], dst[i][d] = 0.f;
      run_max[i] = ninf, run_sum[i] = 0.f;
    }
  for (int64_t n = 0; n < a.kv_len; n += kKeyBlock) {
    const int64_t nb = std::min(kKeyBlock, a.kv_len - n);
    // positions are ascending: those whose query sees no key of this block are done (as the row form's break)
    int64_t p0 = 0;
    if (a.causal)
      while (p0 < P && n > a.start_pos + s0 + p0) ++p0;
    if (p0 == P) break;
    int64_t live[kTileRows];  // per row: the keys of this block its position sees
    for (int64_t p = p0; p < P; ++p)
      for (int r = 0; r < R; ++r) live[p * R + r] = a.causal ? std::min(nb, a.start_pos + s0 + p - n + 1) : nb;
    const int64_t maxlive = live[P * R - 1];
    for (int64_t j0 = 0; j0 < maxlive; j0 += 64) {
      const int64_t ng = std::min<int64_t>(4, (maxlive - j0 + 15) / 16);
      for (int64_t j = j0 + 64; j < std::min(maxlive, j0 + 128); ++j)
        for (int64_t d0 = 0; d0 < D; d0 += 16) _mm_prefetch(reinterpret_cast<const char*>(kb + (n + j) * ks + d0), _MM_HINT_T0);
      for (int64_t g = 0; g < ng; ++g) {
        const int64_t cnt = std::min<int64_t>(16, maxlive - j0 - 16 * g);
        const float* base = kb + (n + j0 + 16 * g) * ks;
        for (int64_t d0 = 0; d0 < D; d0 += 16) {
          const __mmask16 dm = static_cast<__mmask16>((1u << std::min<int64_t>(16, D - d0)) - 1);
          __m512 rw[16];
#pragma GCC unroll 16
          for (int j = 0; j < 16; ++j)
            rw[j] = _mm512_maskz_loadu_ps(j < cnt ? dm : static_cast<__mmask16>(0), base + j * ks + d0);
          transpose16_avx512(rw);
#pragma GCC unroll 16
          for (int i = 0; i < 16; ++i) _mm512_store_ps(t[g][d0 + i], rw[i]);
        }
      }
      for (int64_t i0 = p0 * R; i0 < P * R; i0 += kTileGroupRows) {
        const TileGroup& tg = kTileGroups[std::min(kTileGroupRows, P * R - i0) - 1];
        (ng == 4 ? tg.scores_full : tg.scores_part)(t, qv + i0, D, ng, j0, sc + i0, live + i0);
      }
    }
    for (int64_t p = p0; p < P; ++p) {
      const float* mrow = a.mask ? a.mask->ptr<float>() + (s0 + p) * a.mask->strides[0] : nullptr;
      for (int r = 0; r < R; ++r) {
        float* row = sc[p * R + r];
        const float bmax = scale_scores(row, live[p * R], a.scale, mrow ? mrow + n * a.mask->strides[1] : nullptr, mrow ? a.mask->strides[1] : 0);
        softmax_block_avx512_live(row, nb, live[p * R], bmax, n > 0, dst[p * R + r], D, &run_max[p * R + r], &run_sum[p * R + r]);
      }
    }
    // the value sums, up to six rows a pass over the block's value rows (keys past a row's
    // `live`: weight 0, skipped as in the row form)
    for (int64_t i0 = p0 * R; i0 < P * R; i0 += kTileGroupRows)
      kTileGroups[std::min(kTileGroupRows, P * R - i0) - 1].values(vb + n * vs, vs, D, sc + i0, dst + i0, live + i0, n == 0);
  }
  for (int64_t p = 0; p < P; ++p)
    for (int r = 0; r < R; ++r) {
      float* op = o.ptr<float>() + b * o.strides[0] + (s0 + p) * o.strides[1] + (hk * job.reps + r) * o.strides[2];
      const float inv = 1.f / run_sum[p * R + r];
      for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = dst[p * R + r][d] * inv;
    }
}

// row = (batch, kv head, tile of positions) of the tiled form
__attribute__((target("avx512f"))) void sdpa_tiles_f32_avx512(void* p, size_t row) {
  const auto& job = *static_cast<const SdpaJob<float>*>(p);
  const int64_t S = job.S, Hk = job.Hq / job.reps, P = sdpa_tile_positions(job.reps), nt = (S + P - 1) / P;
  const int64_t tile = static_cast<int64_t>(row) % nt, hk = static_cast<int64_t>(row) / nt % Hk, b = static_cast<int64_t>(row) / nt / Hk;
  const int64_t s0 = tile * P, s1 = std::min(S, s0 + P);
  int64_t se = s0;  // positions [s0, se) in query blocks of three rows or more
  while (se < s1 && sdpa_q_block_rows(S, se) > 2) ++se;
  if (se > s0) {
    switch (job.reps) {
      case 1: sdpa_tile_f32_avx512<1>(job, b, hk, s0, se - s0); break;
      case 2: sdpa_tile_f32_avx512<2>(job, b, hk, s0, se - s0); break;
      case 3: sdpa_tile_f32_avx512<3>(job, b, hk, s0, se - s0); break;
      default: sdpa_tile_f32_avx512<4>(job, b, hk, s0, se - s0); break;
    }
  }
  for (int64_t s = se; s < s1; ++s)  // BLAS's small-block orders: the body, head by head
    for (int64_t h = hk * job.reps; h < (hk + 1) * job.reps; ++h)
      sdpa_row_f32_body(job, static_cast<size_t>((b * job.Hq + h) * S + s));
}

// Decode (one query row): the R query heads of a key head together. Keys in MKL's groups
// of four (its one-row kernel, sdpa_blas_order.h) go 16 at a time, transposed once for all
// R heads (blas_gemv1_dot16_avx512); the keys left over and the value sums take the body's
// functions. Bit-equal to the body.
// Requests rows [0, n) of `d` floats at `stride` floats into L2, one prefetch a cache line.
// (Rows of fp32 or of fp16 bits: custom_sdpa_half_kv's caches.)
template <class KT>
inline void prefetch_rows_l2(const KT* p, int64_t stride, int64_t n, int64_t d) {
  constexpr int64_t kLine = 64 / sizeof(KT);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t i = 0; i < d; i += kLine) _mm_prefetch(reinterpret_cast<const char*>(p + r * stride + i), _MM_HINT_T1);
}

// 16 lanes of a key or value row: fp32 as they are, fp16 bits widened (exactly). The fp16
// form reads 16 whole values: its callers (the split decode) have head dims that are
// multiples of 16, so the mask is always full there.
__attribute__((target("avx512f"))) inline __m512 load16(__mmask16 m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
__attribute__((target("avx512f"))) inline __m512 load16(__mmask16, const uint16_t* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
__attribute__((target("avx512f"))) inline __m512 load16(const float* p) { return _mm512_loadu_ps(p); }
__attribute__((target("avx512f"))) inline __m512 load16(const uint16_t* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// One key row as fp32 for the one-key dot products: fp32 rows in place, fp16 rows widened
// into `tmp` (D a multiple of 16).
__attribute__((target("avx512f"))) inline const float* key_row(const float* p, int64_t, float*) { return p; }
__attribute__((target("avx512f"))) inline const float* key_row(const uint16_t* p, int64_t D, float* tmp) {
  for (int64_t d = 0; d < D; d += 16) _mm512_store_ps(tmp + d, load16(p + d));
  return tmp;
}

// Scores of keys [j0, j1) of the key block at n (nb keys; the first `grouped` in MKL's groups
// of four) for R query heads: sc[r][j] (block coordinates). Keys 16 at a time, transposed once
// for all R heads (blas_gemv1_dot16_avx512), where the groups of four allow; the rest one by one.
// t: scratch for 16 transposed keys.
// KT: float, or uint16_t (fp16 bits; D a multiple of 16).
template <class KT>
__attribute__((target("avx512f"))) void decode_scores_avx512(const KT* kb, int64_t ks, int64_t n, int64_t nb, int64_t grouped,
                                                            int64_t j0, int64_t j1, int64_t D, const float (*qv)[kTileMaxDim], int64_t R,
                                                            float* const* sc, float (*t)[16]) {
  constexpr int64_t kLine = 64 / sizeof(KT);
  const int64_t g16 = std::min(grouped, j1);  // keys in dot16 groups: j + 16 <= this
  int64_t j = j0;
  for (; j + 16 <= g16; j += 16) {
    const KT* base = kb + (n + j) * ks;
    if (j + 32 <= g16)
      for (int l = 0; l < 16; ++l)
        for (int64_t d0 = 0; d0 < D; d0 += kLine) _mm_prefetch(reinterpret_cast<const char*>(base + (16 + l) * ks + d0), _MM_HINT_T0);
    for (int64_t d0 = 0; d0 < D; d0 += 16) {
      const __mmask16 dm = static_cast<__mmask16>((1u << std::min<int64_t>(16, D - d0)) - 1);
      __m512 rw[16];
#pragma GCC unroll 16
      for (int l = 0; l < 16; ++l) rw[l] = load16(dm, base + l * ks + d0);
      transpose16_avx512(rw);
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) _mm512_store_ps(t[d0 + i], rw[i]);
    }
    for (int64_t r = 0; r < R; ++r) blas_gemv1_dot16_avx512(&t[0][0], qv[r], D, sc[r] + j);
  }
  alignas(64) float row[kTileMaxDim];
  for (; j < j1; ++j) {
    const float* kr = key_row(kb + (n + j) * ks, D, row);
    for (int64_t r = 0; r < R; ++r) sc[r][j] = blas_gemv1_dot_avx512(kr, qv[r], D, j, nb);
  }
}

template <int R>
__attribute__((target("avx512f"))) void sdpa_decode_f32_avx512(const SdpaJob<float>& job, int64_t b, int64_t hk) {
  const SdpaArgs& a = *job.a;
  const int64_t D = job.D;
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.out;
  const int64_t ks = k.strides[1], vs = v.strides[1];
  const float* kb = k.ptr<float>() + b * k.strides[0] + hk * k.strides[2];
  const float* vb = v.ptr<float>() + b * v.strides[0] + hk * v.strides[2];
  const int64_t pos = a.start_pos;
  const float ninf = -std::numeric_limits<float>::infinity();
  alignas(64) float qv[R][kTileMaxDim], dst[R][kTileMaxDim], blk[kTileMaxDim], sc[R][kKeyBlock];
  alignas(64) float t[kTileMaxDim][16];  // 16 keys transposed: t[d][lane]
  float run_max[R], run_sum[R];
  float* scp[R];
  for (int r = 0; r < R; ++r) {
    scp[r] = sc[r];
    const float* qp = q.ptr<float>() + b * q.strides[0] + (hk * job.reps + r) * q.strides[2];
    for (int64_t d = 0; d < D; ++d) qv[r][d] = qp[d * q.strides[3]], dst[r][d] = 0.f;
    run_max[r] = ninf, run_sum[r] = 0.f;
  }
  const float* mrow = a.mask ? a.mask->ptr<float>() : nullptr;
  const int64_t mstride = a.mask ? a.mask->strides[1] : 0;
  for (int64_t n = 0; n < a.kv_len; n += kKeyBlock) {
    const int64_t nb = std::min(kKeyBlock, a.kv_len - n);
    if (a.causal && n > pos) break;
    const int64_t live = a.causal ? std::min(nb, pos - n + 1) : nb;
    const int64_t grouped = std::min(live, nb / 4 * 4);
    // The block's key and value rows are far apart (one head's D values every ks floats)
    // and cold (a decode step reads the weights in between): one request for every line
    // up front keeps many misses in flight instead of one row's at a time.
    prefetch_rows_l2(kb + n * ks, ks, live, D);
    prefetch_rows_l2(vb + n * vs, vs, live, D);
    decode_scores_avx512(kb, ks, n, nb, grouped, 0, live, D, qv, R, scp, t);
    for (int r = 0; r < R; ++r) {
      const float bmax = scale_scores(sc[r], live, a.scale, mrow ? mrow + n * mstride : nullptr, mstride);
      softmax_block_avx512_live(sc[r], nb, live, bmax, n > 0, dst[r], D, &run_max[r], &run_sum[r]);
      for (int64_t jj = live; jj < nb; ++jj) sc[r][jj] = 0.f;  // (the value sum's order depends on nb)
      blas_gemv1_value_avx512(vb + n * vs, vs, sc[r], nb, D, blk);
      for (int64_t d = 0; d < D; ++d) dst[r][d] = n == 0 ? blk[d] : dst[r][d] + blk[d];
    }
  }
  for (int r = 0; r < R; ++r) {
    float* op = o.ptr<float>() + b * o.strides[0] + (hk * job.reps + r) * o.strides[2];
    const float inv = 1.f / run_sum[r];
    for (int64_t d = 0; d < D; ++d) op[d * o.strides[3]] = dst[r][d] * inv;
  }
}

// row = (batch, kv head) of the decode form
__attribute__((target("avx512f"))) void sdpa_decode_rows_f32_avx512(void* p, size_t row) {
  const auto& job = *static_cast<const SdpaJob<float>*>(p);
  const int64_t Hk = job.Hq / job.reps, hk = static_cast<int64_t>(row) % Hk, b = static_cast<int64_t>(row) / Hk;
  switch (job.reps) {
    case 1: return sdpa_decode_f32_avx512<1>(job, b, hk);
    case 2: return sdpa_decode_f32_avx512<2>(job, b, hk);
    case 3: return sdpa_decode_f32_avx512<3>(job, b, hk);
    default: return sdpa_decode_f32_avx512<4>(job, b, hk);
  }
}

// Decode over a long cache, split over the threads without changing a bit: the one-row
// form above gives a key head (its R query heads) to one thread, so 3 key heads on 2
// threads leave one idle a third of the time, and each thread's cold rows arrive
// latency-bound. Here three passes, each shared by the threads:
//   1. scores, in chunks of up to kSplitKeys keys (at least four a thread), every key
//      head's for 16 keys before the next
//      16 (each score is its own product: the same functions as above, keys in groups of
//      16 where the block's groups of four allow);
//   2. per query head, the softmax steps over the key blocks in order (the same
//      function; the output's rescale factor exp(old max - new max) of each block kept
//      instead of applied);
//   3. the value sums, per run of up to kSplitVecs 16-lane vectors of a cache row (the
//      row's key heads side by side), eight keys at a time in MKL's one-row order for
//      every vector of the run, the blocks combined in order as the one-row form does:
//      out = out * c + block sum.
// Both passes over the cache read its rows whole and in order: a row of Qwen3-0.6B's
// cache is one 4 KB page, and one key head's 512 bytes of it at a time left each pass
// waiting on a page per row (a slab of 32 lanes: 128 bytes of each page).
// Scratch: the queries, the weights of every query head (whole key blocks), the factors
// and sums.
// From 128 keys (SmolLM2 8da4w, 2 threads, Zen 5 VM, per call against the one-row form: 11.6 ->
// 10.3 us at 128 positions, 23 -> 20 at 256, 44 -> 34 at 512, 185 -> 145 at 2000; no gain at 64).
constexpr int64_t kSplitKeys = 128;  // divides kKeyBlock (and so do its halves down to 16)
constexpr int64_t kSplitVecs = 32;   // at most, a value unit's vectors of a row
constexpr int64_t kSplitAhead = 32 << 10;  // bytes of a unit's rows requested ahead of its reads (value units; 3/4 of it: keys)
std::atomic<int64_t> g_split_min_keys{128};  // (one thread: 32) tests: 0 always, -1 never
std::atomic<uint64_t> g_split_runs{0};       // tests: how many calls took the split

struct DecodeSplit {
  const SdpaJob<float>* job;
  int64_t Hk, nblk, span, chunks;  // keys a chunk, chunks per batch
  int64_t vper, vunits;      // value vectors per unit, units per batch
  int64_t kahead;            // key rows requested ahead (a multiple of 16; 0: decode_scores_avx512's)
  int64_t vahead;            // value rows requested ahead (a multiple of 8)
  float (*qv)[kTileMaxDim];  // [B * Hq]: the queries
  float* sc;    // [B * Hq][nblk * kKeyBlock]
  float* fac;   // [B * Hq][nblk]: block n's rescale of the output (n > 0)
  float* sums;  // [B * Hq]
};

inline int64_t split_live(const SdpaArgs& a, int64_t n) {
  const int64_t nb = std::min(kKeyBlock, a.kv_len - n);
  return a.causal ? std::min(nb, a.start_pos - n + 1) : nb;
}

// pass 1: unit = (batch, chunk of keys). KT: the cache's element (float, or fp16 bits).
template <class KT>
__attribute__((target("avx512f"))) void split_scores(void* p, size_t unit) {
  const DecodeSplit& sp = *static_cast<const DecodeSplit*>(p);
  const SdpaJob<float>& job = *sp.job;
  const SdpaArgs& a = *job.a;
  const int64_t D = job.D, R = job.reps;
  const int64_t c = static_cast<int64_t>(unit) % sp.chunks, b = static_cast<int64_t>(unit) / sp.chunks;
  const int64_t g0 = c * sp.span, n = g0 / kKeyBlock * kKeyBlock;
  const int64_t nb = std::min(kKeyBlock, a.kv_len - n), live = split_live(a, n);
  const int64_t j0 = g0 - n, j1 = std::min(live, j0 + sp.span), grouped = std::min(live, nb / 4 * 4);
  if (j0 >= j1) return;
  const Tensor& k = *a.k;
  const int64_t ks = k.strides[1], kh = k.strides[2];
  const KT* kb = static_cast<const KT*>(k.data) + b * k.strides[0];
  alignas(64) float t[kTileMaxDim][16];
  // The first rows requested now; decode_scores_avx512 requests each next 16 as it goes,
  // and where 16 rows are less than kSplitAhead bytes (short rows: SmolLM2's 768 bytes)
  // each step also requests the 16 rows `ahead` further (SmolLM2's shapes, 2000 keys:
  // ~150 -> ~130 us a call; Qwen3-0.6B's 4 KB rows measured best without).
  const int64_t ahead = sp.kahead;
  for (int64_t hk = 0; hk < sp.Hk; ++hk) prefetch_rows_l2(kb + hk * kh + (n + j0) * ks, ks, std::min(std::max<int64_t>(16, ahead), j1 - j0), D);
  float* sc[4];
  for (int64_t j = j0; j < j1; j += 16)
    for (int64_t hk = 0; hk < sp.Hk; ++hk) {
      if (ahead && j + ahead < j1) prefetch_rows_l2(kb + hk * kh + (n + j + ahead) * ks, ks, std::min<int64_t>(16, j1 - j - ahead), D);
      for (int64_t r = 0; r < R; ++r) sc[r] = sp.sc + (b * job.Hq + hk * R + r) * (sp.nblk * kKeyBlock) + n;
      decode_scores_avx512(kb + hk * kh, ks, n, nb, grouped, j, std::min(j1, j + 16), D, sp.qv + b * job.Hq + hk * R, R, sc, t);
    }
}

// pass 2: unit = (batch, query head)
__attribute__((target("avx512f"))) void split_softmax(void* p, size_t unit) {
  const DecodeSplit& sp = *static_cast<const DecodeSplit*>(p);
  const SdpaArgs& a = *sp.job->a;
  const int64_t bh = static_cast<int64_t>(unit);
  float* row = sp.sc + bh * (sp.nblk * kKeyBlock);
  float* fac = sp.fac + bh * sp.nblk;
  const float ninf = -std::numeric_limits<float>::infinity();
  const float* mrow = a.mask ? a.mask->ptr<float>() : nullptr;
  const int64_t mstride = a.mask ? a.mask->strides[1] : 0;
  float run_max = ninf, run_sum = 0.f;
  for (int64_t bi = 0; bi < sp.nblk; ++bi) {
    const int64_t n = bi * kKeyBlock, nb = std::min(kKeyBlock, a.kv_len - n), live = split_live(a, n);
    float* sc = row + n;
    const float bmax = scale_scores(sc, live, a.scale, mrow ? mrow + n * mstride : nullptr, mstride);
    const float old = run_max;
    softmax_block_avx512_live(sc, nb, live, bmax, false, nullptr, 0, &run_max, &run_sum);
    // the factor softmax_block_end applies to the output; none while every score is -inf
    fac[bi] = run_max == ninf ? 1.f : std::exp(old - run_max);
    for (int64_t jj = live; jj < nb; ++jj) sc[jj] = 0.f;  // (the value sum's order depends on nb)
  }
  sp.sums[bh] = run_sum;
}

// key e's product fused onto key f's rounded one (a lambda would not inherit the target)
__attribute__((target("avx512f"))) inline __m512 vpair8(const __m512* y, const float* pp, int e, int f) {
  return _mm512_fmadd_ps(y[e], _mm512_set1_ps(pp[e]), _mm512_mul_ps(y[f], _mm512_set1_ps(pp[f])));
}

// pass 3: unit = (batch, run of vectors [u0, u1) of a cache row; vector u is 16 lanes of key
// head u / (D / 16)). Per vector and query head, the lanes' sums in blas_gemv1_value's order
// (each lane its own: first eight keys (y0 p0 + y2 p2 + ...) pairwise, each next eight onto
// the sum, the keys left over by FMA); the sums kept in L1 between groups of eight keys.
template <int R, class KT>
__attribute__((target("avx512f"))) void split_values_r(const DecodeSplit& sp, int64_t b, int64_t u0, int64_t u1) {
  const SdpaJob<float>& job = *sp.job;
  const SdpaArgs& a = *job.a;
  const int64_t per = job.D / 16, nu = u1 - u0;
  const Tensor &v = *a.v, &o = *a.out;
  const int64_t vs = v.strides[1];
  const KT* vb = static_cast<const KT*>(v.data) + b * v.strides[0];
  alignas(64) float acc[R][kSplitVecs][16], dst[R][kSplitVecs][16];
  const float* pw[R][kSplitVecs];  // each vector's weights (its query heads' rows)
  int64_t off[kSplitVecs];         // each vector's offset in a cache row
  for (int64_t i = 0; i < nu; ++i) {
    const int64_t hk = (u0 + i) / per, dl = (u0 + i) % per;
    off[i] = hk * v.strides[2] + dl * 16;
    for (int r = 0; r < R; ++r) pw[r][i] = sp.sc + (b * job.Hq + hk * R + r) * (sp.nblk * kKeyBlock);
  }
  for (int64_t bi = 0; bi < sp.nblk; ++bi) {
    const int64_t n = bi * kKeyBlock, nb = std::min(kKeyBlock, a.kv_len - n);
    const KT* rows = vb + n * vs;
    // rows `ahead` of the one read are requested as it is read (across blocks); the first ones now
    const int64_t ahead = sp.vahead, left = a.kv_len - n;
    if (bi == 0)
      for (int64_t j = 0; j < std::min(ahead, nb); ++j)
        for (int64_t i = 0; i < nu; ++i) _mm_prefetch(reinterpret_cast<const char*>(rows + j * vs + off[i]), _MM_HINT_T0);
    // (the first eight keys in a loop of their own, as blas_gemv1_value's order starts them: a
    // merged loop with the case inside measured no faster, 7 interleaved pairs)
    int64_t j = 0;
    if (nb >= 8) {
      const bool pf = ahead + 8 <= left;
      for (int64_t i = 0; i < nu; ++i) {
        const KT* x = rows + off[i];
        __m512 y[8];
#pragma GCC unroll 8
        for (int e = 0; e < 8; ++e) y[e] = load16(x + e * vs);
        if (pf)
#pragma GCC unroll 8
          for (int e = 0; e < 8; ++e) _mm_prefetch(reinterpret_cast<const char*>(x + (ahead + e) * vs), _MM_HINT_T0);
        for (int r = 0; r < R; ++r) {
          const float* pp = pw[r][i] + n;
          _mm512_store_ps(acc[r][i], _mm512_add_ps(_mm512_add_ps(vpair8(y, pp, 0, 2), vpair8(y, pp, 1, 3)), _mm512_add_ps(vpair8(y, pp, 4, 6), vpair8(y, pp, 5, 7))));
        }
      }
      for (j = 8; j + 8 <= nb; j += 8) {
        const bool pf = j + ahead + 8 <= left;
        for (int64_t i = 0; i < nu; ++i) {
          const KT* x = rows + j * vs + off[i];
          __m512 y[8];
#pragma GCC unroll 8
          for (int e = 0; e < 8; ++e) y[e] = load16(x + e * vs);
          if (pf)
#pragma GCC unroll 8
            for (int e = 0; e < 8; ++e) _mm_prefetch(reinterpret_cast<const char*>(x + (ahead + e) * vs), _MM_HINT_T0);
          for (int r = 0; r < R; ++r) {
            const float* pp = pw[r][i] + n + j;
            __m512 s = _mm512_fmadd_ps(y[6], _mm512_set1_ps(pp[6]), _mm512_load_ps(acc[r][i]));
            s = _mm512_fmadd_ps(y[4], _mm512_set1_ps(pp[4]), s);
            s = _mm512_add_ps(s, vpair8(y, pp, 5, 7));
            _mm512_store_ps(acc[r][i], _mm512_add_ps(s, _mm512_add_ps(vpair8(y, pp, 0, 2), vpair8(y, pp, 1, 3))));
          }
        }
      }
    } else {
      for (int r = 0; r < R; ++r)
        for (int64_t i = 0; i < nu; ++i) _mm512_store_ps(acc[r][i], _mm512_setzero_ps());
    }
    for (; j < nb; ++j)
      for (int64_t i = 0; i < nu; ++i) {
        const __m512 y = load16(rows + j * vs + off[i]);
        for (int r = 0; r < R; ++r)
          _mm512_store_ps(acc[r][i], _mm512_fmadd_ps(y, _mm512_set1_ps(pw[r][i][n + j]), _mm512_load_ps(acc[r][i])));
      }
    for (int r = 0; r < R; ++r)
      for (int64_t i = 0; i < nu; ++i) {
        const int64_t bh = b * job.Hq + (u0 + i) / per * R + r;
        const __m512 blk = _mm512_load_ps(acc[r][i]);
        _mm512_store_ps(dst[r][i], bi == 0 ? blk : _mm512_add_ps(_mm512_mul_ps(_mm512_load_ps(dst[r][i]), _mm512_set1_ps(sp.fac[bh * sp.nblk + bi])), blk));
      }
  }
  for (int r = 0; r < R; ++r)
    for (int64_t i = 0; i < nu; ++i) {
      const int64_t hk = (u0 + i) / per, h = hk * R + r, d0 = (u0 + i) % per * 16;
      float* op = o.ptr<float>() + b * o.strides[0] + h * o.strides[2] + d0 * o.strides[3];
      const float inv = 1.f / sp.sums[b * job.Hq + h];
      for (int64_t d = 0; d < 16; ++d) op[d * o.strides[3]] = dst[r][i][d] * inv;
    }
}

template <class KT>
__attribute__((target("avx512f"))) void split_values(void* p, size_t unit) {
  const DecodeSplit& sp = *static_cast<const DecodeSplit*>(p);
  const int64_t b = static_cast<int64_t>(unit) / sp.vunits, u0 = static_cast<int64_t>(unit) % sp.vunits * sp.vper;
  const int64_t u1 = std::min(sp.Hk * (sp.job->D / 16), u0 + sp.vper);
  if (u0 >= u1) return;
  switch (sp.job->reps) {
    case 1: return split_values_r<1, KT>(sp, b, u0, u1);
    case 2: return split_values_r<2, KT>(sp, b, u0, u1);
    case 3: return split_values_r<3, KT>(sp, b, u0, u1);
    default: return split_values_r<4, KT>(sp, b, u0, u1);
  }
}

// Runs the split decode when it applies (one query row, 1-4 query heads a key head, head dim
// a multiple of 16 up to kTileMaxDim, enough keys, two threads or more, scratch); false: the
// caller runs the one-row form. KT: the caches' element, float or fp16 bits (the query and
// output fp32: custom_sdpa_half_kv); the same bits either way (fp16 widens exactly).
template <class KT>
bool sdpa_decode_split_f32_avx512(KernelContext& ctx, const SdpaJob<float>& job, int threads) {
  const SdpaArgs& a = *job.a;
  const int64_t min_keys = g_split_min_keys.load(std::memory_order_relaxed);
  const int64_t keys = a.causal ? std::min(a.start_pos + 1, a.kv_len) : a.kv_len;
  // One thread: from 32 keys (whole cache rows in order beat a key head's slice of each row
  // there too: Qwen3-0.6B's shapes, cold, 40 keys 15.9 -> 11.9 us, 1000 keys 630 -> 442 us)
  // fp16 caches (KT: uint16_t) from 32 keys on two threads too: the one-row form would first
  // widen the rows (SmolLM2's shapes, 2 threads, per call: 40 keys 4.4 -> 2.8 us, 80 keys 6.5 -> 3.4)
  const int64_t need = threads >= 2 && std::is_same_v<KT, float> ? min_keys : std::min<int64_t>(min_keys, 32);
  if (threads < 1 || min_keys < 0 || keys < need || keys <= 0 || job.D % 16 != 0) return false;
  const int64_t B = a.q->sizes[0], Hk = job.Hq / job.reps;
  const int64_t nblk = (keys + kKeyBlock - 1) / kKeyBlock;  // blocks a causal query sees (all: no causality)
  const size_t rows = static_cast<size_t>(B * job.Hq);
  const size_t bytes = rows * static_cast<size_t>(kTileMaxDim + nblk * kKeyBlock + nblk + 1) * sizeof(float) + 128;
  auto* mem = static_cast<float*>(ctx.scratch(bytes));
  if (!mem) return false;
  // value units: at least one a thread, at most kSplitVecs vectors each
  const int64_t nv = Hk * (job.D / 16);
  const int64_t parts = std::max<int64_t>(threads, (nv + kSplitVecs - 1) / kSplitVecs), vper = (nv + parts - 1) / parts;
  int64_t span = kSplitKeys;
  while (span > 16 && (keys + span - 1) / span < 4 * threads) span /= 2;
  DecodeSplit sp{&job, Hk, nblk, span, (nblk - 1) * (kKeyBlock / span) + (split_live(a, (nblk - 1) * kKeyBlock) + span - 1) / span,
                 vper, (nv + vper - 1) / vper, 0, 0, nullptr, nullptr, nullptr, nullptr};
  constexpr int64_t kVecBytes = 16 * sizeof(KT);  // a 16-lane vector of a row
  const int64_t kahead = (kSplitAhead * 3 / 4 / (nv * kVecBytes) + 15) / 16 * 16;
  sp.kahead = kahead > 16 && kahead < span ? kahead : 0;
  sp.vahead = std::clamp<int64_t>((kSplitAhead / (vper * kVecBytes) + 7) / 8 * 8, 8, 256);
  sp.qv = reinterpret_cast<float (*)[kTileMaxDim]>((reinterpret_cast<uintptr_t>(mem) + 63) & ~uintptr_t(63));
  sp.sc = &sp.qv[rows][0];
  sp.fac = sp.sc + rows * static_cast<size_t>(nblk * kKeyBlock);
  sp.sums = sp.fac + rows * static_cast<size_t>(nblk);
  const Tensor& q = *a.q;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < job.Hq; ++h) {
      const float* qp = q.ptr<float>() + b * q.strides[0] + h * q.strides[2];
      for (int64_t d = 0; d < job.D; ++d) sp.qv[b * job.Hq + h][d] = qp[d * q.strides[3]];
    }
  linalg::claim_parallel_for(threads - 1, B * sp.chunks, split_scores<KT>, &sp);
  linalg::claim_parallel_for(threads - 1, static_cast<int64_t>(rows), split_softmax, &sp);
  linalg::claim_parallel_for(threads - 1, B * sp.vunits, split_values<KT>, &sp);
  g_split_runs.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// The tile and decode forms: 1-4 query heads a key head, head dim <= kTileMaxDim,
// contiguous key and value rows.
bool sdpa_heads_fit_f32(const SdpaArgs& a, int64_t reps, int64_t D) {
  return reps >= 1 && reps <= 4 && D <= kTileMaxDim && a.k->strides[3] == 1 && a.v->strides[3] == 1 &&
         a.k->strides[1] * 16 <= (int64_t(1) << 30);
}
// This call takes those forms (decode: one row a key head, or the split; prefill: tiles):
// AVX-512, not forced to the scalar or row-by-row forms (tests), shapes that fit.
bool sdpa_heads_forms_f32(const SdpaArgs& a, const SdpaJob<float>& job) {
  return isa::cpu().avx512f && !g_force_scalar.load(std::memory_order_relaxed) && g_tiles.load(std::memory_order_relaxed) &&
         sdpa_heads_fit_f32(a, job.reps, job.D);
}
#endif  // defined(__x86_64__)

// The threads a call shares its work with, by its size (query rows x keys x head dim). A
// decode step shares its key heads with the helpers from 2^14 (SmolLM2: ~28 positions):
// the claim pool's helpers spin between a step's products, so the hand-off costs about a
// microsecond, and each key head's rows are cold (the step's weights came in between),
// latency-bound; 2^17 before (SmolLM2 8da4w at 64 positions: 14.4 -> 9.8 us a call).
// Prefill chunks and longer contexts are split over rows from 2^17.
template <class T>
int sdpa_call_threads(const KernelContext& ctx, const SdpaJob<T>& job) {
  const SdpaArgs& a = *job.a;
  const int64_t keys = a.causal ? std::min(a.start_pos + job.S, a.kv_len) : a.kv_len;
  const double work = static_cast<double>(a.q->sizes[0] * job.Hq * job.S) * static_cast<double>(keys) * static_cast<double>(job.D);
  return work >= double(job.S == 1 ? 1 << 14 : 1 << 17) ? ctx.claim_threads : 1;
}

// std::fma is one instruction where the CPU has FMA, a (slow, same-valued) libm
// call otherwise.
#if defined(__x86_64__)
__attribute__((target("fma"))) void sdpa_row_f32_fma(void* p, size_t row) {
  sdpa_row_f32_body(*static_cast<const SdpaJob<float>*>(p), row);
}
void sdpa_row_f32_plain(void* p, size_t row) { sdpa_row_f32_body(*static_cast<const SdpaJob<float>*>(p), row); }
#else
void sdpa_row_f32_fma(void* p, size_t row) {  // ARM: fused multiply-add is in the base ISA
  sdpa_row_f32_body(*static_cast<const SdpaJob<float>*>(p), row);
}
#endif

template <class T>
void sdpa_typed(KernelContext& ctx, const SdpaArgs& a) {
  SdpaJob<T> job{&a, a.q->sizes[1], a.q->sizes[2], a.q->sizes[3], a.q->sizes[2] / a.k->sizes[2]};
  size_t rows = static_cast<size_t>(a.q->sizes[0] * job.Hq * job.S);
  const int threads = sdpa_call_threads(ctx, job);
  void (*fn)(void*, size_t) = sdpa_row<T>;
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>)
    fn = g_force_scalar.load(std::memory_order_relaxed) ? sdpa_row_f32_fma
         : isa::cpu().avx512f ? sdpa_row_f32_avx512
         : isa::cpu().fma3    ? sdpa_row_f32_fma
                              : sdpa_row_f32_plain;
  if constexpr (std::is_same_v<T, float>) {
    const bool heads = sdpa_heads_forms_f32(a, job);  // (fn is sdpa_row_f32_avx512 then)
    if (heads && job.S == 1) {
      fn = sdpa_decode_rows_f32_avx512;  // decode: rows are (batch, kv head)
      rows = static_cast<size_t>(a.q->sizes[0] * (job.Hq / job.reps));
    } else if (heads && job.S >= 3) {  // (two rows: BLAS's two-row order, the body)
      // prefill: rows are (batch, kv head, tile of positions)
      const int64_t P = sdpa_tile_positions(job.reps);
      fn = sdpa_tiles_f32_avx512;
      rows = static_cast<size_t>(a.q->sizes[0] * (job.Hq / job.reps) * ((job.S + P - 1) / P));
    } else if (fn == sdpa_row_f32_avx512 && sdpa_group_f32_ok(a, job.reps, job.D)) {
      fn = sdpa_group_f32_avx512;  // the heads of a kv head together: rows are (batch, kv head, position)
      rows /= static_cast<size_t>(job.reps);
    }
  }
#else
  if constexpr (std::is_same_v<T, float>) fn = sdpa_row_f32_fma;
#endif
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>)
    if (fn == sdpa_decode_rows_f32_avx512 && sdpa_decode_split_f32_avx512<float>(ctx, job, threads)) return;
#endif
  if (threads <= 1) {
    for (size_t r = 0; r < rows; ++r) fn(&job, r);
    return;
  }
  // Tiles claimed by the caller and the awake helpers (ops/linalg/claim_pool.h); tile t
  // takes rows t, t + T, ... so causal rows (more keys further down) spread evenly.
  struct Tiles {
    void (*fn)(void*, size_t);
    void* job;
    size_t rows, ntiles;
  } tiles{fn, &job, rows, std::min<size_t>(rows, static_cast<size_t>(8 * threads))};
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
void sdpa_tiles(bool on) { g_tiles.store(on); }
uint64_t sdpa_decode_split_min_keys(int64_t keys) {
#if defined(__x86_64__)
  if (keys >= -1) g_split_min_keys.store(keys);
  return g_split_runs.load();
#else
  (void)keys;
  return 0;
#endif
}

int sdpa_vector_expf_check(uint32_t stride) {
#if defined(__x86_64__)
  if (!isa::cpu().avx512f) return -1;
  if (!vec_expf().ok) return 0;
  return vec_expf_check(vec_expf(), stride) ? 1 : 0;
#else
  (void)stride;
  return -1;
#endif
}

bool sdpa_prepare(KernelContext& ctx, SdpaArgs& a, bool has_scale, double scale, bool half_kv) {
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v;
  if (q.dim != 4 || k.dim != 4 || v.dim != 4)
    return ctx.fail("query, key and value must be 4-D [B, S, H, D] (got %d-D, %d-D, %d-D)", q.dim, k.dim, v.dim);
  if (half_kv) {
    if (q.dtype != DType::Float || a.out->dtype != DType::Float || k.dtype != DType::Half || v.dtype != DType::Half)
      return ctx.fail("expected a float32 query and out and float16 key and value caches (got %s, %s, %s, %s)", dtype_name(q.dtype),
                      dtype_name(k.dtype), dtype_name(v.dtype), dtype_name(a.out->dtype));
  } else if (q.dtype != k.dtype || q.dtype != v.dtype || q.dtype != a.out->dtype)
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

bool sdpa_run_half_kv(KernelContext& ctx, const SdpaArgs& a, Tensor& k32, Tensor& v32) {
  const Tensor &k = *a.k, &v = *a.v;
#if defined(__x86_64__)
  // Decode: the split form reads the fp16 rows (where sdpa_typed would take the decode forms;
  // the split checks its own conditions: head dim, keys, scratch)
  const SdpaJob<float> job{&a, a.q->sizes[1], a.q->sizes[2], a.q->sizes[3], a.q->sizes[2] / k.sizes[2]};
  if (job.S == 1 && sdpa_heads_forms_f32(a, job) && sdpa_decode_split_f32_avx512<uint16_t>(ctx, job, sdpa_call_threads(ctx, job)))
    return true;
#endif
  // Otherwise the positions read, [0, kv_len), widened into the fp32 copies and the fp32 form
  if (!cast_rows_f16_f32(ctx, k, k32, a.kv_len) || !cast_rows_f16_f32(ctx, v, v32, a.kv_len)) return false;
  SdpaArgs w = a;
  w.k = &k32;
  w.v = &v32;
  sdpa_typed<float>(ctx, w);
  return true;
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
