// pte-run XNNPACK delegate: the parsed, validated graph (values, nodes, constants).
//
// parse_graph() reads an XnnpackBackend blob (XH00 header + XN00/XN01 flatbuffer +
// optional constant region), verifies the flatbuffer, resolves every constant (the
// program's named_data, the blob's constant region or the legacy constant_buffer)
// and checks every id, dim, dtype and node parameter. Everything the executor later
// reads is in these plain structs; the flatbuffer is not consulted after load.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "interpreter/loader.h"

namespace pte::xnn {

constexpr int kMaxDims = 6;                 // XNN_MAX_TENSOR_DIMS
constexpr uint32_t kInvalidId = 0xFFFFFFFFu;  // XNN_INVALID_VALUE_ID
constexpr uint32_t kFlagExternalInput = 1, kFlagExternalOutput = 2;
constexpr uint32_t kFlagTransposeWeights = 1;  // FC / BMM: filter (or B) is [in, out] / [.., N, K]
constexpr uint32_t kFlagKeepDims = 0x40;
constexpr uint32_t kFlagTensorflowLegacy = 4, kFlagAlignCorners = 8;  // StaticResizeBilinear2D

// XNNDatatype values (schema/xnnpack.fbs).
enum class DT : int16_t {
  Invalid = 0, F32 = 1, F16 = 2, QInt8 = 3, QUInt8 = 4, QInt32 = 5, QCInt8 = 6, QCInt32 = 7,
  QCInt4 = 8, QDInt8 = 9, QBInt4 = 10, QPInt8 = 11, Int32 = 12, PF32 = 13, BF16 = 14,
};
const char* dt_name(DT t);

enum class Quant : uint8_t { None, PerTensor, PerChannel, PerToken, Blockwise };

struct Shape {
  int n = 0;
  int64_t d[kMaxDims] = {};
  int64_t numel() const {
    int64_t r = 1;
    for (int i = 0; i < n; ++i) r *= d[i];
    return r;
  }
  bool operator==(const Shape& o) const {
    if (n != o.n) return false;
    for (int i = 0; i < n; ++i)
      if (d[i] != o.d[i]) return false;
    return true;
  }
};

struct Value {
  uint32_t id = 0;           // serialized id (id_out)
  DT dtype = DT::Invalid;
  Shape dims;                // as serialized (upper bound for dynamic shapes)
  uint32_t external_id = kInvalidId;
  uint32_t flags = 0;
  const uint8_t* data = nullptr;  // constant bytes (null: runtime value)
  size_t data_size = 0;
  Quant quant = Quant::None;
  float scale = 1.0f;             // PerTensor
  int32_t zero_point = 0;         // PerTensor
  std::vector<float> scales;      // PerChannel [dims[channel_dim]] / Blockwise [channels * blocks]
  int channel_dim = 0;
  int block_size = 0;             // Blockwise (group size along the input dim)
  int num_nonbatch_dims = 1;      // PerToken
  DT dq_dtype = DT::Invalid;      // legacy: dynamically quantize this external input (qint8 = per-token qd8)
  bool is_constant() const { return data != nullptr; }
  bool is_external() const { return (flags & (kFlagExternalInput | kFlagExternalOutput)) != 0; }
};

// Node types: the XNodeUnion members (value = union type number).
enum class Op : uint8_t {
  None = 0, Add = 1, FullyConnected, Softmax, Sigmoid, StaticTranspose, Clamp, Conv2d, Div,
  StaticResizeBilinear2D, StaticConstantPad, AvgPooling2d, Minimum, DepthwiseConv2d, MaxPooling2d,
  Multiply, Subtract, Floor, Convert, GlobalAvgPooling2d, StaticReshape, ArgMaxPooling2d, SquareRoot,
  Ceiling, Hardswish, LeakyReLU, Maximum, Negate, Square, ELU, Abs, PReLU, Concatenate2, Concatenate3,
  Concatenate4, StaticSlice, ScaledDotProductAttention, BatchMatrixMultiply, Concatenate5,
  ConvTranspose2d, ReciprocalSquareRoot, Log, Gelu, Tanh, Exp, Sin, Copy, Cos,
  Count
};
// "XNNFullyConnected", ... ("XNNUnknown(<n>)" is never returned: callers check the range).
const char* op_name(Op op);
// True when this build's executor runs `op`.
bool op_supported(Op op);

struct ConvParams {
  uint32_t pad_top = 0, pad_right = 0, pad_bottom = 0, pad_left = 0;
  uint32_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  uint32_t groups = 1, gic = 0, goc = 0;  // group input / output channels
  uint32_t adj_h = 0, adj_w = 0;          // ConvTranspose2d: extra output rows / columns (output_padding)
};

struct Node {
  Op op = Op::None;
  uint32_t flags = 0;
  uint32_t debug_handle = 0;
  // value indices (into Graph::values), -1 when absent (bias)
  int32_t in[5] = {-1, -1, -1, -1, -1};
  int nin = 0;
  int32_t out = -1;
  float out_min = -__builtin_inff(), out_max = __builtin_inff();
  // parameters (by op)
  ConvParams conv;                       // Conv2d / DepthwiseConv2d / *Pooling2d (kh/kw = pooling size)
  int perm[kMaxDims] = {};               // StaticTranspose
  Shape shape;                           // StaticReshape new_shape (0 = infer)
  int64_t offsets[kMaxDims] = {}, sizes[kMaxDims] = {};  // StaticSlice (size 0 = to the end)
  int64_t pre[kMaxDims] = {}, post[kMaxDims] = {};        // StaticConstantPad
  int ndims = 0;                         // rank of perm / slice / pad parameters
  float f = 0.0f;                        // pad value, leaky slope, elu alpha
  uint32_t axis = 0;                     // Concatenate*
  uint32_t new_h = 0, new_w = 0;         // StaticResizeBilinear2D output size
  // pte-run's own (fuse_qd8_siblings): a qdint8 FullyConnected that runs with the next
  // `siblings` nodes (FCs of the same activations) as one product group; the executor loop
  // skips those
  int siblings = 0;
  // pte-run's own (widen_half): a Convert of an fp32 value to fp32 rounded through this half
  // type (an fp32 -> half -> fp32 round trip in one pass; Invalid: a plain Convert)
  DT round_through = DT::Invalid;
};

struct Graph {
  std::string version;
  std::vector<Value> values;
  std::vector<Node> nodes;
  uint32_t num_externs = 0;
  // Storage for constants we had to copy (misaligned named data) or convert.
  std::vector<std::unique_ptr<uint8_t[]>> owned;
};

// Parses and validates `blob`; named constants come from `program` (may be null in
// tests: then only the blob's own constant region is available). On failure the
// message says what is wrong (one line). Unsupported node types are reported by
// name unless `allow_unsupported` (used by the info listing).
Status parse_graph(Bytes blob, const LoadedProgram* program, Graph* out, bool allow_unsupported = false);

// For load-time rewrites: the graph keeps the nodes `order` lists (indices into its node
// list), in that order. origin (optional; empty: identity so far) maps each node to the
// serialized node it came from and is kept in step.
void keep_nodes(Graph* g, const std::vector<size_t>& order, std::vector<int32_t>* origin);

// Bytes per element (0 for the packed 4-bit types, see value_bytes()).
size_t dt_size(DT t);
// Storage of a tensor of dtype `t` and shape `s` (4-bit types: two per byte, rows padded).
size_t value_bytes(DT t, const Shape& s);

}  // namespace pte::xnn
