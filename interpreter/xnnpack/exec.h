// pte-run XNNPACK delegate: the execution plan and the node executors.
//
// A Plan is built once from a validated Graph: every runtime value gets a slot in one
// arena sized for its serialized (upper-bound) shape, constant weights are packed
// (conv filters to OIHW), and each node keeps what it needs. execute() binds the
// externals, then for each node re-propagates the output shape from the current
// input shapes (dynamic dims), checks it fits, and runs our kernels. Nothing is
// allocated at execute time.
//
// One executor file per node family: exec_elementwise.cpp (unary, binary, clamp,
// softmax), exec_linear.cpp (fully connected, batch matmul), exec_conv.cpp
// (convolutions, pooling), exec_shape.cpp (transpose, reshape, slice, concat, pad,
// copy), exec_quant.cpp (convert and the quantized fully connected kernels),
// exec_resize.cpp (bilinear resize), exec_half.cpp (fp16 / bf16 graphs on the fp32 kernels).
#pragma once
#include <cstdint>
#include <vector>

#include "interpreter/xnnpack/graph.h"
#include "ops/kernel.h"

namespace pte::xnn {

struct RtValue {
  Shape shape;                 // current shape
  uint8_t* data = nullptr;     // arena, constant or external memory
  size_t capacity = 0;         // bytes at data
  // qdint8 values: per-row quantization parameters (rows = capacity of the row arrays)
  float* row_scale = nullptr;
  int32_t* row_zp = nullptr;
  int64_t row_capacity = 0;
  Tensor* ext = nullptr;       // the bound ExecuTorch tensor (externals)
  int64_t rows() const;        // rows for qdint8 (product of the batch dims)
};

// Per-node data prepared at load.
struct Prepared {
  std::vector<float> w;        // packed fp32 weights (conv: OIHW)
  std::vector<int32_t> wsum;   // quantized FC: per output channel sums of the weights (qd8 zero-point correction)
  std::vector<int8_t> wq;      // quantized FC: unpacked int8 weights [N, K] (4-bit unpacked, minus the zero point)
  std::vector<float> ksum;     // blockwise FC: XNNPACK's packed zero-point term per output (qb4w_ksum)
};

struct State {
  const Graph* g = nullptr;
  std::vector<RtValue>* rt = nullptr;
  const std::vector<Prepared>* prep = nullptr;
  KernelContext* ctx = nullptr;
  size_t node_index = 0;

  RtValue& v(int32_t i) { return (*rt)[static_cast<size_t>(i)]; }
  const Value& meta(int32_t i) const { return g->values[static_cast<size_t>(i)]; }
  const Prepared& p() const { return (*prep)[node_index]; }
  // Sets the output shape: checks the arena / external capacity and resizes an
  // external output tensor. False (with ctx.fail) when it does not fit.
  bool set_shape(int32_t out, const Shape& s);
  template <class T>
  T* ptr(int32_t i) { return reinterpret_cast<T*>(v(i).data); }
};

// Checks node-specific constraints (operand types, constant filters, geometry) and
// prepares weights (load time); p == nullptr: checks only (pte-run info).
Status prepare_node(const Graph& g, const Node& n, Prepared* p);

// Executors (true on success; ctx.fail on error).
bool run_unary(State& s, const Node& n);
bool run_binary(State& s, const Node& n);
bool run_softmax(State& s, const Node& n);
bool run_fully_connected(State& s, const Node& n);
bool run_batch_matmul(State& s, const Node& n);
bool run_conv(State& s, const Node& n);
bool run_pooling(State& s, const Node& n);
bool run_global_avg_pool(State& s, const Node& n);
bool run_transpose(State& s, const Node& n);
bool run_reshape(State& s, const Node& n);
bool run_slice(State& s, const Node& n);
bool run_concat(State& s, const Node& n);
bool run_pad(State& s, const Node& n);
bool run_copy(State& s, const Node& n);
bool run_convert(State& s, const Node& n);
bool run_fully_connected_quantized(State& s, const Node& n);
bool run_resize_bilinear(State& s, const Node& n);
bool run_convert_half(State& s, const Node& n);
// fp16 / bf16 <-> fp32 (and fp16 <-> bf16) Convert nodes (exec_half.cpp; run_convert does the quantized ones).
bool is_half_convert(const Graph& g, const Node& n);
// Load-time rewrite of half-precision compute nodes onto the fp32 kernels (exec_half.cpp):
// half operands are read through fp32 twins (constants converted once, runtime values by
// an inserted Convert), half results written to an fp32 temporary and converted back.
// origin (optional): for every node of the new list, the index of the node it came from.
Status widen_half(Graph* g, std::vector<int32_t>* origin);
Status prepare_conv(const Graph& g, const Node& n, Prepared* p);
Status prepare_fully_connected(const Graph& g, const Node& n, Prepared* p);
Status prepare_fully_connected_quantized(const Graph& g, const Node& n, Prepared* p);

// Applies the node's fused output range to `count` floats (no-op for +-inf).
void clamp_output(const Node& n, float* y, int64_t count);

// qd8 x int8-weight GEMM kernels (exec_quant.cpp): y[m, n] for rows of int8
// activations xq [M, K] with per-row scale / zero point, weights wq [N, K] (int8,
// zero point removed), per-channel (or per-block) scales; fp32 out.
struct QGemm {
  int64_t M = 0, N = 0, K = 0;
  const int8_t* x = nullptr;       // [M, K]
  const float* x_scale = nullptr;  // [M] dequantization scale of each row (XNNPACK's 1 / multiplier)
  const int32_t* x_zp = nullptr;   // [M]
  const int8_t* w = nullptr;       // [N, K]
  const int32_t* wsum = nullptr;   // [N * blocks] sums of w over each block
  const float* w_scale = nullptr;  // [N * blocks]
  const float* ksum = nullptr;     // [N] blockwise only: XNNPACK's packed zero-point term (qb4w_ksum)
  int64_t block = 0;               // K / blocks (== K for per-channel)
  const float* bias = nullptr;     // [N] or null
  float* y = nullptr;              // [M, N]
};

// The float arithmetic of XNNPACK's qd8 x qb4w / qc8w / qc4w GEMMs, which the
// official runtime runs: every SIMD kernel here ends in these, so all of them give
// the same bits as the scalar reference (and as XNNPACK on the same inputs).
//
// Blockwise (qb4w): XNNPACK works on unsigned activations xu = x + 128 (zero point
// zp + 128) and, per output, starts from ksum * (zp + 128), then adds each block's
// integer dot product times the block scale with one fused multiply-add, in block
// order; then multiplies by the row's dequantization scale and adds the bias.
// `dot` is the signed block dot sum(x * w); sum(xu * w) = dot + 128 * wsum.
inline float qb4w_start(float ksum, int32_t zp) { return ksum * static_cast<float>(zp + 128); }
inline float qb4w_block(float acc, int32_t dot, int32_t wsum, float scale) {
  return __builtin_fmaf(static_cast<float>(dot + 128 * wsum), scale, acc);
}
inline float qb4w_finish(float acc, float x_scale, float bias) { return acc * x_scale + bias; }
// Per channel (qc8w / qc4w): the integer sum(x * w) - zp * sum(w), converted once,
// times the row scale, then one fused multiply-add with the channel scale and bias.
inline float qc_finish(int32_t acc, float x_scale, float w_scale, float bias) {
  return __builtin_fmaf(static_cast<float>(acc) * x_scale, w_scale, bias);
}
// XNNPACK's packed zero-point term of one output channel of a blockwise filter:
// starting from 0, minus (sum of each 16 consecutive weights) x its block's scale,
// in K order (the packing of its AVX-512 VNNI / AVX2 kernels, kr = 8, two planes).
float qb4w_ksum(const int8_t* w, int64_t K, int64_t block, const float* block_scales);

void qgemm_qd8_scalar(const QGemm& q, int64_t n0, int64_t n1);
void qgemm_qd8_avx2(const QGemm& q, int64_t n0, int64_t n1);
void qgemm_qd8(pthreadpool* pool, const QGemm& q, bool force_scalar = false);

}  // namespace pte::xnn
