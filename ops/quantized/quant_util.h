// pte-run quantized kernels: shared helpers (quantized dtype ranges, reading
// ScalarType arguments, generic element reads, the quantize/dequantize formulas).
//
// Formulas, as ExecuTorch's quantized kernels (and torch's decomposed ops) compute them:
//   quantize:   q = clamp(zero_point + nearbyint(float(x * (1.0f / float(scale)))), qmin, qmax)
//               (nearbyint rounds half to even in the default rounding mode)
//   dequantize: x = float(q - zero_point) * float(scale)
#pragma once
#include <cmath>
#include <cstdint>

#include "ops/util.h"

namespace pte::quant {

// Range of a quantized integer dtype; false for a dtype that is not one.
bool qrange(DType dt, int64_t* lo, int64_t* hi);

// Reads a ScalarType argument (an Int holding the ExecuTorch dtype number).
bool read_dtype(KernelContext& ctx, const EValue* v, const char* what, DType* out);
// Same, None allowed (*has = false).
bool read_optional_dtype(KernelContext& ctx, const EValue* v, const char* what, DType* out, bool* has);

// Element `i` (logical, C order) of a numeric tensor of any dtype, as double.
double element(const Tensor& t, int64_t i);

// Checks quant_min/quant_max against the quantized dtype's range.
bool check_qparams(KernelContext& ctx, const char* op, DType qdt, int64_t qmin, int64_t qmax);

// Physical offset of logical index i (contiguous fast case without divisions).
inline int64_t offset_of(const Tensor& t, bool contiguous, int64_t i) { return contiguous ? i : strided_offset(t, i); }

template <class Q, class F>
inline Q quantize_val(float inv_scale, int64_t zero_point, F x, int64_t qmin, int64_t qmax) {
  const float v = static_cast<float>(inv_scale * x);
  int64_t q = static_cast<int64_t>(static_cast<int32_t>(zero_point) + std::nearbyint(v));
  q = q < qmin ? qmin : q > qmax ? qmax : q;
  return static_cast<Q>(q);
}

template <class Q>
inline float dequantize_val(Q q, int64_t zero_point, float scale) {
  return static_cast<float>(static_cast<int32_t>(q) - static_cast<int32_t>(zero_point)) * scale;
}

// Dispatch over quantized storage types: binds Q.
#define PTE_QUANT_CASES(...)                            \
  case ::pte::DType::UInt8: {                           \
    using Q = uint8_t;                                  \
    __VA_ARGS__;                                        \
    break;                                              \
  }                                                     \
  case ::pte::DType::Int8: {                            \
    using Q = int8_t;                                   \
    __VA_ARGS__;                                        \
    break;                                              \
  }                                                     \
  case ::pte::DType::Int16: {                           \
    using Q = int16_t;                                  \
    __VA_ARGS__;                                        \
    break;                                              \
  }                                                     \
  case ::pte::DType::UInt16:                            \
  case ::pte::DType::Bits16: {                          \
    using Q = uint16_t;                                 \
    __VA_ARGS__;                                        \
    break;                                              \
  }                                                     \
  case ::pte::DType::Int32: {                           \
    using Q = int32_t;                                  \
    __VA_ARGS__;                                        \
    break;                                              \
  }

// Dispatch over float element types: binds F.
#define PTE_QFLOAT_CASES(...)                           \
  case ::pte::DType::Float: {                           \
    using F = float;                                    \
    __VA_ARGS__;                                        \
    break;                                              \
  }                                                     \
  case ::pte::DType::Double: {                          \
    using F = double;                                   \
    __VA_ARGS__;                                        \
    break;                                              \
  }                                                     \
  case ::pte::DType::Half: {                            \
    using F = ::pte::Half;                              \
    __VA_ARGS__;                                        \
    break;                                              \
  }                                                     \
  case ::pte::DType::BFloat16: {                        \
    using F = ::pte::BFloat16;                          \
    __VA_ARGS__;                                        \
    break;                                              \
  }

}  // namespace pte::quant

namespace pte::quant {

// Block b's quantization parameters, behind a function pointer (state = the caller's functor).
using ParamsFn = void (*)(const void* state, int64_t b, double* scale, int64_t* zero_point);

// Quantizes x (any floating dtype) into y (a quantized dtype, same shape, any dim
// orders) in blocks of `block` consecutive logical elements, with the formula above.
// Rows are converted at the edges: computed in float (double for a double input),
// stored through one switch on y's dtype per chunk. Fails on unsupported dtypes.
bool quantize_run(KernelContext& ctx, const char* op, const Tensor& x, Tensor& y, int64_t block, int64_t qmin,
                  int64_t qmax, ParamsFn params, const void* state);
// The inverse: y (any floating dtype) = (q - zero_point) * scale per block, in float.
bool dequantize_run(KernelContext& ctx, const char* op, const Tensor& x, Tensor& y, int64_t block, ParamsFn params,
                    const void* state);

// params(b, &scale, &zero_point) gives block b's parameters.
template <class Params>
bool quantize_dispatch(KernelContext& ctx, const char* op, const Tensor& x, Tensor& y, int64_t block, int64_t qmin,
                       int64_t qmax, const Params& params) {
  return quantize_run(ctx, op, x, y, block, qmin, qmax,
                      [](const void* st, int64_t b, double* s, int64_t* z) { (*static_cast<const Params*>(st))(b, s, z); },
                      &params);
}

template <class Params>
bool dequantize_dispatch(KernelContext& ctx, const char* op, const Tensor& x, Tensor& y, int64_t block,
                         const Params& params) {
  return dequantize_run(ctx, op, x, y, block,
                        [](const void* st, int64_t b, double* s, int64_t* z) { (*static_cast<const Params*>(st))(b, s, z); },
                        &params);
}

}  // namespace pte::quant
