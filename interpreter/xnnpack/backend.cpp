// pte-run XNNPACK delegate: the BackendInstance ("XnnpackBackend").
//
// init: parse + validate the blob (graph.cpp), prepare every node (packed weights),
// check that every node reads values already defined, and lay out one arena for
// all intermediate values at their serialized (upper-bound) sizes.
// execute: bind externals (ExecuTorch tensors, sizes taken in dim_order like the
// official runtime), run the nodes in order (each re-propagates its output shape),
// resize the external outputs. No allocation.
#include "interpreter/xnnpack/backend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>

#include "interpreter/xnnpack/exec.h"
#include "interpreter/xnnpack/exec_qs8.h"
#include "ops/xnn_math/xnn_math.h"
#include "pte_config.h"

namespace pte::xnn {

// Whether this build keeps node type `op`: every type, or a selective build's list
// (interpreter/xnnpack/meson.build). Executors no kept type needs are left out below
// (`if constexpr`), so a static link does not pull them in.
constexpr bool node_kept(Op op) {
#if PTE_SELECTED_OPS
  switch (op) {
#define PTE_XNN_NODE(name) case Op::name: return true;
#include "interpreter/xnnpack/selected_nodes.def"
#undef PTE_XNN_NODE
    default: return false;
  }
#else
  (void)op;
  return true;
#endif
}
constexpr bool kConv = node_kept(Op::Conv2d) || node_kept(Op::DepthwiseConv2d) || node_kept(Op::ConvTranspose2d) ||
                       node_kept(Op::MaxPooling2d) || node_kept(Op::AvgPooling2d) || node_kept(Op::GlobalAvgPooling2d);
constexpr bool kFullyConnected = node_kept(Op::FullyConnected);
constexpr bool kBatchMatmul = node_kept(Op::BatchMatrixMultiply);
constexpr bool kResize = node_kept(Op::StaticResizeBilinear2D);
constexpr bool kSoftmax = node_kept(Op::Softmax);
constexpr bool kBinary = node_kept(Op::Add) || node_kept(Op::Subtract) || node_kept(Op::Multiply) || node_kept(Op::Div) ||
                         node_kept(Op::Minimum) || node_kept(Op::Maximum) || node_kept(Op::PReLU);

namespace {
// The largest arena a blob's intermediate values may need: 4 GiB, or a quarter of the
// address space where size_t has 32 bits (so that no sum of placements can wrap).
constexpr uint64_t kMaxArena = sizeof(size_t) >= 8 ? uint64_t{1} << 32 : uint64_t{SIZE_MAX} / 4;
}  // namespace

bool State::set_shape(int32_t out, const Shape& s) {
  RtValue& r = v(out);
  const Value& m = meta(out);
  size_t need = value_bytes(m.dtype, s);
  if (r.ext) {
    Tensor& t = *r.ext;
    int64_t sizes[kMaxDims];
    bool order_ok = t.dim == s.n;
    for (int i = 0; order_ok && i < s.n; ++i) sizes[t.dim_order[i]] = s.d[i];
    if (!order_ok)
      for (int i = 0; i < s.n; ++i) sizes[i] = s.d[i];
    if (!resize_tensor(t, sizes, s.n)) {
      if (t.numel() != s.numel())
        return ctx->fail("output %u (external %u): cannot resize the %d-dim output tensor to %lld elements", m.id,
                         m.external_id, t.dim, (long long)s.numel());
    }
    r.data = static_cast<uint8_t*>(t.data);
    r.capacity = t.capacity ? t.capacity : t.nbytes();
  }
  if (need > r.capacity)
    return ctx->fail("%s: value %u needs %zu bytes, %zu planned (shape beyond the exported upper bound)",
                     op_name(g->nodes[node_index].op), m.id, need, r.capacity);
  if (m.dtype == DT::QDInt8 && r.row_capacity) {
    RtValue tmp = r;
    tmp.shape = s;
    if (tmp.rows() > r.row_capacity) return ctx->fail("value %u: %lld rows, %lld planned", m.id, (long long)tmp.rows(), (long long)r.row_capacity);
  }
  r.shape = s;
  return true;
}

Status prepare_node(const Graph& g, const Node& n, Prepared* p) {
  auto dt = [&](int32_t v) { return g.values[static_cast<size_t>(v)].dtype; };
  auto need_f32 = [&]() -> Status {
    for (int i = 0; i < n.nin; ++i)
      if (n.in[i] >= 0 && dt(n.in[i]) != DT::F32)
        return Status::error(std::string(op_name(n.op)) + ": input " + std::to_string(i) + " is " + dt_name(dt(n.in[i])) +
                             ", only fp32 is supported");
    if (dt(n.out) != DT::F32) return Status::error(std::string(op_name(n.op)) + ": output is " + dt_name(dt(n.out)) + ", only fp32 is supported");
    return Status::ok();
  };
  if (!node_kept(n.op)) return Status::error(std::string(op_name(n.op)) + " is left out of this selective build");
  if (is_qs8_node(g, n)) return prepare_qs8(g, n, p);  // static int8 (exec_qs8.cpp)
  switch (n.op) {
    case Op::FullyConnected:
      if constexpr (kFullyConnected) return prepare_fully_connected(g, n, p);
      break;
    case Op::Conv2d: case Op::DepthwiseConv2d: case Op::ConvTranspose2d:
      if constexpr (kConv) return prepare_conv(g, n, p);
      break;
    case Op::StaticTranspose: case Op::StaticReshape: case Op::StaticSlice: case Op::Concatenate2: case Op::Concatenate3:
    case Op::Concatenate4: case Op::Concatenate5: case Op::Copy:
      for (int i = 0; i < n.nin; ++i)
        if (dt(n.in[i]) != dt(n.out) || dt_size(dt(n.out)) == 0)
          return Status::error(std::string(op_name(n.op)) + ": input " + std::to_string(i) + " is " + dt_name(dt(n.in[i])) +
                               ", output " + dt_name(dt(n.out)));
      return check_q8_passthrough(g, n);
    case Op::StaticResizeBilinear2D: {
      PTE_TRY(need_f32());
      const Value& x = g.values[static_cast<size_t>(n.in[0])];
      if (x.dims.n != 4) return Status::error("XNNStaticResizeBilinear2D: input has " + std::to_string(x.dims.n) + " dims, expected NHWC");
      return Status::ok();
    }
    case Op::Convert: {
      const Value& a = g.values[static_cast<size_t>(n.in[0])];
      const Value& b = g.values[static_cast<size_t>(n.out)];
      auto q8 = [](const Value& v) { return (v.dtype == DT::QInt8 || v.dtype == DT::QUInt8) && v.quant == Quant::PerTensor; };
      if ((a.dtype == DT::F32 && (q8(b) || b.dtype == DT::QDInt8)) || (q8(a) && b.dtype == DT::F32)) return Status::ok();
      if (is_half_convert(g, n)) {
        if (p) p->half_convert = true;
        return Status::ok();
      }
      return Status::error(std::string("XNNConvert from ") + dt_name(a.dtype) + " to " + dt_name(b.dtype) + " is not supported");
    }
    default:
      return need_f32();
  }
  return Status::error(std::string(op_name(n.op)) + " is left out of this selective build");
}

bool op_supported(Op op) {
  if (!node_kept(op)) return false;
  switch (op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Div: case Op::Minimum: case Op::Maximum: case Op::PReLU:
    case Op::Abs: case Op::Negate: case Op::Square: case Op::SquareRoot: case Op::ReciprocalSquareRoot: case Op::Floor:
    case Op::Ceiling: case Op::Sigmoid: case Op::Tanh: case Op::Exp: case Op::Log: case Op::Sin: case Op::Cos:
    case Op::Gelu: case Op::Hardswish: case Op::LeakyReLU: case Op::ELU: case Op::Clamp: case Op::Softmax:
    case Op::FullyConnected: case Op::BatchMatrixMultiply: case Op::Conv2d: case Op::DepthwiseConv2d:
    case Op::ConvTranspose2d: case Op::StaticResizeBilinear2D:
    case Op::MaxPooling2d: case Op::AvgPooling2d: case Op::GlobalAvgPooling2d: case Op::StaticTranspose:
    case Op::StaticReshape: case Op::StaticSlice: case Op::StaticConstantPad: case Op::Concatenate2:
    case Op::Concatenate3: case Op::Concatenate4: case Op::Concatenate5: case Op::Copy: case Op::Convert:
      return true;
    default:
      return false;
  }
}

namespace {

// (static int8 nodes take run_qs8: XnnpackInstance::how_)
bool run_node(State& s, const Node& n) {
  // (a type a selective build left out never gets here: op_supported refused it at load)
  switch (n.op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Div: case Op::Minimum: case Op::Maximum: case Op::PReLU:
      if constexpr (kBinary) return run_binary(s, n);
      break;
    case Op::Softmax:
      if constexpr (kSoftmax) return run_softmax(s, n);
      break;
    case Op::FullyConnected:
      if constexpr (kFullyConnected) return run_fully_connected(s, n);
      break;
    case Op::BatchMatrixMultiply:
      if constexpr (kBatchMatmul) return run_batch_matmul(s, n);
      break;
    case Op::Conv2d: case Op::DepthwiseConv2d: case Op::ConvTranspose2d:
      if constexpr (kConv) return run_conv(s, n);
      break;
    case Op::StaticResizeBilinear2D:
      if constexpr (kResize) return run_resize_bilinear(s, n);
      break;
    case Op::MaxPooling2d: case Op::AvgPooling2d:
      if constexpr (kConv) return run_pooling(s, n);
      break;
    case Op::GlobalAvgPooling2d:
      if constexpr (kConv) return run_global_avg_pool(s, n);
      break;
    case Op::StaticTranspose: return run_transpose(s, n);
    case Op::StaticReshape: return run_reshape(s, n);
    case Op::StaticSlice: return run_slice(s, n);
    case Op::StaticConstantPad: return run_pad(s, n);
    case Op::Concatenate2: case Op::Concatenate3: case Op::Concatenate4: case Op::Concatenate5: return run_concat(s, n);
    case Op::Copy: return run_copy(s, n);
    case Op::Convert: return s.p().half_convert ? run_convert_half(s, n) : run_convert(s, n);
    default:
      if (op_supported(n.op)) return run_unary(s, n);
      break;
  }
  return s.ctx->fail("%s is not supported", op_name(n.op));
}

bool dtype_matches(DT x, DType t) {
  switch (x) {
    case DT::F32: return t == DType::Float;
    case DT::Int32: return t == DType::Int32;
    case DT::QInt8: return t == DType::Int8 || t == DType::QInt8;
    case DT::QUInt8: return t == DType::UInt8 || t == DType::QUInt8;
    case DT::F16: return t == DType::Half;
    case DT::BF16: return t == DType::BFloat16;
    default: return false;
  }
}

class XnnpackInstance final : public BackendInstance {
 public:
  Status init(const BackendInit& init) {
    threads_ = init.num_threads;
    PTE_TRY(parse_graph(init.blob, init.program, &g_));
    PTE_TRY(fuse_pad_into_conv(&g_, &origin_));  // before widen_half: fp16 pads fold too
    PTE_TRY(widen_half(&g_, &origin_));
    PTE_TRY(fuse_qd8_siblings(&g_, &origin_));
    const size_t nv = g_.values.size();
    rt_.resize(nv);
    prep_.resize(g_.nodes.size());
    // which values are written by a node / available before the first node
    std::vector<uint8_t> defined(nv, 0);
    for (size_t i = 0; i < nv; ++i) {
      const Value& v = g_.values[i];
      if (v.is_constant() || (v.flags & kFlagExternalInput)) defined[i] = 1;
      if (v.flags & kFlagExternalInput && v.flags & kFlagExternalOutput)
        return Status::error("XNNPACK blob: value " + std::to_string(v.id) + " is both an external input and output");
      if (v.is_external()) {
        ext_.push_back({static_cast<int32_t>(i), v.external_id, v.id, v.dtype, (v.flags & kFlagExternalInput) != 0});
        max_ext_ = std::max(max_ext_, v.external_id + 1);
      }
    }
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      const Node& n = g_.nodes[k];
      std::string where = "XNNPACK blob: node " + std::to_string(origin_[k]) + " (" + op_name(n.op) + ")";
      for (int i = 0; i < n.nin; ++i)
        if (n.in[i] >= 0 && !defined[n.in[i]])
          return Status::error(where + " reads value " + std::to_string(g_.values[n.in[i]].id) + " before it is written");
      if (n.out < 0) return Status::error(where + " has no output");
      if (g_.values[n.out].flags & kFlagExternalInput) return Status::error(where + " writes an external input");
      defined[n.out] = 1;
      prep_[k].arena = init.packed ? init.packed : &packed_;
      Status s = prepare_node(g_, n, &prep_[k]);
      if (!s) return Status::error(ErrorCode::DelegateNodeUnsupported, "XNNPACK blob: node " + std::to_string(origin_[k]) + ": " + s.message());
      // A 4-bit filter repacked for the SIMD kernels is not read from the file again (only
      // the scalar reference reads it, faulting it back in): its pages need not stay
      // resident beside the packed copy (SmolLM2-135M 8da4w: ~70 MB of the peak RSS).
      if (prep_[k].wpack) release_filter_pages(init, n);
    }
    for (size_t i = 0; i < nv; ++i)
      if ((g_.values[i].flags & kFlagExternalOutput) && !defined[i])
        return Status::error("XNNPACK blob: output value " + std::to_string(g_.values[i].id) + " is never written");
    if (init.last_row_only_output >= 0) mark_last_row_only(static_cast<uint32_t>(init.last_row_only_output));
    how_.assign(g_.nodes.size(), 0);
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      if (is_qs8_node(g_, g_.nodes[k])) how_[k] |= kQs8;
      for (size_t j = k + 1; j <= k + static_cast<size_t>(g_.nodes[k].siblings) && j < how_.size(); ++j) how_[j] |= kGrouped;
    }
    // fp32 fully connected nodes with constant weights: ours or the XNNPACK library
    for (size_t k = 0; kFullyConnected && k < g_.nodes.size(); ++k) {
      bool candidate = false;
      MatmulPath path;
      Status s = attach_library_fc(g_, g_.nodes[k], init.xnnpack, &prep_[k], &candidate, &path);
      if (!s) return Status::error("XNNPACK blob: node " + std::to_string(origin_[k]) + ": " + s.message());
      if (!candidate) continue;
      path.where = "node " + std::to_string(origin_[k]);
      paths_.push_back(std::move(path));
    }
    // fp32 convolutions: ours or the XNNPACK library (xnn_library_conv.h)
    for (size_t k = 0; kConv && k < g_.nodes.size(); ++k) {
      if (is_qs8_node(g_, g_.nodes[k])) continue;
      bool candidate = false;
      MatmulPath path;
      Status s = attach_library_conv(g_, g_.nodes[k], init.xnnpack, &prep_[k], &candidate, &path);
      if (!s) return Status::error("XNNPACK blob: node " + std::to_string(origin_[k]) + ": " + s.message());
      if (!candidate) continue;
      // the library (or conv_nhwc) packed the filter into its own buffer: the file's pages of
      // it may go (ResNet-50: ~100 MB of the peak RSS)
      if (prep_[k].conv_lib || prep_[k].conv_nhwc) release_filter_pages(init, g_.nodes[k]);
      path.where = "node " + std::to_string(origin_[k]);
      paths_.push_back(std::move(path));
    }
    // An Add of a conv_nhwc convolution's output and an earlier tensor: done in the
    // convolution's store (fuse_add.cpp); the node lists below follow the new order.
    {
      std::vector<uint8_t> eligible(g_.nodes.size(), 0);
      for (size_t k = 0; k < g_.nodes.size(); ++k) eligible[k] = prep_[k].conv_nhwc;
      std::vector<size_t> keep;
      if (fuse_conv_add(&g_, eligible, &keep)) {
        std::vector<Prepared> prep(keep.size());
        std::vector<uint8_t> how(keep.size());
        for (size_t i = 0; i < keep.size(); ++i) prep[i] = std::move(prep_[keep[i]]), how[i] = how_[keep[i]];
        prep_.swap(prep);
        how_.swap(how);
        keep_nodes(&g_, keep, &origin_);
      }
    }
    populate_in_place_constants(init);
    // A library operator followed by one of ours (or ending the graph) releases the library
    // pool's spinning workers (xnnlib::release_workers); between library operators they spin.
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      auto lib = [&](size_t i) { return i < prep_.size() && (prep_[i].lib || prep_[i].conv_lib); };
      if (lib(k) && !lib(k + 1)) how_[k] |= kReleaseAfter;
    }
    // Quantization scales were copied where the nodes need them (Prepared); execute never
    // reads Value::scales (8da4w: ~19 MB of fp32 for SmolLM2-135M).
    for (Value& v : g_.values) std::vector<float>().swap(v.scales);
    // Arena layout: each intermediate lives from the node that writes it to its last
    // reader; values whose lifetimes overlap get disjoint ranges (largest first,
    // lowest fitting offset). qdint8 row parameters live with their value.
    struct Slot {
      size_t value, bytes, row_bytes;
      size_t first, last;
      size_t off = 0;
    };
    std::vector<Slot> slots;
    std::vector<size_t> def_at(nv, 0), last_use(nv, 0);
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      const Node& n = g_.nodes[k];
      def_at[n.out] = k;
      last_use[n.out] = std::max(last_use[n.out], k);
      for (int i = 0; i < n.nin; ++i)
        if (n.in[i] >= 0) last_use[n.in[i]] = std::max(last_use[n.in[i]], k);
    }
    for (size_t i = 0; i < nv; ++i) {
      const Value& v = g_.values[i];
      RtValue& r = rt_[i];
      r.shape = v.dims;
      if (v.is_constant()) {
        r.data = const_cast<uint8_t*>(v.data);
        r.capacity = v.data_size;
        continue;
      }
      if (!defined[i]) continue;  // never used
      size_t row_bytes = 0;
      if (v.dtype == DT::QDInt8) {
        RtValue t;
        t.shape = v.dims;
        r.row_capacity = t.rows();
        if (static_cast<uint64_t>(r.row_capacity) > kMaxArena / 16)
          return Status::error("XNNPACK blob: value " + std::to_string(i) + " has too many rows");
        row_bytes = (static_cast<size_t>(r.row_capacity) * 8 + 63) & ~size_t(63);
      }
      size_t bytes = v.is_external() ? 0 : value_bytes(v.dtype, v.dims);
      if (bytes > kMaxArena)  // (each below the limit: the sums below cannot wrap a 32-bit size_t)
        return Status::error("XNNPACK blob: value " + std::to_string(i) + " needs " + std::to_string(bytes) + " bytes");
      if (!v.is_external()) r.capacity = bytes;
      bytes = (bytes + 63) & ~size_t(63);
      if (bytes + row_bytes == 0) continue;
      size_t first = (v.flags & kFlagExternalInput) ? 0 : def_at[i];
      slots.push_back({i, bytes, row_bytes, first, std::max(first, last_use[i])});
    }
    std::vector<size_t> order(slots.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      size_t sa = slots[a].bytes + slots[a].row_bytes, sb = slots[b].bytes + slots[b].row_bytes;
      return sa != sb ? sa > sb : a < b;
    });
    std::vector<size_t> placed;
    size_t total = 0;
    for (size_t k : order) {
      Slot& sl = slots[k];
      const size_t need = sl.bytes + sl.row_bytes;
      // candidate offsets: 0 and the end of every placed slot alive at the same time
      std::vector<std::pair<size_t, size_t>> busy;
      for (size_t p : placed) {
        const Slot& o = slots[p];
        if (o.first <= sl.last && sl.first <= o.last) busy.push_back({o.off, o.off + o.bytes + o.row_bytes});
      }
      std::sort(busy.begin(), busy.end());
      size_t at = 0;
      for (const auto& b : busy) {
        if (at + need <= b.first) break;
        at = std::max(at, b.second);
      }
      sl.off = at;
      total = std::max(total, at + need);
      if (total > kMaxArena) break;  // refused below, before a sum could wrap
      placed.push_back(k);
    }
    if (total > kMaxArena) return Status::error("XNNPACK blob: intermediate values need " + std::to_string(total) + " bytes");
    arena_bytes_ = total;
    slots_.clear();
    for (const Slot& sl : slots) slots_.push_back({static_cast<int32_t>(sl.value), sl.off, sl.bytes, sl.row_bytes});
    if (init.workspace) {
      workspace_ = init.workspace;
      PTE_TRY(workspace_->reserve(total));
    } else {
      own_.reset(new (std::nothrow) uint8_t[total + 64]);
      if (!own_) return Status::error(ErrorCode::AllocationFailed, "XNNPACK delegate: cannot allocate " + std::to_string(total) + " bytes for intermediates");
      bind(reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(own_.get()) + 63) & ~uintptr_t(63)));
    }
    return Status::ok();
  }

  // The method reads only the last row of external output `ext`: when a fully connected
  // node writes it and no node reads it, that node computes only its last row.
  void mark_last_row_only(uint32_t ext) {
    for (size_t i = 0; i < g_.values.size(); ++i) {
      const Value& v = g_.values[i];
      if (!(v.flags & kFlagExternalOutput) || v.external_id != ext) continue;
      int writer = -1;
      for (size_t k = 0; k < g_.nodes.size(); ++k) {
        const Node& n = g_.nodes[k];
        for (int j = 0; j < n.nin; ++j)
          if (n.in[j] == static_cast<int32_t>(i)) return;  // read inside the graph
        if (n.out == static_cast<int32_t>(i)) writer = writer == -1 ? static_cast<int>(k) : -2;
      }
      if (writer < 0) return;
      const Node& w = g_.nodes[static_cast<size_t>(writer)];
      if (w.op == Op::FullyConnected) {
        prep_[static_cast<size_t>(writer)].last_row_only = true;
      } else if (is_half_convert(g_, w)) {
        // an fp16 graph: the FC writes an fp32 temporary that a Convert narrows into the
        // output (widen_half); both handle only the last row when the temporary has no
        // other reader
        const int32_t t = w.in[0];
        int fc = -1;
        for (size_t k = 0; k < g_.nodes.size(); ++k) {
          const Node& n = g_.nodes[k];
          for (int j = 0; j < n.nin; ++j)
            if (n.in[j] == t && k != static_cast<size_t>(writer)) return;
          if (n.out == t) fc = fc == -1 ? static_cast<int>(k) : -2;
        }
        if (fc < 0 || g_.nodes[static_cast<size_t>(fc)].op != Op::FullyConnected) return;
        prep_[static_cast<size_t>(fc)].last_row_only = true;
        prep_[static_cast<size_t>(writer)].last_row_only = true;
      }
      return;
    }
  }

  // Points every intermediate at its range of the arena starting at `base`.
  void bind(uint8_t* base) {
    for (const auto& sl : slots_) {
      RtValue& r = rt_[static_cast<size_t>(sl.value)];
      if (sl.bytes) r.data = base + sl.off;
      if (sl.row_bytes) {
        r.row_scale = reinterpret_cast<float*>(base + sl.off + sl.bytes);
        r.row_zp = reinterpret_cast<int32_t*>(base + sl.off + sl.bytes + static_cast<size_t>(r.row_capacity) * 4);
      }
    }
    bound_ = base;
  }

  void matmul_paths(std::vector<MatmulPath>* out) const override { *out = paths_; }

  void set_profiling(bool on) override {
    profiling_ = on;
    node_ms_.assign(g_.nodes.size(), 0.0);
    node_calls_.assign(g_.nodes.size(), 0);
  }

  // One entry per node kind: the op, for products and conversions the input's dtype, for
  // fully connected nodes the filter's shape too ("XNNFullyConnected qdint8 1536x576"), for
  // convolutions the window, stride and channels ("XNNConv2d fp32 3x3/2 128->128").
  void profile(std::vector<OpTiming>* out) const override {
    for (size_t k = 0; k < node_calls_.size(); ++k) {
      if (!node_calls_[k]) continue;
      const Node& n = g_.nodes[k];
      std::string name = op_name(n.op);
      if (n.op == Op::FullyConnected || n.op == Op::Convert || n.op == Op::Conv2d || n.op == Op::BatchMatrixMultiply)
        name += std::string(" ") + dt_name(g_.values[static_cast<size_t>(n.in[0])].dtype);
      // and the filter's shape (an LLM has a few); a product group's (fuse_qd8_siblings) joined by "+"
      for (size_t j = k; n.op == Op::FullyConnected && j <= k + static_cast<size_t>(n.siblings) && j < g_.nodes.size(); ++j) {
        const Node& m = g_.nodes[j];
        if (m.in[1] < 0) continue;
        const Shape& w = g_.values[static_cast<size_t>(m.in[1])].dims;
        for (int d = 0; d < w.n; ++d) name += (d ? "x" : j == k ? " " : "+") + std::to_string(w.d[d]);
      }
      if (n.op == Op::Conv2d || n.op == Op::DepthwiseConv2d || n.op == Op::ConvTranspose2d) {  // "3x3/2 64->128"
        const ConvParams& c = n.conv;
        name += " " + std::to_string(c.kh) + "x" + std::to_string(c.kw);
        if (c.sh != 1 || c.sw != 1) name += "/" + std::to_string(c.sh) + (c.sw != c.sh ? "x" + std::to_string(c.sw) : "");
        name += " " + std::to_string(static_cast<int64_t>(c.groups) * c.gic) + "->" +
                std::to_string(static_cast<int64_t>(c.groups) * c.goc);
      }
      add_op_timing(out, name, node_ms_[k], node_calls_[k]);
    }
  }

  bool execute(KernelContext& ctx, EValue** args, size_t nargs) override {
    if (workspace_ && workspace_->data() != bound_) bind(workspace_->data());
    if (nargs < max_ext_) return ctx.fail("the delegate call passes %zu values, the graph has %u externals", nargs, max_ext_);
    for (const Ext& v : ext_) {
      EValue* e = args[v.external_id];
      if (!e || !e->is_tensor() || !e->t)
        return ctx.fail("external %u (value %u) is not a tensor", v.external_id, v.id);
      Tensor& t = *e->t;
      if (!dtype_matches(v.dtype, t.dtype))
        return ctx.fail("external %u is %s, the graph expects %s", v.external_id, dtype_name(t.dtype), dt_name(v.dtype));
      RtValue& r = rt_[static_cast<size_t>(v.value)];
      r.ext = &t;
      r.data = static_cast<uint8_t*>(t.data);
      if (v.input) {
        if (t.dim > kMaxDims) return ctx.fail("external %u has %d dims", v.external_id, t.dim);
        r.shape.n = t.dim;
        for (int d = 0; d < t.dim; ++d) r.shape.d[d] = t.sizes[t.dim_order[d]];
        r.capacity = t.nbytes();
        r.ext = nullptr;  // inputs are never resized
      } else {
        r.capacity = t.capacity ? t.capacity : t.nbytes();
      }
    }
    State s;
    s.g = &g_, s.rt = &rt_, s.prep = &prep_, s.ctx = &ctx, s.helper_thread = threads_ > 1 && ctx.claim_threads > 1;  // (1: the method runs alone now)
    DenormalsOff daz;  // as XNNPACK runs its operators (xnn_math.h)
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      // (per-node flags from one byte each: a Node is several cache lines, read only when run)
      const uint8_t how = how_[k];
      if (how & kGrouped) continue;  // run by the product group's first node
      s.node_index = k;
      const auto t0 = profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
      const bool ok = (how & kQs8) ? run_qs8(s, g_.nodes[k]) : run_node(s, g_.nodes[k]);
      if (profiling_) [[unlikely]] {
        node_ms_[k] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ++node_calls_[k];
      }
      if (!ok) {
        char msg[512];
        std::snprintf(msg, sizeof msg, "%s", ctx.failed() ? ctx.message() : "failed");
        ctx.reset();
        return ctx.fail("node %d (%s): %s", origin_[k], op_name(g_.nodes[k].op), msg);
      }
      ctx.reset();  // each node gets the whole scratch arena (conv im2col)
      if (how & kReleaseAfter) linalg::xnnlib::release_workers(ctx.threadpool);
    }
    return true;
  }

 private:
  // Constants the kernels read from the file on every run (fp32 filters on our GEMM / GEMV,
  // biases, ...) are mapped now rather than page by page in the first run (Qwen3-0.6B fp32:
  // 2.4 GB of 4 KB pages faulted inside the first prefill). Filters the load repacked
  // (4-bit, the library's operators, our conv layout, static int8) are left alone.
  void populate_in_place_constants(const BackendInit& init) const {
    if (!init.program) return;
    std::vector<uint8_t> in_place(g_.values.size(), 0);
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      const Node& n = g_.nodes[k];
      const Prepared& p = prep_[k];
      const bool repacked = p.wpack || p.lib || p.conv_lib || !p.w.empty() || !p.wq.empty();
      for (int i = 0; i < n.nin; ++i) {
        if (n.in[i] < 0 || !g_.values[static_cast<size_t>(n.in[i])].is_constant()) continue;
        if (i == 1 && repacked) continue;
        in_place[static_cast<size_t>(n.in[i])] = 1;
      }
    }
    for (size_t i = 0; i < in_place.size(); ++i)
      if (in_place[i]) init.program->populate_pages(g_.values[i].data, g_.values[i].data_size);
  }

  // The node's filter (input 1) leaves the resident set: read again only if a kernel faults it back.
  void release_filter_pages(const BackendInit& init, const Node& n) const {
    if (!init.program || n.in[1] < 0) return;
    const Value& w = g_.values[static_cast<size_t>(n.in[1])];
    if (w.data) init.program->release_pages(w.data, w.data_size);
  }

  Graph g_;
  planner::PackArena packed_;  // repacked filters when the method shares none (BackendInit::packed)
  std::vector<RtValue> rt_;
  std::vector<Prepared> prep_;
  struct Ext {  // an external value, as execute binds it
    int32_t value;
    uint32_t external_id, id;
    DT dtype;
    bool input;
  };
  std::vector<Ext> ext_;
  std::vector<int32_t> origin_;  // serialized node index of each (widened) node
  // per node, for execute: kQs8 (is_qs8_node: run_qs8), kReleaseAfter (release the library
  // pool's workers after it), kGrouped (one of the Node::siblings after a group's first node, which runs it)
  static constexpr uint8_t kQs8 = 1, kReleaseAfter = 2, kGrouped = 4;
  std::vector<uint8_t> how_;
  std::vector<MatmulPath> paths_;  // fp32 FC and convolution nodes with constant weights and their paths
  uint32_t max_ext_ = 0;
  int threads_ = 1;  // the method's threads (BackendInit::num_threads)
  struct SlotRef {
    int32_t value;
    size_t off, bytes, row_bytes;
  };
  std::vector<SlotRef> slots_;
  size_t arena_bytes_ = 0;
  bool profiling_ = false;
  std::vector<double> node_ms_;      // per node, while profiling
  std::vector<uint64_t> node_calls_;
  BackendWorkspace* workspace_ = nullptr;  // shared with the method's other delegates
  std::unique_ptr<uint8_t[]> own_;         // or our own arena
  uint8_t* bound_ = nullptr;
};

}  // namespace

Status create_xnnpack_backend(const BackendInit& init, std::unique_ptr<BackendInstance>* out) {
  auto inst = std::make_unique<XnnpackInstance>();
  PTE_TRY(inst->init(init));
  *out = std::move(inst);
  return Status::ok();
}

Status describe_xnnpack_blob(Bytes blob, const LoadedProgram* program, std::vector<DelegateNodeInfo>* nodes) {
  Graph g;
  PTE_TRY(parse_graph(blob, program, &g, /*allow_unsupported=*/true));
  // the serialized nodes, judged on what the executor runs (half precision widened to fp32)
  const std::vector<Node> serialized = g.nodes;
  std::vector<int32_t> origin;
  PTE_TRY(widen_half(&g, &origin));
  std::vector<uint8_t> runs(serialized.size(), 1);
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& w = g.nodes[k];
    if (!op_supported(w.op) || !prepare_node(g, w, nullptr).is_ok()) runs[static_cast<size_t>(origin[k])] = 0;
  }
  for (size_t k = 0; k < serialized.size(); ++k) {
    const Node& n = serialized[k];
    std::string name = op_name(n.op), types;
    auto t = [&](int32_t v) { return std::string(v >= 0 ? dt_name(g.values[static_cast<size_t>(v)].dtype) : "-"); };
    if (n.op == Op::FullyConnected || n.op == Op::BatchMatrixMultiply || n.op == Op::Conv2d || n.op == Op::DepthwiseConv2d ||
        n.op == Op::ConvTranspose2d)
      types = t(n.in[0]) + " x " + t(n.in[1]) + " -> " + t(n.out);
    else if (n.op == Op::Convert)
      types = t(n.in[0]) + " -> " + t(n.out);
    bool found = false;
    for (auto& e : *nodes)
      if (e.name == name && e.types == types) ++e.count, found = true;
    const bool ok = runs[k] != 0;
    if (!found) nodes->push_back({name, types, 1, ok});
    else if (!ok)
      for (auto& e : *nodes)
        if (e.name == name && e.types == types) e.supported = false;
  }
  return Status::ok();
}

}  // namespace pte::xnn
