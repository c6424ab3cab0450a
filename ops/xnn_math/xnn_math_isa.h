// pte-run XNNPACK delegate: entry points of the ISA translation units of xnn_math
// (xnn_math_avx512.cpp, xnn_math_avx2.cpp, xnn_math_neon.cpp); internal to xnn_math.cpp.
#pragma once
#include <cstdint>

#include "ops/xnn_math/xnn_math.h"

namespace pte::xnn::isa {

// Fn::kExp .. kHardswish (kSigmoid: see xnn_math.cpp's sigmoid_avx512f).
void unary_avx512(Fn f, const float* x, float* y, int64_t n);
void softmax_avx512(const float* x, float* y, int64_t n);
// every Fn, sigmoid as XNNPACK's AVX2 rr1_p5 kernel.
void unary_avx2(Fn f, const float* x, float* y, int64_t n);
void softmax_avx2(const float* x, float* y, int64_t n);
// aarch64 (xnn_math_neon.cpp): every Fn, the FMA3 forms' arithmetic with 4 lanes.
void unary_neon(Fn f, const float* x, float* y, int64_t n);
void softmax_neon(const float* x, float* y, int64_t n);

}  // namespace pte::xnn::isa
