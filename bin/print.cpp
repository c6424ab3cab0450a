// pte-run command line: printing outputs (see print.h).
#include "bin/print.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "util/json.h"

namespace pte::cli {

namespace {

constexpr int64_t kSummaryThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

std::string fmt_float(double v, const char* f, bool json) {
  if (std::isnan(v)) return json ? "\"nan\"" : "nan";
  if (std::isinf(v)) return json ? (v > 0 ? "\"inf\"" : "\"-inf\"") : (v > 0 ? "inf" : "-inf");
  char buf[40];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

void format_dims(const util::HostTensor& t, size_t d, int64_t base, bool summarise, std::string* out) {
  if (d == t.shape.size()) {
    *out += format_element(t.dtype, t.bytes.data(), base, false);
    return;
  }
  int64_t n = t.shape[d];
  int64_t stride = 1;
  for (size_t k = d + 1; k < t.shape.size(); ++k) stride *= t.shape[k];
  *out += '[';
  bool cut = summarise && n > 2 * kEdgeItems;
  for (int64_t i = 0; i < n; ++i) {
    if (i) *out += ", ";
    if (cut && i == kEdgeItems) {
      *out += "..., ";
      i = n - kEdgeItems;
    }
    format_dims(t, d + 1, base + i * stride, summarise, out);
  }
  *out += ']';
}

}  // namespace

std::string format_element(DType dtype, const void* base, int64_t i, bool json) {
  const uint8_t* p = static_cast<const uint8_t*>(base);
  switch (dtype) {
    case DType::Float: case DType::Half: case DType::BFloat16:
      return fmt_float(util::element_as_double(dtype, base, i), json ? "%.9g" : "%.6g", json);
    case DType::Double: return fmt_float(util::element_as_double(dtype, base, i), json ? "%.17g" : "%.6g", json);
    case DType::Bool: return p[i] ? "true" : "false";
    case DType::Int64: { int64_t v; std::memcpy(&v, p + i * 8, 8); return std::to_string(v); }
    case DType::UInt64: { uint64_t v; std::memcpy(&v, p + i * 8, 8); return std::to_string(v); }
    default: {
      double v = util::element_as_double(dtype, base, i);
      if (std::isnan(v)) return json ? "null" : "?";
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.0f", v);
      return buf;
    }
  }
}

std::string format_text(const util::HostValue& v) {
  char buf[64];
  switch (v.tag) {
    case Tag::Tensor: {
      std::string s = util::shape_string(v.tensor) + " = ";
      format_dims(v.tensor, 0, 0, v.tensor.numel() > kSummaryThreshold, &s);
      return s;
    }
    case Tag::Int: return "int = " + std::to_string(v.i);
    case Tag::Double: std::snprintf(buf, sizeof(buf), "%.17g", v.d); return std::string("float = ") + buf;
    case Tag::Bool: return v.b ? "bool = true" : "bool = false";
    case Tag::String: return "string = " + json::quote(v.s);
    case Tag::None: return "None";
    default: return tag_name(v.tag);
  }
}

void append_json(const util::HostValue& v, std::string* out) {
  switch (v.tag) {
    case Tag::Tensor: {
      const util::HostTensor& t = v.tensor;
      *out += "{\"type\": \"tensor\", \"dtype\": \"";
      *out += dtype_name(t.dtype);
      *out += "\", \"shape\": [";
      for (size_t k = 0; k < t.shape.size(); ++k) *out += (k ? ", " : "") + std::to_string(t.shape[k]);
      *out += "], \"data\": [";
      int64_t n = t.numel();
      for (int64_t i = 0; i < n; ++i) {
        if (i) *out += ", ";
        *out += format_element(t.dtype, t.bytes.data(), i, true);
      }
      *out += "]}";
      return;
    }
    case Tag::Int: *out += "{\"type\": \"int\", \"value\": " + std::to_string(v.i) + "}"; return;
    case Tag::Double: *out += "{\"type\": \"float\", \"value\": " + fmt_float(v.d, "%.17g", true) + "}"; return;
    case Tag::Bool: *out += std::string("{\"type\": \"bool\", \"value\": ") + (v.b ? "true" : "false") + "}"; return;
    case Tag::String: *out += "{\"type\": \"string\", \"value\": " + json::quote(v.s) + "}"; return;
    default: *out += "{\"type\": \"none\"}"; return;
  }
}

}  // namespace pte::cli
