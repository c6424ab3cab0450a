// pte-run XNNPACK delegate: the approximations XNNPACK's own microkernels use for
// reciprocal square root and sigmoid, reproduced so that a delegated graph gives
// the official runtime's bits on the same machine (it picks its kernel by ISA; so do
// we). Programs that quantize activations after these ops (8da4w: per-row int8)
// flip whole quantization steps on a 1-ulp difference, so "close" is not enough.
//
//   rsqrt:   AVX-512F: rsqrt14 estimate + one Newton-Raphson step (y - (x*y*y - 1) * (y/2))
//            AVX:      rsqrt (12-bit) estimate + the same step
//            else:     1 / sqrt(x)
//   sigmoid: AVX-512F: exp(-|x|) from a 32-entry 2^(i/32) table and a degree-2
//            polynomial (two-constant ln2 reduction), scaled by 2^n, then e / (e + 1),
//            mirrored for x >= 0
//            else:     1 / (1 + exp(-x)) (XNNPACK's AVX2/SSE kernels are not reproduced)
//   sin, cos: XNNPACK's rational (5,4) approximation after reduction by 2*pi (split in
//            two constants) into [-pi/2, pi/2]; its kernels use fused multiply-adds on
//            every x86 ISA with FMA, so one scalar form with fmaf gives their bits.
#pragma once
#include <cstdint>

namespace pte::xnn {

void rsqrt_f32(const float* x, float* y, int64_t n);
void sigmoid_f32(const float* x, float* y, int64_t n);
void sin_f32(const float* x, float* y, int64_t n);
void cos_f32(const float* x, float* y, int64_t n);

// The portable forms, always available (tests compare the ISA paths against them).
void rsqrt_f32_scalar(const float* x, float* y, int64_t n);
void sigmoid_f32_scalar(const float* x, float* y, int64_t n);

}  // namespace pte::xnn
