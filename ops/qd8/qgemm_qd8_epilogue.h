// The qd8 float epilogue (see qgemm_qd8.h).
#pragma once
#if defined(__x86_64__)
#include <immintrin.h>  // the vector ops structs (x86 kernel files only)
#endif

#include <cstdint>

namespace pte::xnn {

// ---- THE float epilogue: the one place that fixes the rounding of every kernel ----
// (see the top of this file). The SIMD kernels apply it lane-wise (one output per lane)
// through an ops struct O {F, I, add, mul, fma, splat, to_float}; their files are compiled
// with fp-contract=off, so only these fma calls fuse. Include this header inside the
// kernel file's target region (after its push of the ISA): the templates then carry the
// ISA (clang requires it for vector arguments). always_inline besides: an out-of-line
// instance (an -O0 build) would otherwise be one more call per lane group.
template <class O>
__attribute__((always_inline)) inline typename O::F qd8_acc_init(typename O::F ksum, int32_t zp) {
  return O::mul(ksum, O::splat(static_cast<float>(zp + 128)));
}
template <class O>
__attribute__((always_inline)) inline typename O::F qd8_block_step(typename O::F acc, typename O::I dot, typename O::F scale) {
  return O::fma(O::to_float(dot), scale, acc);
}
template <class O>
__attribute__((always_inline)) inline typename O::F qd8_output(typename O::F acc, typename O::F x_scale, typename O::F bias) {
  return O::add(O::mul(acc, x_scale), bias);
}
template <class O>
__attribute__((always_inline)) inline typename O::F qd8_output_channel(typename O::I dot, typename O::F x_scale, typename O::F scale, typename O::F bias) {
  return O::fma(O::mul(O::to_float(dot), x_scale), scale, bias);
}

// The ops structs of the kernels (one lane type each). Qd8Ops1: the scalar reference and
// the AVX2 kernel's tails. The vector ones where the including file asks for them (defines
// PTE_QD8_OPS256 / PTE_QD8_OPS512 first, inside its ISA's target region).
struct Qd8Ops1 {
  using F = float;
  using I = int32_t;
  static F add(F a, F b) { return a + b; }
  static F mul(F a, F b) { return a * b; }
  static F fma(F a, F b, F c) { return __builtin_fmaf(a, b, c); }
  static F splat(float v) { return v; }
  static F to_float(I v) { return static_cast<F>(v); }
};
#if defined(PTE_QD8_OPS256)
struct Qd8Ops256 {
  using F = __m256;
  using I = __m256i;
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F fma(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  static F splat(float v) { return _mm256_set1_ps(v); }
  static F to_float(I v) { return _mm256_cvtepi32_ps(v); }
};
#endif
#if defined(PTE_QD8_OPS512)
struct Qd8Ops512 {
  using F = __m512;
  using I = __m512i;
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F fma(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static F splat(float v) { return _mm512_set1_ps(v); }
  static F to_float(I v) { return _mm512_cvtepi32_ps(v); }
};
#endif

}  // namespace pte::xnn
