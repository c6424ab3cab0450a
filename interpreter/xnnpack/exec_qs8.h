// pte-run XNNPACK delegate: statically quantized int8 (qs8) nodes (exec_qs8.cpp).
//
// The arithmetic of XNNPACK's qs8 operators, which the official runtime runs:
//   Conv2d / DepthwiseConv2d  qint8 x qcint8 (per output channel) or qint8 (per tensor),
//                             int32 bias -> qint8: fp32 requantization per channel
//   Add                       qint8 + qint8 -> qint8: XNNPACK's fixed-point rule (20-bit multipliers)
//   Multiply                  qint8 * qint8 -> qint8: fp32 requantization of the product
//   MaxPooling2d, Clamp       qint8 -> qint8 with the same quantization (max / clamp on the integers)
//   GlobalAvgPooling2d        qint8 -> qint8: integer sum, one fp32 multiply-add, round, saturate
#pragma once
#include <cstdint>

#include "interpreter/xnnpack/exec.h"

namespace pte::xnn {

// A fused activation bound in the quantized domain (XNNPACK's xnn_qs8_quantize):
// round-to-nearest-even of clamp(v / scale + zp, -128, 127); -inf / +inf give -128 / 127.
int32_t qs8_quantize_bound(float v, float scale, int32_t zp);

// fp32 requantization (XNNPACK's qs8 GEMM / conv / mul epilogue): acc * scale in fp32,
// clamped to [lo - zp, hi - zp], rounded to nearest even, plus the output zero point.
inline int8_t qs8_requantize(int32_t acc, float scale, int32_t zp, int32_t lo, int32_t hi) {
  float f = static_cast<float>(acc) * scale;
  const float flo = static_cast<float>(lo - zp), fhi = static_cast<float>(hi - zp);
  f = f < flo ? flo : f;
  f = f > fhi ? fhi : f;
  return static_cast<int8_t>(static_cast<int32_t>(__builtin_nearbyintf(f)) + zp);
}

// qs8 addition: y = asr(bias + a * a_mult + b * b_mult, shift) + zp, clamped to [lo, hi];
// the multipliers are the scale ratios a_scale / y_scale, b_scale / y_scale with 20 bits
// for the larger one, bias = 2^(shift-1) - a_mult * a_zp - b_mult * b_zp.
struct QS8Add {
  int32_t bias = 0, a_mult = 0, b_mult = 0;
  uint32_t shift = 0;
  int32_t zp = 0, lo = -128, hi = 127;
};
// False when a ratio is outside XNNPACK's supported range [2^-10, 2^8).
bool qs8_add_params(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float y_scale, int32_t y_zp, QS8Add* out);
inline int8_t qs8_add(int32_t a, int32_t b, const QS8Add& p) {
  int32_t v = ((p.bias + a * p.a_mult + b * p.b_mult) >> p.shift) + p.zp;
  v = v < p.lo ? p.lo : v;
  v = v > p.hi ? p.hi : v;
  return static_cast<int8_t>(v);
}

// qs8 mean of n values: the integer sum s of the raw int8 values, then
// round(s * scale + offset) saturated to int8, with scale = (x_scale / y_scale) * (1 / n)
// and offset = y_zp - (n * x_zp) * scale (XNNPACK's reduce-mean int32 -> qs8 conversion).
struct QS8Mean {
  float scale = 1.0f, offset = 0.0f;
};
QS8Mean qs8_mean_params(float x_scale, int32_t x_zp, float y_scale, int32_t y_zp, int64_t n);
int8_t qs8_mean(int32_t sum, const QS8Mean& p);

// True when `n` computes on qint8 / quint8 activations and belongs to exec_qs8.cpp
// (static int8 FullyConnected and Convert stay in exec_quant.cpp).
bool is_qs8_node(const Graph& g, const Node& n);
// Shape nodes (transpose, reshape, slice, concatenate, copy) move qint8 / quint8 bytes
// unchanged: every input must carry the output's scale and zero point (XNNPACK's rule).
Status check_q8_passthrough(const Graph& g, const Node& n);
Status prepare_qs8(const Graph& g, const Node& n, Prepared* p);
bool run_qs8(State& s, const Node& n);

}  // namespace pte::xnn
