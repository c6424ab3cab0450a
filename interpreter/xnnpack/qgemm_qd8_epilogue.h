// The qd8 float epilogue (see qgemm_qd8.h).
#pragma once
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

}  // namespace pte::xnn
