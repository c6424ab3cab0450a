// pte-run tools: --input SPEC parsing (see input_spec.h).
#include "util/input_spec.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "ops/util.h"
#include "util/npy.h"

namespace pte::util {

namespace {

struct NameRow {
  const char* name;
  DType dtype;
};
constexpr NameRow kNames[] = {
    {"f32", DType::Float},   {"f64", DType::Double}, {"f16", DType::Half},    {"bf16", DType::BFloat16},
    {"i64", DType::Int64},   {"i32", DType::Int32},  {"i16", DType::Int16},   {"i8", DType::Int8},
    {"u8", DType::UInt8},    {"bool", DType::Bool},  {"u16", DType::UInt16},  {"u32", DType::UInt32},
    {"u64", DType::UInt64},  {"float32", DType::Float}, {"float64", DType::Double}, {"float16", DType::Half},
    {"bfloat16", DType::BFloat16}, {"int64", DType::Int64}, {"int32", DType::Int32}, {"int16", DType::Int16},
    {"int8", DType::Int8},   {"uint8", DType::UInt8}, {"uint16", DType::UInt16}, {"uint32", DType::UInt32},
    {"uint64", DType::UInt64},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_bool(std::string_view v, bool* out) {
  if (v == "1" || v == "true" || v == "True") { *out = true; return true; }
  if (v == "0" || v == "false" || v == "False") { *out = false; return true; }
  return false;
}

bool parse_double(std::string_view v, double* out) {
  if (v.empty()) return false;
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  if (errno == ERANGE && std::isinf(d)) return false;  // finite literal too large for double
  *out = d;
  return true;
}

bool parse_i64(std::string_view v, int64_t* out) {
  if (v.empty()) return false;
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || errno == ERANGE) return false;
  *out = x;
  return true;
}

bool parse_u64(std::string_view v, uint64_t* out) {
  if (v.empty() || v[0] == '-') return false;
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || errno == ERANGE) return false;
  *out = x;
  return true;
}

template <class T>
void put(uint8_t* dst, T v) { std::memcpy(dst, &v, sizeof(T)); }

// Encodes one literal value as an element of `dtype` at `dst`; the error names the value.
Status encode(DType dtype, std::string_view text, uint8_t* dst) {
  std::string_view v = trim(text);
  const char* dn = dtype_short_name(dtype);
  auto bad = [&](const char* why) { return Status::error("value '" + std::string(v) + "' " + why + " " + dn); };
  switch (dtype) {
    case DType::Float: case DType::Double: case DType::Half: case DType::BFloat16: {
      double d;
      if (!parse_double(v, &d)) return bad("is not a number for");
      if (dtype == DType::Double) { put(dst, d); return Status::ok(); }
      float f = static_cast<float>(d);
      if (std::isinf(f) && !std::isinf(d)) return bad("is out of range for");
      if (dtype == DType::Float) { put(dst, f); return Status::ok(); }
      uint16_t bits = dtype == DType::Half ? float_to_half_bits(f) : float_to_bf16_bits(f);
      float back = dtype == DType::Half ? half_bits_to_float(bits) : bf16_bits_to_float(bits);
      if (std::isinf(back) && !std::isinf(f)) return bad("is out of range for");
      put(dst, bits);
      return Status::ok();
    }
    case DType::Bool: {
      bool b;
      if (!parse_bool(v, &b)) return bad("is not 1/0/true/false for");
      *dst = b ? 1 : 0;
      return Status::ok();
    }
    case DType::UInt64: {
      uint64_t u;
      if (!parse_u64(v, &u)) return bad("is not an integer in the range of");
      put(dst, u);
      return Status::ok();
    }
    default: break;
  }
  int64_t x;
  if (!parse_i64(v, &x)) return bad("is not an integer in the range of");
  auto in = [&](int64_t lo, int64_t hi) { return x >= lo && x <= hi; };
  switch (dtype) {
    case DType::Int64: put(dst, x); return Status::ok();
    case DType::Int32: if (!in(INT32_MIN, INT32_MAX)) break; put(dst, static_cast<int32_t>(x)); return Status::ok();
    case DType::Int16: if (!in(INT16_MIN, INT16_MAX)) break; put(dst, static_cast<int16_t>(x)); return Status::ok();
    case DType::Int8: if (!in(INT8_MIN, INT8_MAX)) break; put(dst, static_cast<int8_t>(x)); return Status::ok();
    case DType::UInt8: if (!in(0, UINT8_MAX)) break; put(dst, static_cast<uint8_t>(x)); return Status::ok();
    case DType::UInt16: if (!in(0, UINT16_MAX)) break; put(dst, static_cast<uint16_t>(x)); return Status::ok();
    case DType::UInt32: if (!in(0, UINT32_MAX)) break; put(dst, static_cast<uint32_t>(x)); return Status::ok();
    default: return Status::error(std::string("dtype ") + dn + " cannot be written as a literal");
  }
  return bad("is out of range for");
}

bool ends_with_npy(const std::string& s) {
  if (s.size() < 4) return false;
  std::string tail = s.substr(s.size() - 4);
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".npy";
}

}  // namespace

bool dtype_from_name(std::string_view name, DType* out) {
  for (const auto& r : kNames)
    if (name == r.name) {
      *out = r.dtype;
      return true;
    }
  return false;
}

Status parse_literal(std::string_view text, HostValue* out) {
  std::string_view s = trim(text);
  size_t colon = s.find(':');
  if (colon == std::string_view::npos)
    return Status::error("'" + std::string(s) + "' is neither a .npy file nor a literal such as f32[2,2]:1,2,3,4 or i64:3");
  std::string_view head = trim(s.substr(0, colon)), body = s.substr(colon + 1);
  size_t bracket = head.find('[');
  if (bracket == std::string_view::npos) {
    // Scalar: i64:3, f64:2.5, bool:true.
    HostValue v;
    std::string_view val = trim(body);
    if (head == "i64" || head == "int") {
      v.tag = Tag::Int;
      if (!parse_i64(val, &v.i)) return Status::error("'" + std::string(val) + "' is not an int64");
    } else if (head == "f64" || head == "float" || head == "double") {
      v.tag = Tag::Double;
      if (!parse_double(val, &v.d)) return Status::error("'" + std::string(val) + "' is not a number");
    } else if (head == "bool") {
      v.tag = Tag::Bool;
      if (!parse_bool(val, &v.b)) return Status::error("'" + std::string(val) + "' is not 1/0/true/false");
    } else {
      DType dt;
      if (dtype_from_name(head, &dt))
        return Status::error("scalar inputs are i64:N, f64:X or bool:B; for a 0-d " + std::string(head) + " tensor write " +
                             std::string(head) + "[]:" + std::string(val));
      return Status::error("unknown type '" + std::string(head) + "' (scalars: i64, f64, bool; tensors: f32[...], i64[...], ...)");
    }
    *out = std::move(v);
    return Status::ok();
  }
  if (head.back() != ']') return Status::error("'" + std::string(head) + "': expected DTYPE[SIZES], e.g. f32[2,2]");
  std::string_view dname = trim(head.substr(0, bracket));
  DType dtype;
  if (!dtype_from_name(dname, &dtype))
    return Status::error("unknown dtype '" + std::string(dname) + "' (f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool)");
  HostValue v;
  v.tag = Tag::Tensor;
  v.tensor.dtype = dtype;
  std::string_view dims = trim(head.substr(bracket + 1, head.size() - bracket - 2));
  int64_t numel = 1;
  if (!dims.empty()) {
    size_t pos = 0;
    while (true) {
      size_t comma = dims.find(',', pos);
      std::string_view d = trim(dims.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
      int64_t n;
      if (!parse_i64(d, &n) || n < 0) return Status::error("size '" + std::string(d) + "' in [" + std::string(dims) + "] is not a non-negative integer");
      if (v.tensor.shape.size() == static_cast<size_t>(kMaxDims)) return Status::error("more than " + std::to_string(kMaxDims) + " dims");
      if (n != 0 && numel > (int64_t{1} << 40) / n) return Status::error("[" + std::string(dims) + "] is too large for a literal");
      numel *= n;
      v.tensor.shape.push_back(n);
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
  }
  std::vector<std::string_view> values;
  if (!trim(body).empty()) {
    size_t pos = 0;
    while (true) {
      size_t comma = body.find(',', pos);
      values.push_back(body.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
  }
  std::string what = shape_string(v.tensor);
  if (numel == 0 && !values.empty()) return Status::error(what + " has no elements, but " + std::to_string(values.size()) + " values were given");
  if (numel > 0 && values.size() != static_cast<size_t>(numel) && values.size() != 1)
    return Status::error(what + " needs " + std::to_string(numel) + " values (or one to fill it), got " + std::to_string(values.size()));
  size_t es = dtype_size(dtype);
  v.tensor.bytes.assign(static_cast<size_t>(numel) * es, 0);
  for (int64_t i = 0; i < numel; ++i) {
    uint8_t* dst = v.tensor.bytes.data() + static_cast<size_t>(i) * es;
    if (values.size() == 1 && i > 0) {
      std::memcpy(dst, v.tensor.bytes.data(), es);
      continue;
    }
    Status s = encode(dtype, values[static_cast<size_t>(i)], dst);
    if (!s) return s.context(what);
  }
  *out = std::move(v);
  return Status::ok();
}

Status parse_input_spec(const std::string& spec, HostValue* out) {
  if (ends_with_npy(spec)) {
    HostValue v;
    v.tag = Tag::Tensor;
    PTE_TRY(npy_read(spec, &v.tensor));
    *out = std::move(v);
    return Status::ok();
  }
  return parse_literal(spec, out);
}

}  // namespace pte::util
