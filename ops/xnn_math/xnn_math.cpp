// pte-run XNNPACK delegate: XNNPACK-compatible transcendental ops (see xnn_math.h):
// the dispatch, rsqrt / sigmoid (AVX-512) / sin / cos, and the portable emulations of
// the kernels in xnn_math_kernels.h.
#include "ops/xnn_math/xnn_math.h"

#if defined(__x86_64__)
// g++ 12 warns -Wmaybe-uninitialized in its own avx512fintrin.h (_mm512_undefined_*).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

#include <cmath>
#include <cstring>

#include "ops/isa.h"
#include "ops/xnn_math/xnn_math_isa.h"
#include "ops/xnn_math/xnn_math_kernels.h"

namespace pte::xnn {

namespace {

bool has_avx512f() { return pte::isa::cpu().avx512f; }
bool has_avx() { return pte::isa::cpu().avx; }

#if defined(__x86_64__)

// rsqrt (Sqrt = false) and sqrt (Sqrt = true): one Newton-Raphson step for 1/sqrt(x)
// from the estimate y, operation by operation as XNNPACK writes it (no fused
// multiply-add): y - (x*(y*y) - 1) * (0.5*y). rsqrt: 0 for +inf. sqrt (XNNPACK's vsqrt
// "rsqrt" kernels): x * y with y zeroed for x == +-0 (sqrt(+-0) = +-0; sqrt(inf) is NaN).
template <bool Sqrt>
__attribute__((target("avx512f"))) void rsqrt_nr_avx512f(const float* x, float* y, int64_t n) {
  const __m512 one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f), inf = _mm512_set1_ps(INFINITY);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 vx = _mm512_maskz_loadu_ps(m, x + i);
    __m512 vy = _mm512_rsqrt14_ps(vx);
    const __m512 t = _mm512_sub_ps(_mm512_mul_ps(vx, _mm512_mul_ps(vy, vy)), one);
    vy = _mm512_sub_ps(vy, _mm512_mul_ps(t, _mm512_mul_ps(half, vy)));
    if constexpr (Sqrt)
      vy = _mm512_mul_ps(vx, _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(vx, _mm512_setzero_ps(), _CMP_NEQ_UQ), vy));
    else
      vy = _mm512_maskz_mov_ps(static_cast<__mmask16>(~_mm512_cmp_ps_mask(vx, inf, _CMP_EQ_OQ)), vy);
    _mm512_mask_storeu_ps(y + i, m, vy);
  }
}

template <bool Sqrt>
__attribute__((target("avx"))) void rsqrt_nr_avx(const float* x, float* y, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f), inf = _mm256_set1_ps(INFINITY);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 vx = _mm256_loadu_ps(x + i);
    __m256 vy = _mm256_rsqrt_ps(vx);
    const __m256 t = _mm256_sub_ps(_mm256_mul_ps(vx, _mm256_mul_ps(vy, vy)), one);
    vy = _mm256_sub_ps(vy, _mm256_mul_ps(t, _mm256_mul_ps(half, vy)));
    if constexpr (Sqrt)
      vy = _mm256_mul_ps(vx, _mm256_and_ps(_mm256_cmp_ps(vx, _mm256_setzero_ps(), _CMP_NEQ_UQ), vy));
    else
      vy = _mm256_andnot_ps(_mm256_cmp_ps(vx, inf, _CMP_EQ_OQ), vy);
    _mm256_storeu_ps(y + i, vy);
  }
  if (i < n) {
    float bx[8] = {1, 1, 1, 1, 1, 1, 1, 1}, by[8];
    std::memcpy(bx, x + i, static_cast<size_t>(n - i) * sizeof(float));
    rsqrt_nr_avx<Sqrt>(bx, by, 8);
    std::memcpy(y + i, by, static_cast<size_t>(n - i) * sizeof(float));
  }
}

#endif  // defined(__x86_64__)

// 2^(i/32), i = 0..31, rounded to float.
struct Exp2Table {
  float v[32];
  Exp2Table() {
    for (int i = 0; i < 32; ++i) v[i] = static_cast<float>(std::exp2(static_cast<double>(i) / 32.0));
  }
};
const Exp2Table& exp2_table() {
  static const Exp2Table t;
  return t;
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void sigmoid_avx512f(const float* x, float* y, int64_t n) {
  const Exp2Table& tab = exp2_table();
  const __m512 lo = _mm512_loadu_ps(tab.v), hi = _mm512_loadu_ps(tab.v + 16);
  const __m512i sign = _mm512_set1_epi32(static_cast<int32_t>(0x80000000u));
  // 1.5 * 2^18: adding it rounds to multiples of 1/32 and leaves (32 n) mod 32 in the low bits
  const __m512 magic = _mm512_set1_ps(0x1.8p18f);
  const __m512 log2e = _mm512_set1_ps(0x1.715476p0f);
  const __m512 minus_ln2_hi = _mm512_set1_ps(-0x1.62E430p-1f), minus_ln2_lo = _mm512_set1_ps(0x1.05C61p-29f);
  const __m512 c2 = _mm512_set1_ps(0x1.0p-1f), c1 = _mm512_set1_ps(0x1.0000F6p0f);
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 vx = _mm512_maskz_loadu_ps(m, x + i);
    const __m512 z = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(vx), sign));  // -|x|
    __m512 k = _mm512_fmadd_ps(z, log2e, magic);
    const __m512 l = _mm512_permutex2var_ps(lo, _mm512_castps_si512(k), hi);
    k = _mm512_sub_ps(k, magic);
    __m512 t = _mm512_fmadd_ps(k, minus_ln2_hi, z);
    t = _mm512_fmadd_ps(k, minus_ln2_lo, t);
    __m512 p = _mm512_fmadd_ps(t, c2, c1);
    t = _mm512_mul_ps(t, l);
    p = _mm512_fmadd_ps(t, p, l);
    const __m512 e = _mm512_scalef_ps(p, k);
    __m512 f = _mm512_div_ps(e, _mm512_add_ps(e, one));
    f = _mm512_mask_sub_ps(f, _mm512_testn_epi32_mask(_mm512_castps_si512(vx), sign), one, f);
    _mm512_mask_storeu_ps(y + i, m, f);
  }
}
#endif  // defined(__x86_64__)

// sin (Cos = false) or cos of each element, in XNNPACK's arithmetic.
template <bool Cos>
inline void sincos_body(const float* x, float* y, int64_t n) {
  const float pi = 3.1415927f, two_pi_inv = 0.15915494f, pi_half = 1.5707964f;
  const float two_pi_hi = 6.28125f, two_pi_lo = 1.9353072e-3f;  // 2*pi = hi + lo (~33 bits)
  const float a3 = -1.3314664364e-01f, a5 = 3.2340581529e-03f;    // numerator: x (1 + a3 x^2 + a5 x^4)
  const float b2 = 3.3519912511e-02f, b4 = 4.8770775902e-04f;     // denominator: 1 + b2 x^2 + b4 x^4
  auto mn = [](float a, float b) { return a < b ? a : b; };      // x86 min/max operand order
  auto mx = [](float a, float b) { return a > b ? a : b; };
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    const float k = std::nearbyint(v * two_pi_inv);
    v = std::fma(-k, two_pi_hi, v);
    v = std::fma(-k, two_pi_lo, v);
    if (Cos) v = pi_half - v;
    v = mn(v, pi - v);
    v = mx(v, -pi - v);
    v = mn(v, pi - v);
    const float v2 = v * v;
    float p = std::fma(v2, a5, a3);
    p = std::fma(v2, p, 1.0f);
    p = v * p;
    float q = std::fma(v2, b4, b2);
    q = std::fma(v2, q, 1.0f);
    y[i] = p / q;
  }
}

#if defined(__x86_64__)
template <bool Cos>
__attribute__((target("fma"))) void sincos_fma(const float* x, float* y, int64_t n) {
  sincos_body<Cos>(x, y, n);
}
#else
template <bool Cos>
void sincos_fma(const float* x, float* y, int64_t n) {
  sincos_body<Cos>(x, y, n);  // ARM: std::fma is one instruction
}
#endif
template <bool Cos>
void sincos_plain(const float* x, float* y, int64_t n) {
  sincos_body<Cos>(x, y, n);  // std::fma from libm: the same bits, slower
}

bool has_fma() { return pte::isa::cpu().fma3; }

}  // namespace

void sin_f32(const float* x, float* y, int64_t n) {
  DenormalsOff daz;
  if (has_fma())
    sincos_fma<false>(x, y, n);
  else
    sincos_plain<false>(x, y, n);
}

void cos_f32(const float* x, float* y, int64_t n) {
  DenormalsOff daz;
  if (has_fma())
    sincos_fma<true>(x, y, n);
  else
    sincos_plain<true>(x, y, n);
}

void rsqrt_f32_scalar(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / std::sqrt(x[i]);
}

void sigmoid_f32_scalar(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + std::exp(-x[i]));
}

void rsqrt_f32(const float* x, float* y, int64_t n) {
  DenormalsOff daz;
#if defined(__x86_64__)
  if (has_avx512f())
    rsqrt_nr_avx512f<false>(x, y, n);
  else if (has_avx())
    rsqrt_nr_avx<false>(x, y, n);
  else
#endif
    rsqrt_f32_scalar(x, y, n);
}

void sqrt_f32(const float* x, float* y, int64_t n) {
  DenormalsOff daz;
#if defined(__x86_64__)
  if (has_avx512f())
    rsqrt_nr_avx512f<true>(x, y, n);
  else if (has_avx())
    rsqrt_nr_avx<true>(x, y, n);
  else
#endif
    for (int64_t i = 0; i < n; ++i) y[i] = std::sqrt(x[i]);  // XNNPACK's SSE2 kernel is not reproduced
}

void sigmoid_f32(const float* x, float* y, int64_t n) {
  DenormalsOff daz;
  const Isa i = detected_isa();
  if (i == Isa::kAvx512 || i == Isa::kAvx2Fma || i == Isa::kNeonFma)
    unary_f32_isa(Fn::kSigmoid, i, x, y, n);
  else
    sigmoid_f32_scalar(x, y, n);
}

// ---------------------------------------------------------------- emulations

namespace {

inline uint32_t fbits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// One lane of an x86 vector: the S of xnn_math_kernels.h with V = float. Fused: XNNPACK's
// FMA kernels (AVX-512F, FMA3); Avx512Getexp: vgetexpps (else the FMA3 kernels' bit trick).
template <bool Fused, bool Avx512Getexp>
struct LaneOps {
  using V = float;
  static constexpr bool kFma = Fused;
  static constexpr int kLanes = 1;  // map_kernel: one element at a time, never a tail
  static float load(const float* p) { return *p; }
  static void store(float* p, float v) { *p = v; }
  static float load_tail(const float* p, int) { return *p; }
  static void store_tail(float* p, float v, int) { *p = v; }
  static float c(float v) { return v; }
  static float bits(uint32_t u) { return bitsf(u); }
  static float add(float a, float b) { return a + b; }
  static float sub(float a, float b) { return a - b; }
  static float mul(float a, float b) { return a * b; }
  static float div(float a, float b) { return a / b; }
  static float fmadd(float a, float b, float c) {
    if constexpr (Fused) return std::fma(a, b, c);
    return a * b + c;  // -ffp-contract=off: two roundings
  }
  static float min(float a, float b) { return a < b ? a : b; }
  static float max(float a, float b) { return a > b ? a : b; }
  static float bor(float a, float b) { return bitsf(fbits(a) | fbits(b)); }
  static float band(float a, float b) { return bitsf(fbits(a) & fbits(b)); }
  static float sll23(float a) { return bitsf(fbits(a) << 23); }
  static float zero_if_lt(float f, float a, float b) { return a < b ? 0.0f : f; }
  static float blend_sign(float if_neg, float if_pos, float x) { return (fbits(x) >> 31) ? if_neg : if_pos; }
  static float getexp(float a) {
    if (std::fpclassify(a) == FP_SUBNORMAL) a = std::copysign(0.0f, a);  // DAZ
    if constexpr (Avx512Getexp) {
      float r;
      if (std::isnan(a)) r = bitsf(fbits(a) | 0x00400000u);
      else if (std::isinf(a)) r = INFINITY;
      else if (a == 0.0f) r = -INFINITY;
      else r = static_cast<float>(std::ilogb(a));
      if (a < 0.0f) r = bitsf(0x7FC00001u);
      return r;
    } else {
      // sign and exponent shifted into the mantissa of 256.0f (arithmetic shift), minus
      // 256 + 127; 0 gets its sign bit set first (-inf); negatives give NaN
      uint32_t u = fbits(a);
      if (a == 0.0f) u |= 0x80000000u;
      const int32_t e = static_cast<int32_t>(u & 0xFF800000u) >> 8;
      return bitsf(fbits(256.0f) | static_cast<uint32_t>(e)) - 383.0f;
    }
  }
};

// XNNPACK's AVX-512F sigmoid (rr2_lut32_p2_perm2_scalef_div), one lane.
void sigmoid_avx512_emulated(const float* x, float* y, int64_t n) {
  const Exp2Table& tab = exp2_table();
  const float magic = 0x1.8p18f;
  for (int64_t i = 0; i < n; ++i) {
    const float z = bitsf(fbits(x[i]) | 0x80000000u);
    float k = std::fma(z, 0x1.715476p0f, magic);
    const float l = tab.v[fbits(k) & 31u];
    k = k - magic;
    float t = std::fma(k, -0x1.62E430p-1f, z);
    t = std::fma(k, 0x1.05C61p-29f, t);
    float p = std::fma(t, 0x1.0p-1f, 0x1.0000F6p0f);
    t = t * l;
    p = std::fma(t, p, l);
    // vscalefps: p * 2^floor(k), one rounding
    float e;
    if (std::isinf(k)) e = k < 0 ? 0.0f : INFINITY;
    else e = std::ldexp(p, static_cast<int>(std::fmax(std::floor(k), -400.0f)));
    if (std::fpclassify(e) == FP_SUBNORMAL) e = 0.0f;  // FTZ (ldexp works on the bits)
    float f = e / (e + 1.0f);
    if (!(fbits(x[i]) >> 31)) f = 1.0f - f;
    y[i] = f;
  }
}

// softmax_nc_f32 of one row with W-lane vectors: max, raddstoreexpminusmax (two
// accumulators over blocks of 4W, one over blocks of W, the masked tail, a halving
// tree), then the vmulc by 1/sum.
template <int W>
void softmax_emulated_w(const float* x, float* y, int64_t n) {
  using S = LaneOps<true, W == 16>;
  if (n <= 0) return;
  float mx = x[0];
  for (int64_t i = 1; i < n; ++i) mx = S::max(x[i], mx);
  float acc0[W] = {}, acc1[W] = {};
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W)
    for (int b = 0; b < 4; ++b)
      for (int l = 0; l < W; ++l) {
        const float f = expminus_kernel<S>(x[i + b * W + l] - mx);
        y[i + b * W + l] = f;
        (b % 2 == 0 ? acc0 : acc1)[l] += f;
      }
  for (int l = 0; l < W; ++l) acc0[l] += acc1[l];
  for (; i < n; i += W)
    for (int l = 0; l < W && i + l < n; ++l) {
      const float f = expminus_kernel<S>(x[i + l] - mx);
      y[i + l] = f;
      acc0[l] += f;
    }
  for (int w = W / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) acc0[l] = acc0[l] + acc0[l + w];
  const float scale = 1.0f / acc0[0];
  for (int64_t j = 0; j < n; ++j) y[j] *= scale;
}

bool has_avx2_fma() { return pte::isa::cpu().avx2_fma(); }

}  // namespace

bool has_neon_fma() {
#if defined(__aarch64__)
  return pte::isa::cpu().neon;
#else
  return false;
#endif
}

Isa detected_isa() {
  static const Isa v = has_neon_fma() ? Isa::kNeonFma
                       : has_avx512f() ? Isa::kAvx512
                       : has_avx2_fma() ? Isa::kAvx2Fma
                       : has_avx()      ? Isa::kAvx
                                        : Isa::kSse2;
  return v;
}

bool cpu_runs(Isa i) {
  switch (i) {
    case Isa::kAvx512: return has_avx512f();
    case Isa::kAvx2Fma: return has_avx2_fma();
    case Isa::kAvx:
    case Isa::kSse2: return true;  // portable code
    case Isa::kNeonFma: return has_neon_fma();
  }
  return false;
}

const char* isa_name(Isa i) {
  switch (i) {
    case Isa::kAvx512: return "avx512f";
    case Isa::kAvx2Fma: return "avx2+fma3";
    case Isa::kAvx: return "avx";
    case Isa::kSse2: return "sse2";
    case Isa::kNeonFma: return "neon-fma";
  }
  return "?";
}

const char* fn_name(Fn f) {
  switch (f) {
    case Fn::kExp: return "exp";
    case Fn::kTanh: return "tanh";
    case Fn::kGelu: return "gelu";
    case Fn::kLog: return "log";
    case Fn::kHardswish: return "hardswish";
    case Fn::kSigmoid: return "sigmoid";
  }
  return "?";
}

void unary_f32_emulated(Fn f, Isa i, const float* x, float* y, int64_t n) {
  DenormalsOff daz;
  if (f == Fn::kSigmoid) {
    if (i == Isa::kAvx512) return sigmoid_avx512_emulated(x, y, n);
    if (i == Isa::kAvx2Fma || i == Isa::kNeonFma) return unary_kernel<LaneOps<true, false>>(f, x, y, n);
    return sigmoid_f32_scalar(x, y, n);  // not reproduced
  }
  switch (i) {
    case Isa::kAvx512: return unary_kernel<LaneOps<true, true>>(f, x, y, n);
    case Isa::kAvx2Fma:
    case Isa::kNeonFma: return unary_kernel<LaneOps<true, false>>(f, x, y, n);
    case Isa::kAvx:
    case Isa::kSse2: return unary_kernel<LaneOps<false, false>>(f, x, y, n);
  }
}

void unary_f32_isa(Fn f, Isa i, const float* x, float* y, int64_t n) {
  DenormalsOff daz;
  if (n <= 0) return;
#if defined(__x86_64__)
  if (i == Isa::kAvx512) {
    if (f == Fn::kSigmoid) return sigmoid_avx512f(x, y, n);
    return isa::unary_avx512(f, x, y, n);
  }
  if (i == Isa::kAvx2Fma) return isa::unary_avx2(f, x, y, n);
#endif
#if defined(__aarch64__)
  const bool neon = i == Isa::kNeonFma;
  if (neon && f != Fn::kLog) return isa::unary_neon(f, x, y, n);
#else
  const bool neon = false;
#endif
  if (f != Fn::kLog) return unary_f32_emulated(f, i, x, y, n);
  // The generic paths (CPUs without AVX2+FMA: older x86; ARM) promise no XNNPACK bits,
  // and the exponent trick of the kernel reads +inf and NaN as finite exponents
  // (log(+inf) would be 88.38): those lanes take log's IEEE values.
  // In blocks (y may be x), each element computed as one call would (one lane at a time).
  float in[64];
  for (int64_t j0 = 0; j0 < n; j0 += 64) {
    const int64_t m = n - j0 < 64 ? n - j0 : 64;
    std::memcpy(in, x + j0, static_cast<size_t>(m) * sizeof(float));
#if defined(__aarch64__)
    if (neon)
      isa::unary_neon(f, in, y + j0, m);
    else
#endif
      unary_f32_emulated(f, i, in, y + j0, m);
    (void)neon;
    for (int64_t j = 0; j < m; ++j)
      if (std::isnan(in[j]) || in[j] == INFINITY) y[j0 + j] = in[j] + in[j];  // +inf, or a quiet NaN
  }
}

void softmax_f32_emulated(Isa i, const float* x, float* y, int64_t n) {
  DenormalsOff daz;
  // AVX and SSE2 kernels (rr2_p5 with 8 and 4 lanes) are not reproduced; their arithmetic
  // is the same per element but not fused; the 8-lane form stands in
  if (i == Isa::kAvx512)
    softmax_emulated_w<16>(x, y, n);
  else if (i == Isa::kNeonFma)
    softmax_emulated_w<4>(x, y, n);
  else
    softmax_emulated_w<8>(x, y, n);
}

void softmax_f32_isa(Isa i, const float* x, float* y, int64_t n) {
  DenormalsOff daz;
  if (n <= 0) return;
#if defined(__x86_64__)
  if (i == Isa::kAvx512) return isa::softmax_avx512(x, y, n);
  if (i == Isa::kAvx2Fma) return isa::softmax_avx2(x, y, n);
#endif
#if defined(__aarch64__)
  if (i == Isa::kNeonFma) return isa::softmax_neon(x, y, n);
#endif
  softmax_f32_emulated(i, x, y, n);
}

void exp_f32(const float* x, float* y, int64_t n) { unary_f32_isa(Fn::kExp, detected_isa(), x, y, n); }
void tanh_f32(const float* x, float* y, int64_t n) { unary_f32_isa(Fn::kTanh, detected_isa(), x, y, n); }
void gelu_f32(const float* x, float* y, int64_t n) { unary_f32_isa(Fn::kGelu, detected_isa(), x, y, n); }
void log_f32(const float* x, float* y, int64_t n) { unary_f32_isa(Fn::kLog, detected_isa(), x, y, n); }
void hardswish_f32(const float* x, float* y, int64_t n) { unary_f32_isa(Fn::kHardswish, detected_isa(), x, y, n); }
void softmax_f32(const float* x, float* y, int64_t n) { softmax_f32_isa(detected_isa(), x, y, n); }

}  // namespace pte::xnn
