// pte-run XNNPACK delegate: XNNPACK-compatible rsqrt and sigmoid (see xnn_math.h).
#include "interpreter/xnnpack/xnn_math.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>

namespace pte::xnn {

namespace {

bool has_avx512f() {
  static const bool v = __builtin_cpu_supports("avx512f");
  return v;
}
bool has_avx() {
  static const bool v = __builtin_cpu_supports("avx");
  return v;
}

// Both: one Newton-Raphson step for 1/sqrt(x) from the estimate y, operation by
// operation as XNNPACK writes it (no fused multiply-add): y - (x*(y*y) - 1) * (0.5*y);
// and 0 for +inf.
__attribute__((target("avx512f"))) void rsqrt_avx512f(const float* x, float* y, int64_t n) {
  const __m512 one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f), inf = _mm512_set1_ps(INFINITY);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 vx = _mm512_maskz_loadu_ps(m, x + i);
    __m512 vy = _mm512_rsqrt14_ps(vx);
    const __m512 t = _mm512_sub_ps(_mm512_mul_ps(vx, _mm512_mul_ps(vy, vy)), one);
    vy = _mm512_sub_ps(vy, _mm512_mul_ps(t, _mm512_mul_ps(half, vy)));
    vy = _mm512_maskz_mov_ps(static_cast<__mmask16>(~_mm512_cmp_ps_mask(vx, inf, _CMP_EQ_OQ)), vy);
    _mm512_mask_storeu_ps(y + i, m, vy);
  }
}

__attribute__((target("avx"))) void rsqrt_avx(const float* x, float* y, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f), inf = _mm256_set1_ps(INFINITY);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 vx = _mm256_loadu_ps(x + i);
    __m256 vy = _mm256_rsqrt_ps(vx);
    const __m256 t = _mm256_sub_ps(_mm256_mul_ps(vx, _mm256_mul_ps(vy, vy)), one);
    vy = _mm256_sub_ps(vy, _mm256_mul_ps(t, _mm256_mul_ps(half, vy)));
    _mm256_storeu_ps(y + i, _mm256_andnot_ps(_mm256_cmp_ps(vx, inf, _CMP_EQ_OQ), vy));
  }
  if (i < n) {
    float bx[8] = {1, 1, 1, 1, 1, 1, 1, 1}, by[8];
    std::memcpy(bx, x + i, static_cast<size_t>(n - i) * sizeof(float));
    rsqrt_avx(bx, by, 8);
    std::memcpy(y + i, by, static_cast<size_t>(n - i) * sizeof(float));
  }
}

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

template <bool Cos>
__attribute__((target("fma"))) void sincos_fma(const float* x, float* y, int64_t n) {
  sincos_body<Cos>(x, y, n);
}
template <bool Cos>
void sincos_plain(const float* x, float* y, int64_t n) {
  sincos_body<Cos>(x, y, n);  // std::fma from libm: the same bits, slower
}

bool has_fma() {
  static const bool v = __builtin_cpu_supports("fma");
  return v;
}

}  // namespace

void sin_f32(const float* x, float* y, int64_t n) {
  if (has_fma())
    sincos_fma<false>(x, y, n);
  else
    sincos_plain<false>(x, y, n);
}

void cos_f32(const float* x, float* y, int64_t n) {
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
  if (has_avx512f())
    rsqrt_avx512f(x, y, n);
  else if (has_avx())
    rsqrt_avx(x, y, n);
  else
    rsqrt_f32_scalar(x, y, n);
}

void sigmoid_f32(const float* x, float* y, int64_t n) {
  if (has_avx512f())
    sigmoid_avx512f(x, y, n);
  else
    sigmoid_f32_scalar(x, y, n);
}

}  // namespace pte::xnn
