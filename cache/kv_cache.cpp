#include "cache/kv_cache.h"
#include "util/host_tensor.h"

#include <limits>

#include <algorithm>
#include <cstring>
#include <new>

namespace pte {

Status KvCache::attach(Method& method, int64_t context_len, std::unique_ptr<KvCache>* out) {
  return attach(method, context_len, nullptr, out);
}

Status KvCache::attach(Method& method, int64_t context_len, const std::vector<std::pair<size_t, size_t>>& inputs_outputs,
                       std::unique_ptr<KvCache>* out) {
  return attach(method, context_len, &inputs_outputs, out);
}

Status KvCache::attach(Method& method, int64_t context_len, const std::vector<std::pair<size_t, size_t>>* io,
                       std::unique_ptr<KvCache>* out) {
  std::unique_ptr<KvCache> c(new KvCache());
  c->capacity_ = context_len;
  std::vector<StateTensor> state = method.state_tensors();
  // ring position tensors: int64 [slots], slots != context_len
  for (const StateTensor& s : state) {
    const Tensor& t = *s.tensor;
    if (t.data && t.dim == 1 && t.dtype == DType::Int64 && t.sizes[0] > 1 && t.sizes[0] != context_len) {
      if (c->ring_slots_ && c->ring_slots_ != t.sizes[0])
        return Status::error("method " + method.info().name + ": sliding-window rings of " + std::to_string(c->ring_slots_) +
                             " and " + std::to_string(t.sizes[0]) + " slots: one window per program is supported");
      c->ring_slots_ = t.sizes[0];
    }
  }
  c->window_ = c->ring_slots_ / 2;
  for (const StateTensor& s : state) {
    const Tensor& t = *s.tensor;
    if (!t.data) continue;
    bool ring_pos = c->ring_slots_ && t.dim == 1 && t.dtype == DType::Int64 && t.sizes[0] == c->ring_slots_;
    if (t.dim < 2 && !ring_pos) continue;
    if (!t.contiguous_order())
      return Status::error("method " + method.info().name + ": state tensor (value " + std::to_string(s.value) +
                           ") is not contiguous: cannot treat it as a KV cache");
    CacheTensor ct;
    ct.value = s.value;
    ct.tensor = s.tensor;
    ct.bytes = t.nbytes();
    if (ring_pos) {
      ct.kind = CacheKind::RingPositions;
      ct.position_dim = 0;
      c->tensors_.push_back(ct);
      continue;
    }
    // the position dimension: sized context_len, batch (dim 0) excluded when of size 1
    for (int d = 1; d < t.dim; ++d)
      if (t.sizes[d] == context_len) { ct.position_dim = d; break; }
    if (ct.position_dim < 0 && c->ring_slots_)
      for (int d = 1; d < t.dim; ++d)
        if (t.sizes[d] == c->ring_slots_) { ct.position_dim = d; ct.kind = CacheKind::Ring; break; }
    if (ct.position_dim < 0 && c->unsupported_.empty()) {
      std::string shape;
      for (int d = 0; d < t.dim; ++d) shape += (d ? "," : "") + std::to_string(t.sizes[d]);
      c->unsupported_ = "state tensor (value " + std::to_string(s.value) + ", shape [" + shape +
                        "]) has no dimension of the context length " + std::to_string(context_len) +
                        (c->ring_slots_ ? " nor of the ring's " + std::to_string(c->ring_slots_) + " slots" : std::string()) +
                        " and no ring positions beside it: pte-run cannot rewind, save or restore it";
    }
    c->tensors_.push_back(ct);
  }
  if (io) {
    PTE_TRY(c->attach_inputs(method, *io));
  } else if (method.info().inputs.size() > 2) {
    const MethodInfo& mi = method.info();
    const size_t nin = mi.inputs.size() - 2;
    const size_t nout = mi.outputs.empty() ? 0 : mi.outputs.size() - 1;
    if (nin != nout)
      return c->refuse_inputs(mi, "it takes " + std::to_string(nin) + " inputs after the token ids and positions but returns " +
                                      std::to_string(nout) + " outputs after the logits");
    std::vector<std::pair<size_t, size_t>> pairs;
    for (size_t k = 0; k < nin; ++k) pairs.emplace_back(2 + k, 1 + k);
    PTE_TRY(c->attach_inputs(method, pairs));
  }
  *out = std::move(c);
  return Status::ok();
}

namespace {

bool contiguous(const TensorInfo& t) {
  for (size_t d = 0; d < t.dim_order.size(); ++d)
    if (t.dim_order[d] != d) return false;
  return true;
}

}  // namespace

Status KvCache::refuse_inputs(const MethodInfo& mi, const std::string& why) const {
  return Status::error("method " + mi.name + ": " + why +
                       ": the inputs after the token ids and positions must be KV-cache tensors (a dimension of the context length " +
                       std::to_string(capacity_) +
                       "), each returned updated, whole or its new positions, by the output after the logits in the same order; "
                       "this program is not a decoder pte-run generates with ('pte-run run' runs it as a plain program)");
}

Status KvCache::attach_inputs(Method& method, const std::vector<std::pair<size_t, size_t>>& pairs) {
  const MethodInfo& mi = method.info();
  auto refuse = [&](const std::string& why) { return refuse_inputs(mi, why); };
  for (const auto& [ii, oi] : pairs) {
    if (ii >= mi.inputs.size() || oi >= mi.outputs.size())
      return refuse("input " + std::to_string(ii) + " or output " + std::to_string(oi) + " does not exist");
    const ValueInfo& in = mi.inputs[ii];
    const ValueInfo& out = mi.outputs[oi];
    const std::string pair = "input " + std::to_string(ii) + " (" + util::signature_entry(in) + ") and output " + std::to_string(oi) + " (" +
                             util::signature_entry(out) + ")";
    if (in.tag != Tag::Tensor || out.tag != Tag::Tensor) return refuse(pair + " are not both tensors");
    const TensorInfo& ti = in.tensor;
    const TensorInfo& to = out.tensor;
    if (ti.dynamism != Dynamism::Static) return refuse("input " + std::to_string(ii) + " (" + util::signature_entry(in) + ") has no static shape");
    if (ti.dtype != to.dtype || ti.sizes.size() != to.sizes.size() || ti.sizes.size() < 2 || ti.sizes.size() > static_cast<size_t>(kMaxDims))
      return refuse(pair + " do not pair up (dtype or rank)");
    if (!contiguous(ti) || !contiguous(to)) return refuse(pair + " are not in contiguous dim order");
    CacheTensor ct;
    ct.input = static_cast<int>(ii);
    ct.by_pointer = method.input_bound_by_pointer(ii);
    ct.output = static_cast<int>(oi);
    int differ = -1, ndiffer = 0;
    for (size_t d = 0; d < ti.sizes.size(); ++d)
      if (ti.sizes[d] != to.sizes[d]) differ = static_cast<int>(d), ++ndiffer;
    if (ndiffer == 0) {
      // the whole cache, or (a dynamic output) its new positions with a bound of the context
      for (size_t d = 1; d < ti.sizes.size() && ct.position_dim < 0; ++d)
        if (ti.sizes[d] == capacity_) ct.position_dim = static_cast<int>(d);
      ct.slice = to.dynamism != Dynamism::Static;
    } else if (ndiffer == 1 && differ >= 1 && ti.sizes[static_cast<size_t>(differ)] == capacity_ &&
               to.sizes[static_cast<size_t>(differ)] >= 1 && to.sizes[static_cast<size_t>(differ)] < capacity_) {
      ct.position_dim = differ;
      ct.slice = true;
    } else {
      return refuse(pair + " do not pair up: the output must have the input's shape, or a shorter position dimension");
    }
    if (ct.position_dim < 0) return refuse("input " + std::to_string(ii) + " (" + util::signature_entry(in) + ") has no dimension of the context length");
    auto t = std::make_unique<Tensor>();
    t->dtype = ti.dtype;
    t->dim = static_cast<int32_t>(ti.sizes.size());
    // in 64 bits, then checked against size_t: a 32-bit size_t must not wrap
    uint64_t bytes = dtype_size(ti.dtype);
    for (int d = 0; d < t->dim; ++d) {
      const int64_t n = ti.sizes[static_cast<size_t>(d)];
      if (n < 0 || (n > 0 && bytes > (uint64_t{1} << 40) / static_cast<uint64_t>(n)) ||
          (n > 0 && bytes * static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max()))
        return refuse("input " + std::to_string(ii) + " (" + util::signature_entry(in) + ") has a negative or too large size");
      bytes *= static_cast<uint64_t>(n);
      t->sizes[d] = n;
      t->dim_order[d] = static_cast<uint8_t>(d);
    }
    compute_strides(*t);
    ct.bytes = static_cast<size_t>(bytes);
    try {
      storage_.emplace_back((ct.bytes + 7) / 8, 0);
    } catch (const std::bad_alloc&) {
      return Status::error("method " + mi.name + ": cannot allocate the " + std::to_string(ct.bytes) + " bytes of KV cache input " +
                           std::to_string(ii));
    }
    t->data = storage_.back().data();
    t->capacity = ct.bytes;
    ct.tensor = t.get();
    owned_.push_back(std::move(t));
    tensors_.push_back(ct);
  }
  return Status::ok();
}

std::vector<size_t> KvCache::input_candidates(const MethodInfo& info) {
  std::vector<size_t> r;
  for (size_t k = 2; k < info.inputs.size(); ++k)
    if (info.inputs[k].tag == Tag::Tensor && info.inputs[k].tensor.dynamism == Dynamism::Static) r.push_back(k);
  return r;
}

std::string KvCache::where() const {
  size_t in = input_tensors();
  if (tensors_.empty()) return "none found";
  if (in == 0) return "mutable buffers";
  if (in == tensors_.size()) return "method inputs";
  return "mutable buffers and method inputs";
}

size_t KvCache::input_tensors() const {
  size_t n = 0;
  for (const auto& c : tensors_) n += c.input >= 0;
  return n;
}

Status KvCache::feed(Method& method) const {
  for (const auto& c : tensors_)
    if (c.input >= 0) PTE_TRY(method.set_input(static_cast<size_t>(c.input), *c.tensor));
  return Status::ok();
}

Status KvCache::take(Method& method, int64_t pos, int64_t n) {
  for (const auto& c : tensors_) {
    if (c.input < 0) continue;
    const EValue& v = method.output(static_cast<size_t>(c.output));
    const Tensor& cache = *c.tensor;
    auto bad = [&](const char* why) {
      return Status::error("KV cache output " + std::to_string(c.output) + " (for input " + std::to_string(c.input) + "): " + why);
    };
    if (!v.is_tensor()) return bad("not a tensor");
    const Tensor& t = *v.t;
    if (t.dtype != cache.dtype || t.dim != cache.dim || !t.contiguous_order()) return bad("dtype, rank or dim order differs from the cache's");
    for (int d = 0; d < t.dim; ++d)
      if (d != c.position_dim && t.sizes[d] != cache.sizes[d]) return bad("its shape differs from the cache's");
    const int64_t rows = t.sizes[c.position_dim];
    if (!c.slice) {
      if (rows != cache.sizes[c.position_dim]) return bad("its shape differs from the cache's");
      if (t.data != cache.data) std::memcpy(cache.data, t.data, c.bytes);
      continue;
    }
    // the call's new positions: the first n rows (a program may pad its input)
    if (rows < n || pos < 0 || n < 0 || pos + n > cache.sizes[c.position_dim])
      return bad("it holds fewer positions than the call wrote, or they do not fit the cache");
    size_t outer, inner;
    geometry(c, &outer, &inner);
    const size_t cap = static_cast<size_t>(cache.sizes[c.position_dim]);
    uint8_t* dst = static_cast<uint8_t*>(cache.data);
    const uint8_t* src = static_cast<const uint8_t*>(t.data);
    for (size_t o = 0; o < outer; ++o)
      std::memcpy(dst + (o * cap + static_cast<size_t>(pos)) * inner, src + o * static_cast<size_t>(rows) * inner,
                  static_cast<size_t>(n) * inner);
  }
  return Status::ok();
}

size_t KvCache::ring_positions_tensors() const {
  size_t n = 0;
  for (const auto& c : tensors_) n += c.kind == CacheKind::RingPositions;
  return n;
}

int KvCache::ring_layers() const {
  size_t n = 0;
  for (const auto& c : tensors_) n += c.kind == CacheKind::Ring;
  return static_cast<int>(n / 2);
}

void KvCache::clear_ring_slot(int64_t slot) {
  for (const auto& c : tensors_) {
    if (c.kind == CacheKind::RingPositions) {
      static_cast<int64_t*>(c.tensor->data)[slot] = -1;
    } else if (c.kind == CacheKind::Ring) {
      size_t outer, inner;
      geometry(c, &outer, &inner);
      size_t cap = static_cast<size_t>(c.tensor->sizes[c.position_dim]);
      uint8_t* base = static_cast<uint8_t*>(c.tensor->data);
      for (size_t o = 0; o < outer; ++o) std::memset(base + (o * cap + static_cast<size_t>(slot)) * inner, 0, inner);
    }
  }
}

size_t KvCache::bytes() const {
  size_t n = 0;
  for (const auto& c : tensors_) n += c.bytes;
  return n;
}

void KvCache::geometry(const CacheTensor& c, size_t* outer, size_t* inner) const {
  const Tensor& t = *c.tensor;
  size_t o = 1, i = dtype_size(t.dtype);
  for (int d = 0; d < c.position_dim; ++d) o *= static_cast<size_t>(t.sizes[d]);
  for (int d = c.position_dim + 1; d < t.dim; ++d) i *= static_cast<size_t>(t.sizes[d]);
  *outer = o;
  *inner = i;
}

void KvCache::reset() {
  for (const auto& c : tensors_) {
    if (c.kind == CacheKind::RingPositions) {
      int64_t* p = static_cast<int64_t*>(c.tensor->data);
      for (int64_t i = 0; i < c.tensor->sizes[0]; ++i) p[i] = -1;
    } else {
      std::memset(c.tensor->data, 0, c.bytes);
    }
  }
  length_ = 0;
}

Status KvCache::rewind(int64_t pos) {
  if (pos < 0 || pos > length_)
    return Status::error("cannot rewind the cache to position " + std::to_string(pos) + " (it holds " + std::to_string(length_) + ")");
  if (pos == length_) return Status::ok();
  if (!unsupported_.empty()) return Status::error(unsupported_);
  if (ring_slots_) {
    // the next token (position pos) attends to positions [pos - window + 1, pos]: those
    // before pos must still be in the ring
    const CacheTensor* rp = nullptr;
    for (const auto& c : tensors_)
      if (c.kind == CacheKind::RingPositions) { rp = &c; break; }
    const int64_t* slots = static_cast<const int64_t*>(rp->tensor->data);
    for (int64_t q = std::max<int64_t>(0, pos - window_ + 1); q < pos; ++q)
      if (slots[q % ring_slots_] != q)
        return Status::error("cannot rewind the cache from " + std::to_string(length_) + " to position " + std::to_string(pos) +
                             ": its sliding-window layers keep only the last " + std::to_string(ring_slots_) +
                             " positions, and position " + std::to_string(q) + " of the window is gone (a ring can step back at most " +
                             std::to_string(ring_slots_ - window_ + 1) + " positions)");
    for (int64_t slot = 0; slot < ring_slots_; ++slot)
      if (slots[slot] >= pos) clear_ring_slot(slot);
  }
  for (const auto& c : tensors_) {
    if (c.kind != CacheKind::Full) continue;
    size_t outer, inner;
    geometry(c, &outer, &inner);
    size_t cap = static_cast<size_t>(c.tensor->sizes[c.position_dim]);
    uint8_t* base = static_cast<uint8_t*>(c.tensor->data);
    for (size_t o = 0; o < outer; ++o)
      std::memset(base + (o * cap + static_cast<size_t>(pos)) * inner, 0, (cap - static_cast<size_t>(pos)) * inner);
  }
  length_ = pos;
  return Status::ok();
}

size_t KvCache::saved_bytes(int64_t length) const {
  size_t n = 0;
  if (!unsupported_.empty()) return 0;
  for (const auto& c : tensors_) {
    if (c.kind != CacheKind::Full) {
      n += c.bytes;
      continue;
    }
    size_t outer, inner;
    geometry(c, &outer, &inner);
    n += outer * static_cast<size_t>(length) * inner;
  }
  return n;
}

std::vector<uint8_t> KvCache::save() const {
  if (!unsupported_.empty()) return {};
  std::vector<uint8_t> r(saved_bytes(length_));
  size_t at = 0;
  for (const auto& c : tensors_) {
    if (c.kind != CacheKind::Full) {
      std::memcpy(r.data() + at, c.tensor->data, c.bytes);
      at += c.bytes;
      continue;
    }
    size_t outer, inner;
    geometry(c, &outer, &inner);
    size_t cap = static_cast<size_t>(c.tensor->sizes[c.position_dim]);
    const uint8_t* base = static_cast<const uint8_t*>(c.tensor->data);
    size_t n = static_cast<size_t>(length_) * inner;
    for (size_t o = 0; o < outer; ++o) {
      std::memcpy(r.data() + at, base + o * cap * inner, n);
      at += n;
    }
  }
  return r;
}

Status KvCache::restore(const uint8_t* data, size_t size, int64_t length) {
  if (!unsupported_.empty()) return Status::error(unsupported_);
  if (length < 0 || length > capacity_)
    return Status::error("the saved cache holds " + std::to_string(length) + " positions; this one has " + std::to_string(capacity_));
  if (size != saved_bytes(length))
    return Status::error("the saved cache has " + std::to_string(size) + " bytes; " + std::to_string(length) + " positions of this program's cache take " +
                         std::to_string(saved_bytes(length)));
  reset();
  size_t at = 0;
  for (const auto& c : tensors_) {
    if (c.kind != CacheKind::Full) {
      std::memcpy(c.tensor->data, data + at, c.bytes);
      at += c.bytes;
      continue;
    }
    size_t outer, inner;
    geometry(c, &outer, &inner);
    size_t cap = static_cast<size_t>(c.tensor->sizes[c.position_dim]);
    uint8_t* base = static_cast<uint8_t*>(c.tensor->data);
    size_t n = static_cast<size_t>(length) * inner;
    for (size_t o = 0; o < outer; ++o) {
      std::memcpy(base + o * cap * inner, data + at, n);
      at += n;
    }
  }
  length_ = length;
  return Status::ok();
}

}  // namespace pte
