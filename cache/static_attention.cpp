#include "cache/static_attention.h"
#include "ops/util.h"
#include "util/host_tensor.h"

#include <cstring>
#include <limits>
#include <new>

namespace pte {

namespace {

const MethodInfo* constant_method(const ProgramInfo& info, const std::string& name) {
  for (const auto& m : info.methods)
    if (m.name == name && m.is_constant && !m.outputs.empty()) return &m;
  return nullptr;
}

bool const_int(const ProgramInfo& info, const std::string& name, int64_t* out) {
  const MethodInfo* m = constant_method(info, name);
  if (!m || m->outputs[0].tag != Tag::Int) return false;
  *out = m->outputs[0].int_value;
  return true;
}

// An int64 constant tensor as rows of `cols` values.
bool const_rows(const ProgramInfo& info, const std::string& name, size_t cols, std::vector<std::vector<int64_t>>* out) {
  const MethodInfo* m = constant_method(info, name);
  if (!m) return false;
  const ValueInfo& v = m->outputs[0];
  if (v.tag != Tag::Tensor || !v.constant_data || v.tensor.dtype != DType::Int64) return false;
  const auto& s = v.tensor.sizes;
  size_t n = 1;
  for (int64_t d : s) {
    if (d < 0 || d > (int64_t{1} << 20)) return false;
    n *= static_cast<size_t>(d);
  }
  if (n == 0 || n % cols) return false;
  out->assign(n / cols, std::vector<int64_t>(cols));
  const auto* p = static_cast<const uint8_t*>(v.constant_data);
  for (size_t r = 0; r < n / cols; ++r)
    for (size_t c = 0; c < cols; ++c) std::memcpy(&(*out)[r][c], p + (r * cols + c) * sizeof(int64_t), sizeof(int64_t));
  return true;
}

bool is_float(DType t) { return t == DType::Float || t == DType::Half || t == DType::BFloat16; }

void store(DType t, void* base, size_t i, float v) {
  switch (t) {
    case DType::Float: static_cast<float*>(base)[i] = v; break;
    case DType::Half: static_cast<Half*>(base)[i] = Half(v); break;
    default: static_cast<BFloat16*>(base)[i] = BFloat16(v); break;
  }
}

}  // namespace

bool StaticAttention::present(const ProgramInfo& info, const std::string& method) {
  int64_t v = 0;
  // the single-method export names its constants after "forward"
  return method == "forward" && const_int(info, "forward_input_len", &v) && constant_method(info, "kv_cache_specs");
}

std::vector<size_t> StaticAttention::cache_inputs(const ProgramInfo& info, const std::string& method) {
  std::vector<std::vector<int64_t>> specs;
  std::vector<size_t> r;
  if (!present(info, method) || !const_rows(info, "kv_cache_specs", 5, &specs)) return r;
  for (const auto& s : specs)
    for (int64_t i : {s[0], s[2]})
      if (i >= 0) r.push_back(static_cast<size_t>(i));
  return r;
}

Status StaticAttention::make_buffer(const MethodInfo& mi, size_t input, Buffer* b) {
  const TensorInfo& ti = mi.inputs[input].tensor;
  b->input = input;
  Tensor& t = b->tensor;
  t.dtype = ti.dtype;
  t.dim = static_cast<int32_t>(ti.sizes.size());
  uint64_t bytes = dtype_size(ti.dtype);  // (64-bit arithmetic: size_t is 32 bits on armhf)
  for (int d = 0; d < t.dim; ++d) {
    t.sizes[d] = ti.sizes[static_cast<size_t>(d)];
    t.dim_order[d] = static_cast<uint8_t>(d);
    if (t.sizes[d] <= 0 || t.sizes[d] > (int64_t{1} << 24) || bytes > (uint64_t{1} << 31) / static_cast<uint64_t>(t.sizes[d]))
      return Status::error("input " + std::to_string(input) + " (" + util::signature_entry(mi.inputs[input]) + ") has an empty or too large size");
    bytes *= static_cast<uint64_t>(t.sizes[d]);
  }
  compute_strides(t);
  try {
    b->storage.assign(static_cast<size_t>((bytes + 7) / 8), 0);
  } catch (const std::bad_alloc&) {
    return Status::error("cannot allocate the " + std::to_string(bytes) + " bytes of input " + std::to_string(input));
  }
  t.data = b->storage.data();
  t.capacity = static_cast<size_t>(bytes);
  return Status::ok();
}

Status StaticAttention::attach(const ProgramInfo& info, Method& method, std::unique_ptr<StaticAttention>* out) {
  const MethodInfo& mi = method.info();
  const std::string& name = mi.name;
  auto refuse = [&](const std::string& why) {
    return Status::error("method " + name + ": " + why +
                         ": pte-run runs ExecuTorch's static-attention export as its single-method \"smart_mask\" form "
                         "(tokens, masks, RoPE tables and one key and one value cache per layer as inputs)");
  };
  auto std_tensor = [&](size_t i) {
    return i < mi.inputs.size() && mi.inputs[i].tag == Tag::Tensor && mi.inputs[i].tensor.dynamism == Dynamism::Static;
  };
  std::unique_ptr<StaticAttention> s(new StaticAttention());
  if (!const_int(info, "forward_input_len", &s->input_len_) || s->input_len_ < 1 || s->input_len_ > (1 << 16))
    return refuse("no usable forward_input_len constant");
  std::vector<std::vector<int64_t>> kv, masks, cosi, sini;
  if (!const_rows(info, "kv_cache_specs", 5, &kv)) return refuse("kv_cache_specs is not an int64 tensor of [k_in, k_out, v_in, v_out, cache_len] rows");
  if (!const_rows(info, "mask_specs", 2, &masks)) return refuse("mask_specs is not an int64 tensor of [input, cache_len] rows");
  if (!const_rows(info, "freqs_cos_input_index", 1, &cosi) || !const_rows(info, "freqs_sin_input_index", 1, &sini))
    return refuse("no freqs_cos_input_index / freqs_sin_input_index constant");
  std::vector<bool> used(mi.inputs.size(), false);
  auto take_input = [&](int64_t i, const char* what) -> Status {
    if (i < 0 || !std_tensor(static_cast<size_t>(i)) || used[static_cast<size_t>(i)])
      return refuse(std::string(what) + " input " + std::to_string(i) + " is missing, not a static tensor, or named twice");
    used[static_cast<size_t>(i)] = true;
    return Status::ok();
  };
  // the caches: one cache length for all
  s->cache_len_ = kv[0][4];
  for (const auto& r : kv) {
    if (r[4] != s->cache_len_) return refuse("caches of different lengths (" + std::to_string(s->cache_len_) + ", " + std::to_string(r[4]) + ": sliding-window layers)");
    PTE_TRY(take_input(r[0], "key cache"));
    PTE_TRY(take_input(r[2], "value cache"));
  }
  if (s->cache_len_ <= s->input_len_) return refuse("cache length " + std::to_string(s->cache_len_) + " is not longer than the input length");
  for (const auto& r : kv) s->cache_io_.emplace_back(static_cast<size_t>(r[0]), static_cast<size_t>(r[1]));
  for (const auto& r : kv) s->cache_io_.emplace_back(static_cast<size_t>(r[2]), static_cast<size_t>(r[3]));
  // tokens: input 0, i32 or i64 [1, IN]
  PTE_TRY(take_input(0, "token"));
  const TensorInfo& tok = mi.inputs[0].tensor;
  if ((tok.dtype != DType::Int32 && tok.dtype != DType::Int64) || tok.sizes != std::vector<int64_t>{1, s->input_len_})
    return refuse("input 0 (" + util::signature_entry(mi.inputs[0]) + ") is not int tokens [1, " + std::to_string(s->input_len_) + "]");
  PTE_TRY(s->make_buffer(mi, 0, &s->tokens_));
  // masks [1, IN, IN + C]
  for (const auto& r : masks) {
    PTE_TRY(take_input(r[0], "mask"));
    const ValueInfo& v = mi.inputs[static_cast<size_t>(r[0])];
    if (r[1] != s->cache_len_)
      return refuse("mask_specs gives mask input " + std::to_string(r[0]) + " the cache length " + std::to_string(r[1]) + ", the caches have " +
                    std::to_string(s->cache_len_));
    if (!is_float(v.tensor.dtype) ||
        v.tensor.sizes != std::vector<int64_t>{1, s->input_len_, s->input_len_ + s->cache_len_})
      return refuse("mask input " + std::to_string(r[0]) + " (" + util::signature_entry(v) + ") is not a float [1, " + std::to_string(s->input_len_) +
                    ", " + std::to_string(s->input_len_ + s->cache_len_) + "] for the cache length " + std::to_string(s->cache_len_));
    Buffer b;
    PTE_TRY(s->make_buffer(mi, static_cast<size_t>(r[0]), &b));
    s->masks_.push_back(std::move(b));
  }
  // RoPE: inputs [IN, R], tables [context, R] of the same dtype
  PTE_TRY(take_input(cosi[0][0], "freqs_cos"));
  PTE_TRY(take_input(sini[0][0], "freqs_sin"));
  const TensorInfo& ci = mi.inputs[static_cast<size_t>(cosi[0][0])].tensor;
  const TensorInfo& si = mi.inputs[static_cast<size_t>(sini[0][0])].tensor;
  const MethodInfo* ct = constant_method(info, "freqs_cos");
  const MethodInfo* st = constant_method(info, "freqs_sin");
  if (!ct || !st) return refuse("no freqs_cos / freqs_sin constant (the RoPE tables)");
  const ValueInfo& cv = ct->outputs[0];
  const ValueInfo& sv = st->outputs[0];
  if (ci.sizes.size() != 2 || ci.sizes[0] != s->input_len_ || ci.sizes != si.sizes || ci.dtype != si.dtype || !is_float(ci.dtype) ||
      cv.tag != Tag::Tensor || sv.tag != Tag::Tensor || !cv.constant_data || !sv.constant_data || cv.tensor.sizes.size() != 2 ||
      cv.tensor.sizes != sv.tensor.sizes || cv.tensor.sizes[1] != ci.sizes[1] || cv.tensor.dtype != ci.dtype || sv.tensor.dtype != ci.dtype ||
      cv.tensor.sizes[0] < s->cache_len_ + 1)
    return refuse("the RoPE inputs (" + util::signature_entry(mi.inputs[static_cast<size_t>(cosi[0][0])]) +
                  ") and the freqs_cos / freqs_sin tables do not agree (rows of one width and dtype, a row per position)");
  PTE_TRY(s->make_buffer(mi, static_cast<size_t>(cosi[0][0]), &s->cos_));
  PTE_TRY(s->make_buffer(mi, static_cast<size_t>(sini[0][0]), &s->sin_));
  s->cos_table_ = static_cast<const uint8_t*>(cv.constant_data);
  s->sin_table_ = static_cast<const uint8_t*>(sv.constant_data);
  s->table_rows_ = cv.tensor.sizes[0];
  s->row_bytes_ = static_cast<size_t>(ci.sizes[1]) * dtype_size(ci.dtype);
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i]) return refuse("input " + std::to_string(i) + " (" + util::signature_entry(mi.inputs[i]) + ") is none of tokens, masks, RoPE tables or caches");
  if (mi.outputs.size() != 1 + 2 * kv.size()) return refuse("it returns " + std::to_string(mi.outputs.size()) + " outputs, not the logits and a key and value update per layer");
  // the logits of every position of the call (the export's generate_full_logits)
  const ValueInfo& lo = mi.outputs[0];
  if (lo.tag != Tag::Tensor || lo.tensor.sizes.size() != 3 || lo.tensor.sizes[0] != 1 || lo.tensor.sizes[1] != s->input_len_)
    return refuse("output 0 (" + util::signature_entry(lo) + ") is not the logits of every position [1, " + std::to_string(s->input_len_) +
                  ", V] (an export without generate_full_logits)");
  // caches [1, C, D] are kept per KV head (split MHA): n_heads_per_cache of them a layer
  int64_t heads = 0;
  if (mi.inputs[static_cast<size_t>(kv[0][0])].tensor.sizes.size() == 3 && const_int(info, "n_heads_per_cache", &heads) && heads > 0 &&
      kv.size() % static_cast<size_t>(heads) == 0)
    s->tensors_per_layer_ = static_cast<int>(2 * heads);
  *out = std::move(s);
  return Status::ok();
}

Status StaticAttention::attach_cache(const ProgramInfo& info, Method& method, int64_t context_len, std::unique_ptr<KvCache>* out,
                                     int64_t* capacity) {
  if (!present(info, method.info().name)) {
    *capacity = context_len;
    return KvCache::attach(method, context_len, out);
  }
  std::unique_ptr<StaticAttention> s;
  PTE_TRY(attach(info, method, &s));
  *capacity = s->cache_len();
  return s->attach_kv(method, out);
}

Status StaticAttention::attach_kv(Method& method, std::unique_ptr<KvCache>* out) const {
  PTE_TRY(KvCache::attach(method, cache_len_, cache_io_, out));
  (*out)->set_tensors_per_layer(tensors_per_layer_);
  return Status::ok();
}

std::string StaticAttention::other_form(const ProgramInfo& info) {
  int64_t v = 0;
  if (!const_int(info, "forward_input_len", &v) && (const_int(info, "decode_input_len", &v) || const_int(info, "prefill_input_len", &v)))
    return "ExecuTorch's two-method (prefill / decode) static-attention export is not run yet: export it as one method "
           "(export_static_llm_coreml.py without --multifunction, or to_edge with the constant methods of that form)";
  return "";
}

Status StaticAttention::set_inputs(Method& method, const int32_t* ids, int64_t n, int64_t pos) {
  if (n < 1 || n > input_len_ || pos < 0 || pos + n > cache_len_)
    return Status::error("static attention: a call of " + std::to_string(n) + " tokens at position " + std::to_string(pos) +
                         " does not fit the input length " + std::to_string(input_len_) + " and cache length " + std::to_string(cache_len_));
  const size_t IN = static_cast<size_t>(input_len_), C = static_cast<size_t>(cache_len_);
  // tokens, padded with 0
  for (size_t i = 0; i < IN; ++i) {
    const int32_t id = i < static_cast<size_t>(n) ? ids[i] : 0;
    if (tokens_.tensor.dtype == DType::Int32) static_cast<int32_t*>(tokens_.tensor.data)[i] = id;
    else static_cast<int64_t*>(tokens_.tensor.data)[i] = id;
  }
  PTE_TRY(method.set_input(tokens_.input, tokens_.tensor));
  // masks: cache slots [0, pos) and the call's columns up to the row's own
  const float masked = -std::numeric_limits<float>::infinity();
  for (Buffer& m : masks_) {
    const DType dt = m.tensor.dtype;
    for (size_t i = 0; i < IN; ++i) {
      const size_t row = i * (IN + C);
      for (size_t j = 0; j < C; ++j) store(dt, m.tensor.data, row + j, j < static_cast<size_t>(pos) ? 0.f : masked);
      for (size_t j = 0; j < IN; ++j) store(dt, m.tensor.data, row + C + j, j <= i ? 0.f : masked);
    }
    PTE_TRY(method.set_input(m.input, m.tensor));
  }
  // RoPE rows pos .. pos + IN - 1 (rows past the table, padding only, are zero)
  for (auto [buf, table] : {std::pair<Buffer*, const uint8_t*>{&cos_, cos_table_}, {&sin_, sin_table_}}) {
    uint8_t* dst = static_cast<uint8_t*>(buf->tensor.data);
    for (size_t i = 0; i < IN; ++i) {
      const int64_t r = pos + static_cast<int64_t>(i);
      if (r < table_rows_) std::memcpy(dst + i * row_bytes_, table + static_cast<size_t>(r) * row_bytes_, row_bytes_);
      else std::memset(dst + i * row_bytes_, 0, row_bytes_);
    }
    PTE_TRY(method.set_input(buf->input, buf->tensor));
  }
  return Status::ok();
}

}  // namespace pte
