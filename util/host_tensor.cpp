// pte-run tools: host tensors (see host_tensor.h).
#include "util/host_tensor.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "ops/util.h"

namespace pte::util {

namespace {

std::string num(int64_t v) { return std::to_string(v); }

std::string scalar_string(const ValueInfo& v) {
  char buf[64];
  switch (v.tag) {
    case Tag::Int: return "i64:" + num(v.int_value);
    case Tag::Double: std::snprintf(buf, sizeof(buf), "f64:%.17g", v.double_value); return buf;
    case Tag::Bool: return v.bool_value ? "bool:true" : "bool:false";
    case Tag::String: return "str:\"" + v.string_value + "\"";
    case Tag::None: return "none";
    default: return tag_name(v.tag);
  }
}

// Visits every element's physical element offset in C (logical) order.
template <class F>
void for_each_logical(const int64_t* sizes, const int64_t* strides, int dim, F&& f) {
  int64_t n = 1;
  for (int d = 0; d < dim; ++d) n *= sizes[d];
  if (n == 0) return;
  int64_t idx[kMaxDims] = {0};
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, off);
    for (int d = dim - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) {
        off += strides[d];
        break;
      }
      off -= (sizes[d] - 1) * strides[d];
      idx[d] = 0;
    }
  }
}

bool valid_dim_order(const uint8_t* order, size_t dim) {
  bool seen[kMaxDims] = {false};
  for (size_t k = 0; k < dim; ++k) {
    if (order[k] >= dim || seen[order[k]]) return false;
    seen[order[k]] = true;
  }
  return true;
}

}  // namespace

std::string shape_string(DType dtype, const int64_t* sizes, size_t dim) {
  std::string s = dtype_short_name(dtype);
  s += '[';
  for (size_t k = 0; k < dim; ++k) {
    if (k) s += ',';
    s += num(sizes[k]);
  }
  s += ']';
  return s;
}

std::string signature_entry(const ValueInfo& v) {
  if (v.tag != Tag::Tensor) return scalar_string(v);
  const TensorInfo& t = v.tensor;
  std::string s = dtype_short_name(t.dtype);
  s += '[';
  for (size_t k = 0; k < t.sizes.size(); ++k) {
    if (k) s += ',';
    if (t.dynamism != Dynamism::Static) s += "<=";
    s += num(t.sizes[k]);
  }
  s += ']';
  return s;
}

std::string signature_string(const MethodInfo& m) {
  std::string s = m.name + "(";
  for (size_t k = 0; k < m.inputs.size(); ++k) s += (k ? ", " : "") + signature_entry(m.inputs[k]);
  s += ") -> (";
  for (size_t k = 0; k < m.outputs.size(); ++k) {
    const ValueInfo& o = m.outputs[k];
    // Outputs of a normal method are computed; only show their type.
    std::string e = o.tag == Tag::Tensor ? signature_entry(o) : m.is_constant ? scalar_string(o) : tag_name(o.tag);
    s += (k ? ", " : "") + e;
  }
  s += ")";
  return s;
}

bool is_floating(DType dtype) {
  return dtype == DType::Float || dtype == DType::Double || dtype == DType::Half || dtype == DType::BFloat16;
}

double element_as_double(DType dtype, const void* base, int64_t i) {
  const uint8_t* p = static_cast<const uint8_t*>(base) + static_cast<size_t>(i) * dtype_size(dtype);
  switch (dtype) {
    case DType::Float: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::Double: { double v; std::memcpy(&v, p, 8); return v; }
    case DType::Half: { uint16_t v; std::memcpy(&v, p, 2); return half_bits_to_float(v); }
    case DType::BFloat16: { uint16_t v; std::memcpy(&v, p, 2); return bf16_bits_to_float(v); }
    case DType::Int64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::Int32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::Int16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::Int8: case DType::QInt8: return static_cast<int8_t>(*p);
    case DType::UInt8: case DType::QUInt8: return *p;
    case DType::Bool: return *p ? 1.0 : 0.0;
    case DType::UInt16: case DType::Bits16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::UInt32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::UInt64: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::QInt32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    default: return std::nan("");
  }
}

Status host_from_tensor(const Tensor& t, HostTensor* out) {
  size_t es = dtype_size(t.dtype);
  if (es == 0) return Status::error("tensor has unknown dtype " + num(static_cast<int>(t.dtype)));
  if (t.dim < 0 || t.dim > kMaxDims) return Status::error("tensor has rank " + num(t.dim));
  out->dtype = t.dtype;
  out->shape.assign(t.sizes, t.sizes + t.dim);
  int64_t n = t.numel();
  out->bytes.assign(static_cast<size_t>(n) * es, 0);
  if (n == 0) return Status::ok();
  if (!t.data) return Status::error("tensor " + shape_string(t.dtype, t.sizes, t.dim) + " has no data");
  const uint8_t* src = static_cast<const uint8_t*>(t.data);
  uint8_t* dst = out->bytes.data();
  if (t.contiguous_order()) {
    std::memcpy(dst, src, out->bytes.size());
    return Status::ok();
  }
  for_each_logical(t.sizes, t.strides, t.dim, [&](int64_t i, int64_t off) {
    std::memcpy(dst + static_cast<size_t>(i) * es, src + static_cast<size_t>(off) * es, es);
  });
  return Status::ok();
}

Status host_from_evalue(const EValue& v, HostValue* out) {
  out->tag = v.tag;
  switch (v.tag) {
    case Tag::Tensor:
      if (!v.t) return Status::error("tensor value has no tensor");
      return host_from_tensor(*v.t, &out->tensor);
    case Tag::Int: out->i = v.i; return Status::ok();
    case Tag::Double: out->d = v.d; return Status::ok();
    case Tag::Bool: out->b = v.b; return Status::ok();
    case Tag::String: out->s.assign(v.str.data ? v.str.data : "", v.str.size); return Status::ok();
    case Tag::None: return Status::ok();
    default: return Status::error(std::string("cannot read a value of type ") + tag_name(v.tag));
  }
}

Status host_from_physical(DType dtype, const int64_t* sizes, size_t dim, const uint8_t* dim_order,
                          const void* physical, size_t physical_bytes, HostTensor* out) {
  Tensor t;
  if (dim > static_cast<size_t>(kMaxDims)) return Status::error("rank " + num(static_cast<int64_t>(dim)) + " exceeds " + num(kMaxDims));
  size_t es = dtype_size(dtype);
  if (es == 0) return Status::error("unknown dtype " + num(static_cast<int>(dtype)));
  t.dtype = dtype;
  t.dim = static_cast<int32_t>(dim);
  int64_t n = 1;
  for (size_t k = 0; k < dim; ++k) {
    if (sizes[k] < 0) return Status::error("negative size " + num(sizes[k]));
    t.sizes[k] = sizes[k];
    if (sizes[k] && n > INT64_MAX / sizes[k]) return Status::error("element count overflows");
    n *= sizes[k];
    t.dim_order[k] = dim_order ? dim_order[k] : static_cast<uint8_t>(k);
  }
  if (dim_order && !valid_dim_order(dim_order, dim)) return Status::error("dim order is not a permutation of 0.." + num(static_cast<int64_t>(dim) - 1));
  if (static_cast<uint64_t>(n) > physical_bytes / es || static_cast<uint64_t>(n) * es != physical_bytes)
    return Status::error(shape_string(dtype, sizes, dim) + " needs " + num(n * static_cast<int64_t>(es)) + " bytes, the data has " +
                         num(static_cast<int64_t>(physical_bytes)));
  compute_strides(t);
  t.data = const_cast<void*>(physical);
  return host_from_tensor(t, out);
}

Status bind_input(const MethodInfo& method, size_t index, const HostValue& value, BoundInput* out) {
  std::string where = "input " + num(static_cast<int64_t>(index));
  if (index >= method.inputs.size())
    return Status::error(where + ": method " + method.name + " takes " + num(static_cast<int64_t>(method.inputs.size())) + " inputs");
  const ValueInfo& want = method.inputs[index];
  auto got_string = [&]() -> std::string {
    ValueInfo g;
    g.tag = value.tag;
    g.int_value = value.i;
    g.double_value = value.d;
    g.bool_value = value.b;
    g.string_value = value.s;
    if (value.tag == Tag::Tensor) return shape_string(value.tensor);
    return scalar_string(g);
  };
  auto mismatch = [&]() { return Status::error(where + ": expected " + signature_entry(want) + ", got " + got_string()); };
  if (want.tag != value.tag) return mismatch();
  out->is_tensor = want.tag == Tag::Tensor;
  if (!out->is_tensor) {
    EValue& e = out->scalar;
    e.tag = value.tag;
    switch (value.tag) {
      case Tag::Int:
        if (value.i != want.int_value) return Status::error(where + ": the method was exported with " + scalar_string(want) + " baked in, got " + got_string());
        e.i = value.i;
        break;
      case Tag::Bool:
        if (value.b != want.bool_value) return Status::error(where + ": the method was exported with " + scalar_string(want) + " baked in, got " + got_string());
        e.b = value.b;
        break;
      case Tag::Double:
        if (!(std::fabs(value.d - want.double_value) <= 1e-4 + 1e-5 * std::fabs(want.double_value)))
          return Status::error(where + ": the method was exported with " + scalar_string(want) + " baked in, got " + got_string());
        e.d = value.d;
        break;
      case Tag::None: break;
      default: return Status::error(where + ": inputs of type " + tag_name(value.tag) + " are not supported");
    }
    return Status::ok();
  }
  const TensorInfo& ti = want.tensor;
  const HostTensor& h = value.tensor;
  if (h.dtype != ti.dtype || h.shape.size() != ti.sizes.size()) return mismatch();
  for (size_t k = 0; k < h.shape.size(); ++k) {
    bool ok = ti.dynamism == Dynamism::Static ? h.shape[k] == ti.sizes[k] : h.shape[k] <= ti.sizes[k];
    if (!ok) return mismatch();
  }
  size_t es = dtype_size(h.dtype);
  if (h.bytes.size() != static_cast<size_t>(h.numel()) * es)
    return Status::error(where + ": " + shape_string(h) + " holds " + num(static_cast<int64_t>(h.bytes.size())) + " bytes");
  Tensor& t = out->tensor;
  t = Tensor();
  t.dtype = h.dtype;
  t.dim = static_cast<int32_t>(h.shape.size());
  for (int k = 0; k < t.dim; ++k) {
    t.sizes[k] = h.shape[k];
    t.dim_order[k] = ti.dim_order.size() == h.shape.size() ? ti.dim_order[k] : static_cast<uint8_t>(k);
  }
  if (!valid_dim_order(t.dim_order, t.dim)) return Status::error(where + ": the method declares an invalid dim order");
  compute_strides(t);
  t.dynamism = ti.dynamism;
  out->storage.assign(h.bytes.size() ? h.bytes.size() : es, 0);
  if (t.contiguous_order()) {
    if (!h.bytes.empty()) std::memcpy(out->storage.data(), h.bytes.data(), h.bytes.size());
  } else {
    for_each_logical(t.sizes, t.strides, t.dim, [&](int64_t i, int64_t off) {
      std::memcpy(out->storage.data() + static_cast<size_t>(off) * es, h.bytes.data() + static_cast<size_t>(i) * es, es);
    });
  }
  t.data = out->storage.data();
  t.capacity = h.bytes.size();
  return Status::ok();
}

Status set_inputs(Method& method, const std::vector<HostValue>& values, std::vector<BoundInput>* bound) {
  const MethodInfo& info = method.info();
  if (values.size() != info.inputs.size())
    return Status::error("method " + info.name + " takes " + num(static_cast<int64_t>(info.inputs.size())) + " input" +
                         (info.inputs.size() == 1 ? "" : "s") + ", got " + num(static_cast<int64_t>(values.size())));
  bound->clear();
  bound->resize(values.size());
  for (size_t k = 0; k < values.size(); ++k) PTE_TRY(bind_input(info, k, values[k], &(*bound)[k]));
  for (size_t k = 0; k < values.size(); ++k) {
    BoundInput& b = (*bound)[k];
    Status s = b.is_tensor ? method.set_input(k, b.tensor) : method.set_input(k, b.scalar);
    if (!s) return s.context("input " + num(static_cast<int64_t>(k)));
  }
  return Status::ok();
}

}  // namespace pte::util
