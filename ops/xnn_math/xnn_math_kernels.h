// pte-run XNNPACK delegate: the per-lane arithmetic of XNNPACK's transcendental
// microkernels (see xnn_math.h), written once over an "ops" type S so the same source
// gives the scalar emulation (S::V = float, xnn_math.cpp) and the SIMD forms
// (S::V = __m512 / __m256, xnn_math_avx512.cpp / xnn_math_avx2.cpp). Internal header:
// include it inside the translation unit's ISA target region, after defining S.
//
// S provides, with x86 semantics:
//   V c(float)                        broadcast constant
//   V bits(uint32_t)                  broadcast bit pattern
//   add sub mul div                   IEEE single precision, no contraction
//   fmadd(a, b, c)                    a*b+c: one rounding when S::kFma, else two (XNNPACK's
//                                     non-FMA kernels write mul + add)
//   min(a, b), max(a, b)              minps/maxps: b when either is NaN, b on (-0, +0) ties
//   bor band                          bitwise on the float bits
//   sll23(v)                          integer shift left of the bits by 23
//   getexp(v)                         XNNPACK's signed getexp for vlog: floor(log2|v|), -inf for
//                                     0, NaN for v < 0 (ISA-specific for denormals, inf)
//   zero_if_lt(f, a, b)               f where !(a < b) (ordered), else +0
//   blend_sign(if_neg, if_pos, x)     blendvps: if_neg where x has its sign bit set
// and, for the loops (map_kernel, softmax_kernel; SIMD types only):
//   kLanes; load(p), store(p, v); load_tail(p, k) (zeros past k), store_tail(p, v, k);
//   add_tail(acc, f, k): acc + f in the first k lanes, acc elsewhere
#pragma once
#include <cstdint>

#include "ops/xnn_math/xnn_math.h"

namespace pte::xnn {
namespace {

// --- exp: rational (3, 2) approximation of 2^r after splitting x*log2(e) = z + r;
// 2^z built in the exponent bits (z clamped to [-127, 128]: 0 and inf).
template <class S>
inline typename S::V exp_kernel(typename S::V x) {
  using V = typename S::V;
  const V a1 = S::c(4.1594290733e-01f), a2 = S::c(7.2068706155e-02f), a3 = S::c(5.5380910635e-03f);
  const V b1 = S::c(-2.7720427513e-01f), b2 = S::c(2.3986088112e-02f);
  const V one = S::c(1.0f);
  V zp = S::mul(x, S::c(1.44269504089f));
  zp = S::min(S::max(zp, S::c(-127.0f)), S::c(128.0f));
  const V round_magic = S::c(12582912.0f);  // 2^23 + 2^22: (v + m) - m rounds to an integer
  const V z = S::sub(S::add(round_magic, zp), round_magic);
  const V r = S::sub(zp, z);
  const V two_z = S::sll23(S::add(z, S::c(8388735.0f)));  // 2^23 + 127: biased exponent in the low bits
  V p = S::fmadd(r, a3, a2);
  p = S::fmadd(r, p, a1);
  p = S::fmadd(r, p, one);
  V q = S::fmadd(r, b2, b1);
  q = S::fmadd(r, q, one);
  return S::mul(two_z, S::div(p, q));
}

// --- tanh: odd rational (9, 8) on x clamped to the point where it rounds to +-1.
template <class S>
inline typename S::V tanh_kernel(typename S::V x) {
  using V = typename S::V;
  const float cap = S::kFma ? 7.9807181358e+00f : 7.8522667885e+00f;
  x = S::min(S::c(cap), x);
  x = S::max(S::c(-cap), x);
  const V x2 = S::mul(x, x);
  const V one = S::c(1.0f);
  V p = S::fmadd(x2, S::c(1.4248920266e-08f), S::c(2.1235626264e-05f));
  p = S::fmadd(x2, p, S::c(3.5330520477e-03f));
  p = S::fmadd(x2, p, S::c(1.3412411511e-01f));
  p = S::fmadd(x2, p, one);
  p = S::mul(x, p);
  V q = S::fmadd(x2, S::c(8.1365948290e-07f), S::c(3.3472978976e-04f));
  q = S::fmadd(x2, q, S::c(2.6018999517e-02f));
  q = S::fmadd(x2, q, S::c(4.6745735407e-01f));
  q = S::fmadd(x2, q, one);
  return S::div(p, q);
}

// --- gelu: x/2 * (1 + erf(x/sqrt 2)), erf(x/sqrt 2) as an odd rational (12, 10) in x.
template <class S>
inline typename S::V gelu_kernel(typename S::V x0) {
  using V = typename S::V;
  const V cap = S::c(S::kFma ? 5.1638283730e+00f : 5.1158981323e+00f);
  V x = S::min(cap, x0);
  x = S::max(S::sub(S::c(0.0f), cap), x);
  const V x2 = S::mul(x, x);
  V p = S::fmadd(x2, S::c(4.5835321316e-08f), S::c(1.2609783880e-05f));
  p = S::fmadd(x2, p, S::c(3.2973114867e-04f));
  p = S::fmadd(x2, p, S::c(9.3065137044e-03f));
  p = S::fmadd(x2, p, S::c(6.6972173750e-02f));
  p = S::fmadd(x2, p, S::c(7.9788452387e-01f));
  p = S::mul(x, p);
  V q = S::fmadd(x2, S::c(1.1988805682e-06f), S::c(7.2267655923e-05f));
  q = S::fmadd(x2, q, S::c(1.8622842617e-03f));
  q = S::fmadd(x2, q, S::c(2.8431978077e-02f));
  q = S::fmadd(x2, q, S::c(2.5060352683e-01f));
  q = S::fmadd(x2, q, S::c(1.0f));
  const V erf = S::div(p, q);
  return S::mul(S::mul(x0, S::c(0.5f)), S::add(erf, S::c(1.0f)));
}

// --- hardswish: x * clamp(x/6 + 1/2, 0, 1), the x/6 + 1/2 as one multiply-add.
template <class S>
inline typename S::V hardswish_kernel(typename S::V x) {
  using V = typename S::V;
  V a = S::fmadd(x, S::c(0x1.555556p-3f), S::c(0.5f));
  a = S::max(a, S::c(0.0f));
  a = S::min(a, S::c(1.0f));
  return S::mul(a, x);
}

// --- log: e*ln2 + log(m) for m in [sqrt(1/2), sqrt 2): x scaled by sqrt 2 first so the
// exponent rounds up, the mantissa put back to [1, 2) and scaled by 1/sqrt 2; log(1 + t)
// as a rational (3, 3) with p = t (1 + t (1 + a3 t)).
template <class S>
inline typename S::V log_kernel(typename S::V x) {
  using V = typename S::V;
  const V one = S::c(1.0f);
  x = S::mul(x, S::c(1.4142134190e+00f));  // sqrt2 * sqrt1_2 == 1 exactly in float
  const V e = S::getexp(x);
  x = S::bor(S::band(x, S::bits(0x007FFFFFu)), one);
  x = S::sub(S::mul(x, S::c(7.0710688829e-01f)), one);
  V p = S::fmadd(x, S::c(1.824996918440e-01f), one);
  p = S::fmadd(x, p, one);
  p = S::mul(x, p);
  V q = S::fmadd(x, S::c(0.049584995955f), S::c(0.599170029163f));
  q = S::fmadd(x, q, S::c(1.5f));
  q = S::fmadd(x, q, one);
  return S::fmadd(e, S::c(0.69314718055994531f), S::div(p, q));
}

// --- exp(z) for z <= 0 as the p5 kernels compute it: n = round(z / ln2) by the magic-bias
// add (whose bits, shifted, are s = 2^n), t = z - n ln2 with one constant (Ln2Lo == 0) or
// two, then s + (t s) p(t) with p of degree 5 in Horner form.
template <class S>
inline typename S::V exp_p5(typename S::V z, float minus_ln2_hi, float minus_ln2_lo) {
  using V = typename S::V;
  const V magic = S::c(0x1.8000FEp23f);  // 1.5 * 2^23 + 127: round and bias in one add
  V n = S::fmadd(z, S::c(0x1.715476p0f), magic);
  const V s = S::sll23(n);
  n = S::sub(n, magic);
  V t = S::fmadd(n, S::c(minus_ln2_hi), z);
  if (minus_ln2_lo != 0.0f) t = S::fmadd(n, S::c(minus_ln2_lo), t);
  V p = S::fmadd(S::c(0x1.0F9F9Cp-7f), t, S::c(0x1.573A1Ap-5f));
  p = S::fmadd(p, t, S::c(0x1.555A80p-3f));
  p = S::fmadd(p, t, S::c(0x1.FFFDC6p-2f));
  p = S::fmadd(p, t, S::c(0x1.FFFFF6p-1f));
  t = S::mul(t, s);
  return S::fmadd(t, p, s);
}

// --- sigmoid, XNNPACK's AVX2 kernel (rr1_p5_div): e = exp(-|x|) (one-constant ln2),
// e / (e + 1), 0 below the denormal cutoff, mirrored (1 - f) for x with a clear sign bit.
template <class S>
inline typename S::V sigmoid_p5_kernel(typename S::V x) {
  using V = typename S::V;
  const V z = S::bor(x, S::bits(0x80000000u));
  const V e = exp_p5<S>(z, -0x1.62E430p-1f, 0.0f);
  const V one = S::c(1.0f);
  V f = S::div(e, S::add(e, one));
  f = S::zero_if_lt(f, z, S::c(-0x1.5D589Ep+6f));
  return S::blend_sign(f, S::sub(one, f), x);
}

// --- softmax's exp(x - max) (raddstoreexpminusmax rr2_p5): two-constant ln2, 0 below the
// denormal cutoff. `x` is already x - max.
template <class S>
inline typename S::V expminus_kernel(typename S::V x) {
  return S::zero_if_lt(exp_p5<S>(x, -0x1.62E400p-1f, -0x1.7F7D1Cp-20f), x, S::c(-0x1.5D589Ep6f));
}

// --- y = K(x) over n elements, full vectors then one tail.
template <class S, typename S::V (*K)(typename S::V)>
inline void map_kernel(const float* x, float* y, int64_t n) {
  constexpr int W = S::kLanes;
  int64_t i = 0;
  for (; i + W <= n; i += W) S::store(y + i, K(S::load(x + i)));
  if (i < n) S::store_tail(y + i, K(S::load_tail(x + i, static_cast<int>(n - i))), static_cast<int>(n - i));
}

// --- XNNPACK's softmax_nc_f32 on one row of n >= 1: max (rmax); exp(x - max) stored and
// summed (raddstoreexpminusmax: blocks of 4 vectors into two accumulators, then single
// vectors, then the tail, then a halving tree over the lanes); y *= 1 / sum (vmulc).
template <class S>
inline void softmax_kernel(const float* x, float* y, int64_t n) {
  using V = typename S::V;
  constexpr int W = S::kLanes;
  float mx = x[0];
  for (int64_t i = 1; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  const V vmax = S::c(mx);
  V acc0 = S::c(0.0f), acc1 = S::c(0.0f);
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    V f[4];
    for (int b = 0; b < 4; ++b) {
      f[b] = expminus_kernel<S>(S::sub(S::load(x + i + b * W), vmax));
      S::store(y + i + b * W, f[b]);
    }
    acc0 = S::add(acc0, f[0]);
    acc1 = S::add(acc1, f[1]);
    acc0 = S::add(acc0, f[2]);
    acc1 = S::add(acc1, f[3]);
  }
  V acc = S::add(acc0, acc1);
  for (; i + W <= n; i += W) {
    const V f = expminus_kernel<S>(S::sub(S::load(x + i), vmax));
    S::store(y + i, f);
    acc = S::add(acc, f);
  }
  if (i < n) {
    const int k = static_cast<int>(n - i);
    const V f = expminus_kernel<S>(S::sub(S::load_tail(x + i, k), vmax));
    S::store_tail(y + i, f, k);
    acc = S::add_tail(acc, f, k);
  }
  alignas(64) float h[W];
  S::store(h, acc);
  for (int w = W / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) h[l] = h[l] + h[l + w];
  const V scale = S::c(1.0f / h[0]);
  for (i = 0; i + W <= n; i += W) S::store(y + i, S::mul(S::load(y + i), scale));
  if (i < n) S::store_tail(y + i, S::mul(S::load_tail(y + i, static_cast<int>(n - i)), scale), static_cast<int>(n - i));
}

// --- the elementwise Fn on an ISA's ops type.
template <class S>
inline void unary_kernel(Fn f, const float* x, float* y, int64_t n) {
  switch (f) {
    case Fn::kExp: return map_kernel<S, exp_kernel<S>>(x, y, n);
    case Fn::kTanh: return map_kernel<S, tanh_kernel<S>>(x, y, n);
    case Fn::kGelu: return map_kernel<S, gelu_kernel<S>>(x, y, n);
    case Fn::kLog: return map_kernel<S, log_kernel<S>>(x, y, n);
    case Fn::kHardswish: return map_kernel<S, hardswish_kernel<S>>(x, y, n);
    case Fn::kSigmoid: return map_kernel<S, sigmoid_p5_kernel<S>>(x, y, n);
  }
}

}  // namespace
}  // namespace pte::xnn
