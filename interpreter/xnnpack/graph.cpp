// pte-run XNNPACK delegate: blob header, flatbuffer verification and graph validation.
#include "interpreter/xnnpack/graph.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "schema/xnnpack_generated.h"

namespace pte::xnn {

namespace fx = fb_xnnpack;

namespace {

std::string num(uint64_t v) { return std::to_string(v); }

uint32_t rd32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t rd64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

const char* const kOpNames[] = {
    "NONE", "XNNAdd", "XNNFullyConnected", "XNNSoftmax", "XNNSigmoid", "XNNStaticTranspose", "XNNClamp",
    "XNNConv2d", "XNNDiv", "XNNStaticResizeBilinear2D", "XNNStaticConstantPad", "XNNAvgPooling2d",
    "XNNMinimum", "XNNDepthwiseConv2d", "XNNMaxPooling2d", "XNNMultiply", "XNNSubtract", "XNNFloor",
    "XNNConvert", "XNNGlobalAvgPooling2d", "XNNStaticReshape", "XNNArgMaxPooling2d", "XNNSquareRoot",
    "XNNCeiling", "XNNHardswish", "XNNLeakyReLU", "XNNMaximum", "XNNNegate", "XNNSquare", "XNNELU",
    "XNNAbs", "XNNPReLU", "XNNConcatenate2", "XNNConcatenate3", "XNNConcatenate4", "XNNStaticSlice",
    "XNNScaledDotProductAttention", "XNNBatchMatrixMultiply", "XNNConcatenate5", "XNNConvTranspose2d",
    "XNNReciprocalSquareRoot", "XNNLog", "XNNGelu", "XNNTanh", "XNNExp", "XNNSin", "XNNCopy", "XNNCos",
};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == static_cast<size_t>(Op::Count));

float bf16_to_f32(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Parser {
  Bytes blob;
  const LoadedProgram* program;
  Graph* g;
  const fx::XNNGraph* root = nullptr;
  Bytes constant_region;
  std::vector<int32_t> remap;  // serialized id -> value index
  std::vector<Node> implicit;  // converts for legacy dq_datatype inputs, run first
  bool keep_scales = true;     // false (the info listing): quantization scales checked, not copied

  Status fail(const std::string& m) { return Status::error(ErrorCode::DelegateBlobMalformed, "XNNPACK blob: " + m); }
  Status fail(ErrorCode c, const std::string& m) { return Status::error(c, "XNNPACK blob: " + m); }

  Status header() {
    const uint8_t* d = blob.data;
    size_t n = blob.size;
    if (!d || n < 8) return fail("only " + num(n) + " bytes");
    Bytes fbb = blob;
    if (std::memcmp(d + 4, "XH00", 4) == 0) {
      if (n < 30) return fail("XH00 header truncated (" + num(n) + " bytes)");
      uint32_t fo = rd32(d + 10), fs = rd32(d + 14), co = rd32(d + 18);
      uint64_t cs = rd64(d + 22);
      if (fo > n || fs > n - fo) return fail("flatbuffer [" + num(fo) + ", +" + num(fs) + ") outside the " + num(n) + "-byte blob");
      if (co > n || cs > n - co) return fail("constant data [" + num(co) + ", +" + num(cs) + ") outside the " + num(n) + "-byte blob");
      fbb = {d + fo, fs};
      constant_region = {d + co, static_cast<size_t>(cs)};
    }
    if (fbb.size < 8) return fail("flatbuffer of " + num(fbb.size) + " bytes");
    if (std::memcmp(fbb.data + 4, "XN00", 4) != 0 && std::memcmp(fbb.data + 4, "XN01", 4) != 0) {
      std::string id = printable(std::string_view(reinterpret_cast<const char*>(fbb.data + 4), 4));
      return fail("flatbuffer identifier '" + id + "', expected XN00 or XN01");
    }
    if (reinterpret_cast<uintptr_t>(fbb.data) % 4 != 0) {
      // The verifier needs 4-byte alignment; copy (load time only).
      auto buf = std::make_unique<uint8_t[]>(fbb.size + 16);
      uint8_t* p = buf.get();
      std::memcpy(p, fbb.data, fbb.size);
      fbb.data = p;
      g->owned.push_back(std::move(buf));
    }
    flatbuffers::Verifier v(fbb.data, fbb.size, 64, 10'000'000);
    if (!v.VerifyBuffer<fx::XNNGraph>(nullptr)) return fail("the XNNGraph flatbuffer does not verify");
    root = flatbuffers::GetRoot<fx::XNNGraph>(fbb.data);
    return Status::ok();
  }

  // The bytes of constant `idx` (constant_buffer_idx / scale_buffer_idx), >= `need` bytes.
  Status constant(uint32_t idx, size_t need, const std::string& what, const uint8_t** out, size_t* size) {
    Bytes b;
    const auto* cd = root->constant_data();
    if (cd && cd->size() > 0) {
      if (idx >= cd->size()) return fail(what + ": constant " + num(idx) + " of " + num(cd->size()));
      const auto* e = cd->Get(idx);
      if (e->named_key() && e->named_key()->size() > 0) {
        std::string_view key = e->named_key()->string_view();
        if (!program || !program->named_data(key, &b))
          return fail(what + ": named data '" + printable(key, 80) + "' not found in the program or its .ptd files");
        if (e->size() != 0 && e->size() < b.size) b.size = static_cast<size_t>(e->size());
      } else {
        if (e->offset() > constant_region.size || e->size() > constant_region.size - e->offset())
          return fail(what + ": constant " + num(idx) + " [" + num(e->offset()) + ", +" + num(e->size()) +
                      ") outside the " + num(constant_region.size) + "-byte constant region");
        b = {constant_region.data + e->offset(), static_cast<size_t>(e->size())};
      }
    } else {
      const auto* cb = root->constant_buffer();
      if (!cb || idx >= cb->size()) return fail(what + ": constant buffer " + num(idx) + " missing");
      const auto* st = cb->Get(idx)->storage();
      if (!st) return fail(what + ": constant buffer " + num(idx) + " has no storage");
      b = {st->data(), st->size()};
    }
    if (b.size < need) return fail(what + ": constant " + num(idx) + " has " + num(b.size) + " bytes, needs " + num(need));
    if (reinterpret_cast<uintptr_t>(b.data) % 16 != 0 && b.size > 0) {
      auto buf = std::make_unique<uint8_t[]>(b.size);
      std::memcpy(buf.get(), b.data, b.size);
      b.data = buf.get();
      g->owned.push_back(std::move(buf));
    }
    *out = b.data;
    *size = b.size;
    return Status::ok();
  }

  Status read_tensor(const fx::XNNTensorValue* t, Value* v, size_t k) {
    std::string what = "value " + num(k);
    if (!t) return fail(what + " has no tensor_value");
    int16_t dt = static_cast<int16_t>(t->datatype());
    if (dt < 1 || dt > 14) return fail(what + " has datatype " + num(static_cast<uint16_t>(dt)));
    v->dtype = static_cast<DT>(dt);
    v->id = t->id_out();
    v->external_id = t->external_id();
    v->flags = t->flags();
    v->dq_dtype = static_cast<DT>(static_cast<int16_t>(t->dq_datatype()));
    if (v->flags & ~(kFlagExternalInput | kFlagExternalOutput)) return fail(what + " has unknown flags " + num(v->flags));
    const auto* dims = t->dims();
    size_t nd = dims ? dims->size() : 0;
    if (nd > static_cast<size_t>(kMaxDims)) return fail(what + " has " + num(nd) + " dims (at most 6)");
    v->dims.n = static_cast<int>(nd);
    double numel = 1;
    for (size_t i = 0; i < nd; ++i) {
      v->dims.d[i] = dims->Get(static_cast<uint32_t>(i));
      numel *= static_cast<double>(v->dims.d[i]);
    }
    if (numel > 4e12)  // (the count itself may not fit 64 bits: print it as a float)
      return fail(what + " has " + std::to_string(numel) + " elements");
    if (v->is_external() && v->external_id >= g->num_externs)
      return fail(what + " has external id " + num(v->external_id) + " of " + num(g->num_externs));
    if (t->constant_buffer_idx() != 0) {
      if (v->is_external()) return fail(what + " is both external and constant");
      size_t need = value_bytes(v->dtype, v->dims);
      PTE_TRY(constant(t->constant_buffer_idx(), need, what, &v->data, &v->data_size));
    }
    return Status::ok();
  }

  Status read_quant(const fx::XNNQuantizedTensorValue* q, Value* v, size_t k) {
    std::string what = "value " + num(k);
    if (!q->quant_params()) return fail(what + " has no quantization parameters");
    switch (q->quant_params_type()) {
      case fx::XNNQuantParams::PerTensorQuant: {
        const auto* p = q->quant_params_as_PerTensorQuant();
        v->quant = Quant::PerTensor;
        v->scale = p->scale();
        v->zero_point = p->zero_point();
        if (!(v->scale > 0) || !std::isfinite(v->scale)) return fail(what + " has scale " + std::to_string(v->scale));
        return Status::ok();
      }
      case fx::XNNQuantParams::PerChannelQuant: {
        const auto* p = q->quant_params_as_PerChannelQuant();
        v->quant = Quant::PerChannel;
        v->channel_dim = p->channel_dim();
        if (v->channel_dim < 0 || v->channel_dim >= v->dims.n) return fail(what + " has channel_dim " + std::to_string(v->channel_dim));
        size_t nch = static_cast<size_t>(v->dims.d[v->channel_dim]);
        if (p->scale_buffer_idx() != 0) {
          const uint8_t* d;
          size_t sz;
          PTE_TRY(constant(p->scale_buffer_idx(), nch * 4, what + " scales", &d, &sz));
          if (keep_scales && nch) {  // (no memcpy from a null pointer for zero channels)
            v->scales.resize(nch);
            std::memcpy(v->scales.data(), d, nch * 4);
          }
        } else {
          if (!p->scale() || p->scale()->size() != nch)
            return fail(what + " has " + num(p->scale() ? p->scale()->size() : 0) + " scales for " + num(nch) + " channels");
          if (keep_scales) v->scales.assign(p->scale()->begin(), p->scale()->end());
        }
        v->zero_point = v->dtype == DT::QCInt4 ? 8 : 0;
        return Status::ok();
      }
      case fx::XNNQuantParams::PerTokenDynamicQuant: {
        const auto* p = q->quant_params_as_PerTokenDynamicQuant();
        v->quant = Quant::PerToken;
        v->num_nonbatch_dims = p->num_nonbatch_dims();
        if (v->num_nonbatch_dims < 0 || v->num_nonbatch_dims > v->dims.n)
          return fail(what + " has num_nonbatch_dims " + std::to_string(v->num_nonbatch_dims));
        if (v->is_constant()) return fail(what + ": a dynamically quantized value cannot be a constant");
        return Status::ok();
      }
      case fx::XNNQuantParams::PerChannelGroupQuant: {
        const auto* p = q->quant_params_as_PerChannelGroupQuant();
        v->quant = Quant::Blockwise;
        v->channel_dim = p->channel_dim();
        v->block_size = p->group_size();
        if (v->dtype != DT::QBInt4) return fail(what + ": group quantization of " + dt_name(v->dtype));
        if (v->dims.n != 2 || v->channel_dim != 0) return fail(what + ": group quantization needs a [out, in] weight, channel_dim 0");
        if (v->block_size <= 0 || v->dims.d[1] % v->block_size != 0)
          return fail(what + ": group size " + std::to_string(v->block_size) + " does not divide " + num(v->dims.d[1]));
        size_t ns = static_cast<size_t>(v->dims.d[0] * (v->dims.d[1] / v->block_size));
        if (p->scale_buffer_idx() != 0) {
          const uint8_t* d;
          size_t sz;
          PTE_TRY(constant(p->scale_buffer_idx(), ns * 2, what + " scales", &d, &sz));
          if (keep_scales) v->scales.resize(ns);
          for (size_t i = 0; keep_scales && i < ns; ++i) {
            uint16_t h;
            std::memcpy(&h, d + 2 * i, 2);
            v->scales[i] = bf16_to_f32(h);
          }
        } else if (p->scale_bf16() && p->scale_bf16()->size() == ns) {
          if (keep_scales) v->scales.resize(ns);
          for (size_t i = 0; keep_scales && i < ns; ++i) v->scales[i] = bf16_to_f32(p->scale_bf16()->Get(static_cast<uint32_t>(i)));
        } else if (p->scale() && p->scale()->size() == ns) {
          // old files: fp32 scales, converted the way the official runtime does (x 1.00389105, truncated to bf16)
          if (keep_scales) v->scales.resize(ns);
          for (size_t i = 0; keep_scales && i < ns; ++i) {
            float f = p->scale()->Get(static_cast<uint32_t>(i)) * 1.00389105f;
            uint32_t u;
            std::memcpy(&u, &f, 4);
            v->scales[i] = bf16_to_f32(static_cast<uint16_t>(u >> 16));
          }
        } else {
          return fail(what + ": group scales missing or not " + num(ns));
        }
        v->zero_point = 8;
        return Status::ok();
      }
      default:
        return fail(what + " has no quantization parameters");
    }
  }

  Status values() {
    g->num_externs = root->num_externs();
    if (g->num_externs > 4096) return fail(num(g->num_externs) + " externals (at most 4096)");
    const auto* xv = root->xvalues();
    size_t n = xv ? xv->size() : 0;
    g->values.resize(n);
    uint32_t max_id = 0;
    for (size_t k = 0; k < n; ++k) {
      const auto* x = xv->Get(static_cast<uint32_t>(k));
      Value& v = g->values[k];
      switch (x->xvalue_union_type()) {
        case fx::XValueUnion::XNNTensorValue:
          PTE_TRY(read_tensor(x->xvalue_union_as_XNNTensorValue(), &v, k));
          break;
        case fx::XValueUnion::XNNQuantizedTensorValue: {
          const auto* q = x->xvalue_union_as_XNNQuantizedTensorValue();
          if (!q) return fail("value " + num(k) + " has no tensor");
          PTE_TRY(read_tensor(q->tensor_value(), &v, k));
          PTE_TRY(read_quant(q, &v, k));
          break;
        }
        default:
          return fail("value " + num(k) + " has no tensor");
      }
      if (v.quant == Quant::None && v.dtype != DT::F32 && v.dtype != DT::Int32 && v.dtype != DT::F16 && v.dtype != DT::BF16)
        return fail("value " + num(k) + " of type " + dt_name(v.dtype) + " has no quantization parameters");
      max_id = std::max(max_id, v.id);
    }
    if (n > 0 && max_id > 16 * n + 4096) return fail("value id " + num(max_id) + " for " + num(n) + " values");
    remap.assign(n ? max_id + 1 : 0, -1);
    for (size_t k = 0; k < n; ++k) {
      if (remap[g->values[k].id] >= 0) return fail("value id " + num(g->values[k].id) + " defined twice");
      remap[g->values[k].id] = static_cast<int32_t>(k);
    }
    // Legacy dynamic quantization (files before 2024-02): an fp32 external input with
    // dq_datatype = qint8 feeds its consumers through an implicit per-token convert
    // to qdint8, as the official runtime rewrites it.
    uint32_t next_id = max_id + 1;
    for (size_t k = 0; k < n; ++k) {
      const Value src = g->values[k];
      if (src.dq_dtype == DT::Invalid) continue;
      const std::string what = "value " + num(k);
      if (src.dq_dtype != DT::QInt8) return fail(what + " has dq_datatype " + dt_name(src.dq_dtype) + " (only qint8)");
      if (!(src.flags & kFlagExternalInput) || src.is_constant() || src.dtype != DT::F32 || src.quant != Quant::None)
        return fail(what + ": dq_datatype is only allowed on an fp32 external input");
      Value q;
      q.id = next_id++;
      q.dtype = DT::QDInt8;
      q.dims = src.dims;
      q.quant = Quant::PerToken;
      q.num_nonbatch_dims = 1;
      g->values.push_back(q);
      Node c;
      c.op = Op::Convert;
      c.in[0] = static_cast<int32_t>(k);
      c.nin = 1;
      c.out = static_cast<int32_t>(g->values.size() - 1);
      implicit.push_back(c);
    }
    for (size_t a = 0; a < n; ++a)
      for (size_t b = a + 1; b < n; ++b)
        if (g->values[a].is_external() && g->values[b].is_external() && g->values[a].external_id == g->values[b].external_id)
          return fail("values " + num(a) + " and " + num(b) + " share external id " + num(g->values[a].external_id));
    // consumers of a legacy dq input read its qdint8 twin
    for (const Node& c : implicit) remap[g->values[c.in[0]].id] = c.out;
    return Status::ok();
  }

  Status ref(uint32_t id, int32_t* out, const std::string& what, bool optional = false) {
    if (id == kInvalidId && optional) {
      *out = -1;
      return Status::ok();
    }
    if (id >= remap.size() || remap[id] < 0) return fail(what + " refers to undefined value " + num(id));
    *out = remap[id];
    return Status::ok();
  }

  Status node(size_t k, const fx::XNode* xn, Node* n, bool allow_unsupported) {
    uint8_t t = static_cast<uint8_t>(xn->xnode_union_type());
    if (t == 0 || t >= static_cast<uint8_t>(Op::Count)) return fail("node " + num(k) + " has unknown type " + num(t));
    n->op = static_cast<Op>(t);
    std::string what = "node " + num(k) + " (" + op_name(n->op) + ")";
    if (!xn->xnode_union()) return fail(what + " has no parameters");
    if (!op_supported(n->op) && !allow_unsupported)
      return fail(ErrorCode::DelegateNodeUnsupported, "node " + num(k) + ": node type " + op_name(n->op) + " is not supported by pte-run");
    n->debug_handle = xn->debug_handle();
    if (const auto* mm = xn->output_min_max()) {
      n->out_min = mm->output_min();
      n->out_max = mm->output_max();
      if (std::isnan(n->out_min) || std::isnan(n->out_max) || n->out_min > n->out_max)
        return fail(what + " has output range [" + std::to_string(n->out_min) + ", " + std::to_string(n->out_max) + "]");
    }
    auto in = [&](int i, uint32_t id, bool optional = false) -> Status {
      PTE_TRY(ref(id, &n->in[i], what + " input " + num(i), optional));
      n->nin = std::max(n->nin, i + 1);
      return Status::ok();
    };
    auto out = [&](uint32_t id) { return ref(id, &n->out, what + " output"); };
    auto list = [&](const flatbuffers::Vector<uint32_t>* l, int64_t* dst, const char* name) -> Status {
      if (!l || l->size() > static_cast<size_t>(kMaxDims)) return fail(what + ": " + name + " missing or longer than 6");
      if (n->ndims && static_cast<int>(l->size()) != n->ndims) return fail(what + ": " + name + " has " + num(l->size()) + " entries, expected " + num(n->ndims));
      n->ndims = static_cast<int>(l->size());
      for (uint32_t i = 0; i < l->size(); ++i) dst[i] = l->Get(i);
      return Status::ok();
    };
    const void* u = xn->xnode_union();
    switch (n->op) {
      case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Div: case Op::Minimum: case Op::Maximum:
      case Op::PReLU: case Op::BatchMatrixMultiply: {
        const auto* p = static_cast<const fx::_XNNNode2x1*>(u);
        PTE_TRY(in(0, p->input1_id()));
        PTE_TRY(in(1, p->input2_id()));
        PTE_TRY(out(p->output_id()));
        n->flags = p->flags();
        break;
      }
      case Op::Softmax: case Op::Sigmoid: case Op::Clamp: case Op::Floor: case Op::Convert: case Op::GlobalAvgPooling2d:
      case Op::SquareRoot: case Op::Ceiling: case Op::Hardswish: case Op::Negate: case Op::Square: case Op::Abs:
      case Op::ReciprocalSquareRoot: case Op::Log: case Op::Gelu: case Op::Tanh: case Op::Exp: case Op::Sin:
      case Op::Copy: case Op::Cos: {
        const auto* p = static_cast<const fx::_XNNNode1x1*>(u);
        PTE_TRY(in(0, p->input_id()));
        PTE_TRY(out(p->output_id()));
        n->flags = p->flags();
        break;
      }
      case Op::LeakyReLU: {
        const auto* p = static_cast<const fx::XNNLeakyReLU*>(u);
        PTE_TRY(in(0, p->input_id()));
        PTE_TRY(out(p->output_id()));
        n->f = p->negative_slope();
        break;
      }
      case Op::ELU: {
        const auto* p = static_cast<const fx::XNNELU*>(u);
        PTE_TRY(in(0, p->input_id()));
        PTE_TRY(out(p->output_id()));
        n->f = p->alpha();
        break;
      }
      case Op::FullyConnected: {
        const auto* p = static_cast<const fx::XNNFullyConnected*>(u);
        PTE_TRY(in(0, p->input1_id()));
        PTE_TRY(in(1, p->filter_id()));
        PTE_TRY(in(2, p->bias_id(), true));
        PTE_TRY(out(p->output_id()));
        n->flags = p->flags();
        break;
      }
      case Op::Conv2d: case Op::DepthwiseConv2d: case Op::ConvTranspose2d: {
        const auto* p = static_cast<const fx::_XNNNodeConv*>(u);
        ConvParams& c = n->conv;
        c = {p->padding_top(), p->padding_right(), p->padding_bottom(), p->padding_left(), p->kernel_height(),
             p->kernel_width(), p->subsampling_height(), p->subsampling_width(), p->dilation_height(),
             p->dilation_width(), p->groups(), p->group_input_channels(), p->group_output_channels(),
             p->adjustment_height(), p->adjustment_width()};
        PTE_TRY(in(0, p->input1_id()));
        PTE_TRY(in(1, p->filter_id()));
        PTE_TRY(in(2, p->bias_id(), true));
        PTE_TRY(out(p->output_id()));
        n->flags = p->flags();
        if (c.kh == 0 || c.kw == 0 || c.sh == 0 || c.sw == 0 || c.dh == 0 || c.dw == 0 || c.groups == 0 || c.gic == 0 ||
            c.goc == 0 || c.kh > 4096 || c.kw > 4096 || c.groups > (1u << 20) || c.gic > (1u << 20) || c.goc > (1u << 20) ||
            c.pad_top > 65536 || c.pad_bottom > 65536 || c.pad_left > 65536 || c.pad_right > 65536 || c.sh > 65536 ||
            c.sw > 65536 || c.dh > 65536 || c.dw > 65536)
          return fail(what + " has invalid geometry");
        if (n->op != Op::ConvTranspose2d) {
          c.adj_h = c.adj_w = 0;  // only deconvolutions use it (the official runtime ignores it elsewhere)
        } else if (c.adj_h >= c.sh || c.adj_w >= c.sw) {
          return fail(what + " has adjustment " + num(c.adj_h) + "x" + num(c.adj_w) + ", not smaller than the stride " +
                      num(c.sh) + "x" + num(c.sw));
        }
        break;
      }
      case Op::StaticResizeBilinear2D: {
        const auto* p = static_cast<const fx::XNNStaticResizeBilinear2D*>(u);
        PTE_TRY(in(0, p->input_id()));
        PTE_TRY(out(p->output_id()));
        n->new_h = p->new_height(), n->new_w = p->new_width();
        n->flags = p->flags();
        if (n->new_h == 0 || n->new_w == 0 || n->new_h > (1u << 16) || n->new_w > (1u << 16))
          return fail(what + " has output size " + num(n->new_h) + "x" + num(n->new_w));
        if (n->flags & ~(kFlagAlignCorners | kFlagTensorflowLegacy))
          return fail(what + " has unknown flags " + num(n->flags));
        if ((n->flags & kFlagAlignCorners) && (n->flags & kFlagTensorflowLegacy))
          return fail(what + ": align_corners and TensorFlow legacy mode together");
        break;
      }
      case Op::AvgPooling2d: case Op::MaxPooling2d: {
        const auto* p = static_cast<const fx::_XNNPooling2D*>(u);
        ConvParams& c = n->conv;
        c.pad_top = p->padding_top(), c.pad_right = p->padding_right(), c.pad_bottom = p->padding_bottom(),
        c.pad_left = p->padding_left();
        c.kh = p->pooling_height(), c.kw = p->pooling_width(), c.sh = p->stride_height(), c.sw = p->stride_width();
        c.dh = p->dilation_height() ? p->dilation_height() : 1, c.dw = p->dilation_width() ? p->dilation_width() : 1;
        PTE_TRY(in(0, p->input_id()));
        PTE_TRY(out(p->output_id()));
        n->flags = p->flags();
        if (c.kh == 0 || c.kw == 0 || c.sh == 0 || c.sw == 0 || c.kh > 4096 || c.kw > 4096 || c.sh > 65536 ||
            c.sw > 65536 || c.dh > 65536 || c.dw > 65536 || c.pad_top > 65536 || c.pad_bottom > 65536 ||
            c.pad_left > 65536 || c.pad_right > 65536)
          return fail(what + " has invalid geometry");
        break;
      }
      case Op::StaticTranspose: {
        const auto* p = static_cast<const fx::XNNStaticTranspose*>(u);
        PTE_TRY(in(0, p->input_id()));
        PTE_TRY(out(p->output_id()));
        int64_t perm[kMaxDims];
        PTE_TRY(list(p->perm(), perm, "perm"));
        bool seen[kMaxDims] = {};
        for (int i = 0; i < n->ndims; ++i) {
          if (perm[i] < 0 || perm[i] >= n->ndims || seen[perm[i]]) return fail(what + " has an invalid permutation");
          seen[perm[i]] = true;
          n->perm[i] = static_cast<int>(perm[i]);
        }
        break;
      }
      case Op::StaticReshape: {
        const auto* p = static_cast<const fx::XNNStaticReshape*>(u);
        PTE_TRY(in(0, p->input_id()));
        PTE_TRY(out(p->output_id()));
        PTE_TRY(list(p->new_shape(), n->shape.d, "new_shape"));
        n->shape.n = n->ndims;
        int zeros = 0;
        for (int i = 0; i < n->shape.n; ++i) zeros += n->shape.d[i] == 0;
        if (zeros > 1) return fail(what + ": more than one dimension to infer");
        break;
      }
      case Op::StaticSlice: {
        const auto* p = static_cast<const fx::XNNStaticSlice*>(u);
        PTE_TRY(in(0, p->input_id()));
        PTE_TRY(out(p->output_id()));
        PTE_TRY(list(p->offsets(), n->offsets, "offsets"));
        PTE_TRY(list(p->sizes(), n->sizes, "sizes"));
        break;
      }
      case Op::StaticConstantPad: {
        const auto* p = static_cast<const fx::XNNStaticConstantPad*>(u);
        PTE_TRY(in(0, p->input_id()));
        PTE_TRY(out(p->output_id()));
        PTE_TRY(list(p->pre_paddings(), n->pre, "pre_paddings"));
        PTE_TRY(list(p->post_paddings(), n->post, "post_paddings"));
        for (int i = 0; i < n->ndims; ++i)
          if (n->pre[i] > (1 << 24) || n->post[i] > (1 << 24)) return fail(what + " has padding too large");
        n->f = p->padding_value();
        break;
      }
      case Op::Concatenate2: case Op::Concatenate3: case Op::Concatenate4: case Op::Concatenate5: {
        const auto* p = static_cast<const fx::_XNNCat*>(u);
        int cnt = 2 + (static_cast<int>(n->op) - static_cast<int>(Op::Concatenate2));
        if (n->op == Op::Concatenate5) cnt = 5;
        const uint32_t ids[5] = {p->input1_id(), p->input2_id(), p->input3_id(), p->input4_id(), p->input5_id()};
        for (int i = 0; i < cnt; ++i) PTE_TRY(in(i, ids[i]));
        PTE_TRY(out(p->output_id()));
        n->axis = p->axis();
        n->flags = p->flags();
        break;
      }
      default: {
        if (!allow_unsupported) return fail(ErrorCode::DelegateNodeUnsupported, what + " is not supported by pte-run");
        return Status::ok();  // listing only
      }
    }
    // every node writes a runtime value
    if (n->out >= 0 && g->values[n->out].is_constant()) return fail(what + " writes constant value " + num(g->values[n->out].id));
    return Status::ok();
  }

  Status nodes(bool allow_unsupported) {
    const auto* xn = root->xnodes();
    size_t n = xn ? xn->size() : 0;
    const size_t pre = implicit.size();
    g->nodes.resize(pre + n);
    for (size_t k = 0; k < pre; ++k) g->nodes[k] = implicit[k];
    for (size_t k = 0; k < n; ++k) PTE_TRY(node(k, xn->Get(static_cast<uint32_t>(k)), &g->nodes[pre + k], allow_unsupported));
    return Status::ok();
  }
};

}  // namespace

const char* op_name(Op op) {
  size_t i = static_cast<size_t>(op);
  return i < static_cast<size_t>(Op::Count) ? kOpNames[i] : "XNNUnknown";
}

const char* dt_name(DT t) {
  static const char* const names[] = {"invalid", "fp32", "fp16", "qint8", "quint8", "qint32", "qcint8", "qcint32",
                                      "qcint4", "qdint8", "qbint4", "qpint8", "int32", "pfp32", "bf16"};
  int i = static_cast<int>(t);
  return i >= 0 && i < 15 ? names[i] : "unknown";
}

size_t dt_size(DT t) {
  switch (t) {
    case DT::F32: case DT::QInt32: case DT::QCInt32: case DT::Int32: case DT::PF32: return 4;
    case DT::F16: case DT::BF16: return 2;
    case DT::QInt8: case DT::QUInt8: case DT::QCInt8: case DT::QDInt8: case DT::QPInt8: return 1;
    default: return 0;
  }
}

namespace {
size_t saturate_size(uint64_t v) { return v > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(v); }
}  // namespace

size_t value_bytes(DT t, const Shape& s) {
  if (t == DT::QCInt4 || t == DT::QBInt4) {
    if (s.n == 0) return 1;
    int64_t last = s.d[s.n - 1], rows = s.numel() / (last ? last : 1);
    return saturate_size(static_cast<uint64_t>(rows) * static_cast<uint64_t>((last + 1) / 2));
  }
  const uint64_t n = static_cast<uint64_t>(s.numel()), e = dt_size(t);
  return n > UINT64_MAX / (e ? e : 1) ? SIZE_MAX : saturate_size(n * e);
}

Status parse_graph(Bytes blob, const LoadedProgram* program, Graph* out, bool allow_unsupported) {
  Parser p{blob, program, out, nullptr, {}, {}, {}};
  p.keep_scales = !allow_unsupported;  // the info listing checks, it does not run
  PTE_TRY(p.header());
  out->version = p.root->version() ? p.root->version()->str() : std::string();
  PTE_TRY(p.values());
  PTE_TRY(p.nodes(allow_unsupported));
  return Status::ok();
}

void keep_nodes(Graph* g, const std::vector<size_t>& order, std::vector<int32_t>* origin) {
  std::vector<Node> kept;
  std::vector<int32_t> from;
  kept.reserve(order.size());
  for (size_t k : order) {
    kept.push_back(g->nodes[k]);
    if (origin) from.push_back(k < origin->size() ? (*origin)[k] : static_cast<int32_t>(k));
  }
  g->nodes.swap(kept);
  if (origin) origin->swap(from);
}

}  // namespace pte::xnn
