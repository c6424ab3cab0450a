// pte-run XNNPACK delegate: the approximations XNNPACK's own microkernels use for
// reciprocal square root and sigmoid, reproduced so that a delegated graph gives
// the official runtime's bits on the same machine (it picks its kernel by ISA; so do
// we). Programs that quantize activations after these ops (8da4w: per-row int8)
// flip whole quantization steps on a 1-ulp difference, so "close" is not enough.
//
//   rsqrt:   AVX-512F: rsqrt14 estimate + one Newton-Raphson step (y - (x*y*y - 1) * (y/2))
//            AVX:      rsqrt (12-bit) estimate + the same step
//            else:     1 / sqrt(x)
//   sqrt:    x times the rsqrt above (without its +inf case), 0 for x == 0: XNNPACK's
//            vsqrt "rsqrt" kernels (AVX-512F, AVX); else std::sqrt
//   sigmoid: AVX-512F: exp(-|x|) from a 32-entry 2^(i/32) table and a degree-2
//            polynomial (two-constant ln2 reduction), scaled by 2^n, then e / (e + 1),
//            mirrored for x >= 0
//            AVX2+FMA: exp(-|x|) by one-constant reduction and a degree-5 polynomial
//            else:     1 / (1 + exp(-x)) (XNNPACK's AVX and SSE kernels are not reproduced)
//   exp, tanh, gelu, log, hardswish: XNNPACK's rational (resp. (3,2) after 2^z splitting,
//            odd (9,8), odd (12,10) erf, (3,3) after exponent extraction) and
//            clamp-multiply kernels; AVX-512F and FMA3 use the same fused arithmetic,
//            AVX/SSE the same with separate multiply and add (xnn_math_kernels.h)
//   softmax: rmax, then exp(x - max) (two-constant ln2 reduction, degree-5
//            polynomial) summed in XNNPACK's accumulator order (16 or 8 lanes, two
//            accumulators over blocks of four vectors, halving tree), then times 1/sum
//   sin, cos: XNNPACK's rational (5,4) approximation after reduction by 2*pi (split in
//            two constants) into [-pi/2, pi/2]; its kernels use fused multiply-adds on
//            every x86 ISA with FMA, so one scalar form with fmaf gives their bits.
//
// Denormals: XNNPACK runs every operator with the MXCSR flush-to-zero and
// denormals-are-zero bits set (pthreadpool's PTHREADPOOL_FLAG_DISABLE_DENORMALS), which
// changes tiny results (a sigmoid of -100 is 0, a log of 1e-40 is -inf). The functions
// below run under DenormalsOff, and so does the delegate's whole execute (backend.cpp).
#pragma once
#include <cstdint>

#include "ops/isa.h"

namespace pte::xnn {

// Scoped flush-to-zero / denormals-are-zero, restored on exit (x86 MXCSR FTZ | DAZ;
// ARM FPCR.FZ / FPSCR.FZ: ops/isa.h).
using DenormalsOff = pte::isa::DenormalsOff;

void rsqrt_f32(const float* x, float* y, int64_t n);
void sqrt_f32(const float* x, float* y, int64_t n);
void sigmoid_f32(const float* x, float* y, int64_t n);
void sin_f32(const float* x, float* y, int64_t n);
void cos_f32(const float* x, float* y, int64_t n);

// The portable forms, always available (tests compare the ISA paths against them; they
// do not set DenormalsOff).
void rsqrt_f32_scalar(const float* x, float* y, int64_t n);
void sigmoid_f32_scalar(const float* x, float* y, int64_t n);

// The x86 kernel classes XNNPACK chooses between (its unary configs): AVX-512F, then
// FMA3 (with AVX2: the sigmoid and softmax kernels need it), then AVX, then SSE2; and on
// aarch64 kNeonFma: the FMA3 forms' arithmetic in NEON (fast and as accurate; not the bits
// of XNNPACK's own ARM kernels), with log's IEEE values for +inf and NaN.
enum class Isa : int { kAvx512, kAvx2Fma, kAvx, kSse2, kNeonFma };
Isa detected_isa();                 // the class XNNPACK picks on this CPU
bool cpu_runs(Isa isa);             // this CPU can execute pte-run's code for `isa`
const char* isa_name(Isa isa);

enum class Fn : int { kExp, kTanh, kGelu, kLog, kHardswish, kSigmoid };
const char* fn_name(Fn f);

// f over x[0, n) as XNNPACK computes it on this CPU (SIMD where pte-run has a form).
void exp_f32(const float* x, float* y, int64_t n);
void tanh_f32(const float* x, float* y, int64_t n);
void gelu_f32(const float* x, float* y, int64_t n);
void log_f32(const float* x, float* y, int64_t n);
void hardswish_f32(const float* x, float* y, int64_t n);
// One softmax row of n >= 0 elements (XNNPACK's softmax_nc_f32 on this CPU).
void softmax_f32(const float* x, float* y, int64_t n);

// For tests: the form pte-run runs for `isa` (requires cpu_runs(isa)), and a portable
// lane-by-lane emulation of XNNPACK's kernel for `isa` (std::fma where it fuses).
// Sigmoid on kAvx and kSse2 has no emulation (the 1 / (1 + exp(-x)) fallback runs).
void unary_f32_isa(Fn f, Isa isa, const float* x, float* y, int64_t n);
void unary_f32_emulated(Fn f, Isa isa, const float* x, float* y, int64_t n);
void softmax_f32_isa(Isa isa, const float* x, float* y, int64_t n);
void softmax_f32_emulated(Isa isa, const float* x, float* y, int64_t n);

}  // namespace pte::xnn
