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
#include <memory>
#include <vector>

#include "interpreter/xnnpack/graph.h"
#include "memory_planner/pack_arena.h"
#include "ops/kernel.h"
#include "ops/linalg/conv_nhwc.h"
#include "ops/linalg/xnn_library.h"
#include "ops/linalg/xnn_library_conv.h"

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
  // quantized FC. Static int8: wq = the filter as int8 [N, K], w = per-channel scales.
  // qd8 (qgemm_qd8.h): wdata = the filter rows (in the file, or wq for a transposed int8
  // filter), w / wsum = per-block scales / weight sums [blocks, N] (blockwise 4-bit:
  // scale_bf16 / wsum16 instead).
  std::vector<int32_t> wsum;
  std::vector<int16_t> wsum16;
  std::vector<float> ksum;           // blockwise 4-bit: XNNPACK's zero-point term per column (qd8_ksum_u4)
  uint8_t* wpack = nullptr;          // 4-bit: the filter repacked for the SIMD kernels (qd8_pack_u4),
                                     // in `arena` (or own_wpack)
  std::unique_ptr<uint8_t[]> own_wpack;
  // Where load-time packing goes (the delegate instance's: huge pages, memory_planner/pack_arena.h);
  // null: the node's own allocation
  planner::PackArena* arena = nullptr;
  bool wpack_bf16 = false;           // its scales are bf16
  bool last_row_only = false;        // FC: the method reads only the output's last row (BackendInit)
  bool half_convert = false;         // Convert: between fp32 and a half type (is_half_convert, decided at load)
  int64_t meta_stride = 0;     // row stride of the [blocks, S] arrays
  std::vector<uint16_t> scale_bf16;
  std::vector<int8_t> wq;
  const uint8_t* wdata = nullptr;
  int64_t w_row_bytes = 0;
  bool w4 = false;
  // fp32 FC on the XNNPACK library's operator (weights packed at load; attach_library_fc)
  std::unique_ptr<linalg::xnnlib::FullyConnectedF32> lib;
  // fp32 depthwise convolution (multiplier 1) on ops/linalg/dwconv_nhwc: the filter is read
  // in place from the blob ([1, KH, KW, C]); w stays empty
  bool dw_nhwc = false;
  // fp32 convolutions on the XNNPACK library's operators (attach_library_conv; then w is empty)
  std::unique_ptr<linalg::xnnlib::ConvolutionF32> conv_lib;
  // fp32 convolution of one group on ops/linalg/conv_nhwc (attach_library_conv): w holds the
  // filter packed in 32-channel slivers, then the padded bias
  bool conv_nhwc = false;
  mutable linalg::ConvNhwcPlan conv_plan;  // its task plan, kept between calls (a method runs one call at a time)
};

struct State {
  const Graph* g = nullptr;
  std::vector<RtValue>* rt = nullptr;
  const std::vector<Prepared>* prep = nullptr;
  KernelContext* ctx = nullptr;
  size_t node_index = 0;
  // The method has threads: the qd8 GEMM splits over the caller and the claim pool's
  // helpers (ops/linalg/claim_pool.h), also while the method's adaptive mode keeps the pool idle on a busy
  // machine (ctx->threadpool null): the helper never makes the caller wait for a thread
  // that has not been scheduled, which is what the adaptive mode avoids. At load 6 on 2
  // cores: prefill 64 tokens 207 vs 311 ms, decode 22.7 vs 30.7 ms (medians of 4).
  bool helper_thread = false;

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
// Tests: how many dynamically quantized product groups have run in slices of rows because
// their prepared activations did not fit the method's scratch (exec_quant.cpp).
uint64_t qd8_sliced_runs();
// Unary / binary fp32 nodes run split over the method's threads (exec_elementwise.cpp), for tests.
uint64_t elementwise_split_runs();
// Tests: fp16 <-> fp32 Convert nodes (and fused round trips) run over several threads so far.
uint64_t half_convert_splits();
Status prepare_conv(const Graph& g, const Node& n, Prepared* p);
Status prepare_fully_connected(const Graph& g, const Node& n, Prepared* p);
Status prepare_fully_connected_quantized(const Graph& g, const Node& n, Prepared* p);
// An fp32 FullyConnected node with a constant filter (and bias) is a candidate for the
// XNNPACK library (*candidate, *path filled); when the policy picks it, p->lib is created.
Status attach_library_fc(const Graph& g, const Node& n, XnnpackPolicy policy, Prepared* p, bool* candidate,
                         MatmulPath* path);
// Conv2d / DepthwiseConv2d / ConvTranspose2d (fp32, prepared by prepare_conv): on the XNNPACK
// library's operator when the policy chooses it (xnn_library_conv.h), p->w then released.
// Sets *candidate for those nodes and fills *path (n: output channels, k: one output's taps).
Status attach_library_conv(const Graph& g, const Node& n, XnnpackPolicy policy, Prepared* p, bool* candidate,
                           MatmulPath* path);

bool run_resize_bilinear(State& s, const Node& n);
bool run_convert_half(State& s, const Node& n);
// fp16 / bf16 <-> fp32 (and fp16 <-> bf16) Convert nodes (exec_half.cpp; run_convert does the quantized ones).
bool is_half_convert(const Graph& g, const Node& n);
// Load-time rewrite of half-precision compute nodes onto the fp32 kernels (exec_half.cpp):
// half operands are read through fp32 twins (constants converted once, runtime values by
// an inserted Convert), half results written to an fp32 temporary and converted back.
// origin (optional): for every node of the new list, the index of the node it came from.
// Except: a fully connected node's constant fp16 [N, K] filter (reads_f16_filter) stays
// fp16, read in place by ops/linalg/gemm_f16w.
Status widen_half(Graph* g, std::vector<int32_t>* origin);
bool reads_f16_filter(const Graph& g, const Node& n);
// Load-time fold (fuse_pad.cpp): an fp32 XNNStaticConstantPad of zeros over H and W whose
// only reader is a Conv2d / DepthwiseConv2d input becomes that convolution's padding; the
// pad node is dropped (origin: as for widen_half, kept in step).
Status fuse_pad_into_conv(Graph* g, std::vector<int32_t>* origin);
// Load-time rewrite (fuse_qd8.cpp): duplicate fp32 -> qdint8 Converts of one value become
// one; qdint8 FullyConnected nodes of those same activations (filters of one kind) move up
// behind the first, which runs them as one product group (Node::siblings, qgemm_qd8_group). origin: as for widen_half, kept in step.
Status fuse_qd8_siblings(Graph* g, std::vector<int32_t>* origin);
// Load-time fusion (fuse_add.cpp), after the convolutions' paths are chosen: an fp32 Add whose
// one operand is the only use of an eligible Conv2d's unclamped output and whose other operand
// (same shape) exists before that convolution is dropped; the convolution reads that operand
// as in[3] (the residual conv_nhwc adds before the clamp), writes the Add's output and takes
// its clamp. keep: the indices of the nodes to keep, in order (for keep_nodes and the
// caller's per-node state). False when nothing fused.
bool fuse_conv_add(Graph* g, const std::vector<uint8_t>& eligible, std::vector<size_t>* keep);
// Applies the node's fused output range to `count` floats (no-op for +-inf).
void clamp_output(const Node& n, float* y, int64_t count);

}  // namespace pte::xnn
