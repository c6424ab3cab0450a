// pte-run info: describe a program file without running it.
//
//   pte-run info MODEL.pte [--data FILE.ptd]... [--json]
//
// Prints the file layout (header, segments, constants, named and external data) and,
// per method, its signature, operators, delegates and planned memory; constant
// ("metadata") methods are printed with their values. A bundled program (.bpte) is
// described through the program it embeds; a .ptd on its own lists its tensors.
// --json prints the same content as one JSON document.
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bin/commands.h"
#include "cache/kv_cache.h"
#include "cache/static_attention.h"
#include "flatbuffers/flatbuffers.h"
#include "interpreter/file_map.h"
#include "interpreter/loader.h"
#include "ops/util.h"
#include "pte/program.h"
#include "schema/bundled_program_generated.h"
#include "util/json.h"

namespace pte::cli {

namespace {

using json::Value;

// ---------------------------------------------------------------- text helpers

// Replaces control characters so every message stays on one line.
std::string one_line(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else out.push_back(static_cast<char>(c));
  }
  return out;
}

// Names from the file, for display: one line, at most `max` bytes.
std::string shown(std::string_view s, size_t max = 120) {
  std::string t = one_line(s);
  if (t.size() > max) t = t.substr(0, max) + "...";
  return t;
}

// 1234567 -> "1,234,567"
std::string grouped(uint64_t v) {
  std::string d = std::to_string(v), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(d[i]);
  }
  return out;
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return grouped(n) + " " + (n == 1 ? one : many);
}

std::string bytes_text(uint64_t n) { return plural(n, "byte", "bytes"); }

// Shortest text that reads back as the same double ("2.5", "1e-05", "128.0").
std::string double_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string float_text(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  return std::string(buf, r.ptr);
}

// Left-aligned text columns separated by two spaces; a column may be right-aligned.
class Table {
 public:
  explicit Table(std::vector<bool> right = {}) : right_(std::move(right)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  bool empty() const { return rows_.empty(); }
  // `first` prefixes the first row, `rest` the others (same visible width).
  void print(std::FILE* f, const std::string& first, const std::string& rest) const {
    std::vector<size_t> w;
    for (const auto& r : rows_)
      for (size_t c = 0; c < r.size(); ++c) {
        if (w.size() <= c) w.push_back(0);
        w[c] = std::max(w[c], width(r[c]));
      }
    for (size_t k = 0; k < rows_.size(); ++k) {
      std::string line = k == 0 ? first : rest;
      const auto& r = rows_[k];
      for (size_t c = 0; c < r.size(); ++c) {
        size_t pad = w[c] - width(r[c]);
        bool last = c + 1 == r.size();
        if (c < right_.size() && right_[c]) line += std::string(pad, ' ') + r[c];
        else line += r[c] + (last ? "" : std::string(pad, ' '));
        if (!last) line += "  ";
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      std::fprintf(f, "%s\n", line.c_str());
    }
  }

 private:
  // Display width: UTF-8 characters ("≤" is one column).
  static size_t width(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  }
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// ---------------------------------------------------------------- values

const char* dynamism_name(Dynamism d) {
  switch (d) {
    case Dynamism::Static: return "static";
    case Dynamism::DynamicBound: return "bound";
    case Dynamism::DynamicUnbound: return "unbound";
  }
  return "unknown";
}

// "f32[2,3]", "i64[1,≤127]" (a dynamic tensor shows its upper bounds; a bound of 1
// is shown plain), "f32[]" for a scalar tensor.
std::string shape_text(const TensorInfo& t) {
  std::string s = dtype_short_name(t.dtype);
  s += "[";
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (i) s += ",";
    if (t.dynamism != Dynamism::Static && t.sizes[i] != 1) s += "≤";
    s += std::to_string(t.sizes[i]);
  }
  s += "]";
  if (t.dynamism == Dynamism::DynamicUnbound) s += " (unbounded)";
  return s;
}

const char* tag_text(Tag t) {
  switch (t) {
    case Tag::None: return "none";
    case Tag::Int: return "int";
    case Tag::Double: return "double";
    case Tag::Bool: return "bool";
    case Tag::String: return "string";
    case Tag::Tensor: return "tensor";
    case Tag::IntList: return "int list";
    case Tag::DoubleList: return "double list";
    case Tag::BoolList: return "bool list";
    case Tag::TensorList: return "tensor list";
    case Tag::OptionalTensorList: return "optional tensor list";
  }
  return "unknown";
}

// Type of a signature entry: the tensor shape, or the scalar kind.
std::string type_text(const ValueInfo& v) { return v.tag == Tag::Tensor ? shape_text(v.tensor) : tag_text(v.tag); }

constexpr int64_t kMaxShownElements = 32;

uint64_t numel_of(const TensorInfo& t) {
  uint64_t n = 1;
  for (int64_t s : t.sizes) n *= static_cast<uint64_t>(s);
  return n;
}

// One element of a constant tensor (p points at it).
std::string element_text(DType dt, const uint8_t* p) {
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (dt) {
    case DType::UInt8: case DType::QUInt8: case DType::QUInt4x2: case DType::QUInt2x4:
      return std::to_string(load(uint8_t{}));
    case DType::Int8: case DType::QInt8: return std::to_string(load(int8_t{}));
    case DType::Int16: return std::to_string(load(int16_t{}));
    case DType::Int32: case DType::QInt32: return std::to_string(load(int32_t{}));
    case DType::Int64: return std::to_string(load(int64_t{}));
    case DType::UInt16: case DType::Bits16: return std::to_string(load(uint16_t{}));
    case DType::UInt32: return std::to_string(load(uint32_t{}));
    case DType::UInt64: return std::to_string(load(uint64_t{}));
    case DType::Half: return float_text(half_bits_to_float(load(uint16_t{})));
    case DType::BFloat16: return float_text(bf16_bits_to_float(load(uint16_t{})));
    case DType::Float: return float_text(load(float{}));
    case DType::Double: return double_text(load(double{}));
    case DType::Bool: return load(uint8_t{}) ? "true" : "false";
    default: {
      char b[8];
      std::snprintf(b, sizeof b, "0x%02x", *p);
      return b;
    }
  }
}

Value element_json(DType dt, const uint8_t* p) {
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (dt) {
    case DType::Int8: case DType::QInt8: return Value(static_cast<int>(load(int8_t{})));
    case DType::Int16: return Value(static_cast<int>(load(int16_t{})));
    case DType::Int32: case DType::QInt32: return Value(load(int32_t{}));
    case DType::Int64: return Value(static_cast<long long>(load(int64_t{})));
    case DType::UInt16: case DType::Bits16: return Value(static_cast<int>(load(uint16_t{})));
    case DType::UInt32: return Value(static_cast<long long>(load(uint32_t{})));
    case DType::UInt64: return Value(static_cast<unsigned long long>(load(uint64_t{})));
    case DType::Half: return Value(static_cast<double>(half_bits_to_float(load(uint16_t{}))));
    case DType::BFloat16: return Value(static_cast<double>(bf16_bits_to_float(load(uint16_t{}))));
    case DType::Float: return Value(static_cast<double>(load(float{})));
    case DType::Double: return Value(load(double{}));
    case DType::Bool: return Value(load(uint8_t{}) != 0);
    default: return Value(static_cast<int>(load(uint8_t{})));
  }
}

// Element k (row-major logical order) of a constant tensor, honouring its dim order.
const uint8_t* element_ptr(const ValueInfo& v, uint64_t k) {
  const TensorInfo& t = v.tensor;
  Tensor meta;
  meta.dim = static_cast<int32_t>(t.sizes.size());
  for (int i = 0; i < meta.dim; ++i) {
    meta.sizes[i] = t.sizes[i];
    meta.dim_order[i] = i < static_cast<int>(t.dim_order.size()) ? t.dim_order[i] : static_cast<uint8_t>(i);
  }
  compute_strides(meta);
  uint64_t off = 0;
  for (int i = meta.dim - 1; i >= 0; --i) {
    uint64_t s = static_cast<uint64_t>(t.sizes[i]);
    off += (k % s) * static_cast<uint64_t>(meta.strides[i]);
    k /= s;
  }
  return static_cast<const uint8_t*>(v.constant_data) + off * dtype_size(t.dtype);
}

// "[1, 2, 3]" or nested "[[1, 2], [3, 4]]"; elides after kMaxShownElements.
std::string tensor_values_text(const ValueInfo& v) {
  const TensorInfo& t = v.tensor;
  uint64_t n = numel_of(t);
  if (t.sizes.empty()) return element_text(t.dtype, element_ptr(v, 0));
  std::string s;
  uint64_t shown_n = std::min<uint64_t>(n, kMaxShownElements);
  size_t rank = t.sizes.size();
  for (uint64_t k = 0; k < shown_n; ++k) {
    // Open brackets for every dimension this element starts.
    uint64_t q = k;
    size_t opens = 0;
    for (size_t d = rank; d-- > 0;) {
      uint64_t sz = static_cast<uint64_t>(t.sizes[d]);
      if (q % sz != 0) break;
      ++opens;
      q /= sz;
    }
    if (k) s += ", ";
    s += std::string(opens, '[');
    s += element_text(t.dtype, element_ptr(v, k));
    q = k + 1;
    size_t closes = 0;
    for (size_t d = rank; d-- > 0;) {
      uint64_t sz = static_cast<uint64_t>(t.sizes[d]);
      if (q % sz != 0) break;
      ++closes;
      q /= sz;
    }
    s += std::string(closes, ']');
  }
  if (n == 0) s = std::string(rank, '[') + std::string(rank, ']');
  if (shown_n < n) s += ", ... (" + grouped(n) + " elements)";
  return s;
}

bool has_constant_tensor(const ValueInfo& v) { return v.tag == Tag::Tensor && v.constant_data; }

// The value of a constant-method output: "128", "2.5", "true", "\"text\"",
// "i64[3] [1, 2, 3]"; the type alone when the value is not in the file.
std::string value_text(const ValueInfo& v) {
  switch (v.tag) {
    case Tag::None: return "none";
    case Tag::Int: return std::to_string(v.int_value);
    case Tag::Double: return double_text(v.double_value);
    case Tag::Bool: return v.bool_value ? "true" : "false";
    case Tag::String: return json::quote(shown(v.string_value, 200));
    case Tag::Tensor:
      if (has_constant_tensor(v)) return shape_text(v.tensor) + " " + tensor_values_text(v);
      return shape_text(v.tensor);
    default: return tag_text(v.tag);
  }
}

Value value_json(const ValueInfo& v, bool with_value) {
  Value o = Value::object();
  o.set("type", Value(tag_text(v.tag)));
  if (v.tag == Tag::Tensor) {
    const TensorInfo& t = v.tensor;
    o.set("dtype", Value(dtype_name(t.dtype)));
    Value& shape = o.set("shape", Value::array());
    for (int64_t s : t.sizes) shape.push(Value(static_cast<long long>(s)));
    o.set("dynamism", Value(dynamism_name(t.dynamism)));
    bool contiguous = true;
    for (size_t i = 0; i < t.dim_order.size(); ++i) contiguous &= t.dim_order[i] == i;
    if (!contiguous) {
      Value& order = o.set("dim_order", Value::array());
      for (uint8_t d : t.dim_order) order.push(Value(static_cast<int>(d)));
    }
    o.set("memory_planned", Value(t.memory_planned));
    o.set("text", Value(shape_text(t)));
    if (with_value && has_constant_tensor(v)) {
      uint64_t n = numel_of(t);
      Value& vals = o.set("value", Value::array());
      for (uint64_t k = 0; k < std::min<uint64_t>(n, kMaxShownElements); ++k)
        vals.push(element_json(t.dtype, element_ptr(v, k)));
      if (n > static_cast<uint64_t>(kMaxShownElements)) o.set("value_truncated", Value(true));
    }
    return o;
  }
  if (with_value) {
    switch (v.tag) {
      case Tag::Int: o.set("value", Value(static_cast<long long>(v.int_value))); break;
      case Tag::Double:
        // JSON has no NaN/Infinity: those are written as strings.
        if (std::isfinite(v.double_value)) o.set("value", Value(v.double_value));
        else o.set("value", Value(double_text(v.double_value)));
        break;
      case Tag::Bool: o.set("value", Value(v.bool_value)); break;
      case Tag::String: o.set("value", Value(v.string_value)); break;
      default: break;
    }
  }
  return o;
}

// A constant method: no instructions and no inputs (its outputs are its values).
bool is_constant_method(const MethodInfo& m) { return m.is_constant && m.inputs.empty(); }

// ---------------------------------------------------------------- file layout

struct SegmentRole {
  std::vector<std::string> holds;
};

// What each segment holds, from the program's own tables (indices were checked at open).
std::vector<SegmentRole> segment_roles(const Program& program) {
  std::vector<SegmentRole> roles(program.info().segments.size());
  const auto* lp = dynamic_cast<const LoadedProgram*>(&program);
  if (!lp || !lp->root()) return roles;
  const fb::Program* root = lp->root();
  size_t n = roles.size();
  auto add = [&](uint64_t idx, std::string what) {
    if (idx < n && roles[idx].holds.size() < 4) roles[idx].holds.push_back(std::move(what));
    else if (idx < n && roles[idx].holds.size() == 4) roles[idx].holds.push_back("...");
  };
  const auto* cs = root->constant_segment();
  if (cs && cs->offsets() && cs->offsets()->size() > 1)
    add(cs->segment_index(), "constants (" + plural(cs->offsets()->size() - 1, "tensor", "tensors") + ")");
  if (const auto* mds = root->mutable_data_segments())
    for (const auto* m : *mds) add(m->segment_index(), "mutable buffer initial data");
  if (const auto* plans = root->execution_plan())
    for (const auto* plan : *plans) {
      const auto* dels = plan->delegates();
      if (!dels) continue;
      for (uint32_t k = 0; k < dels->size(); ++k) {
        const auto* d = dels->Get(k);
        if (!d->processed() || d->processed()->location() != fb::DataLocation::SEGMENT) continue;
        add(d->processed()->index(), "delegate " + std::to_string(k) + " of " +
                                         shown(plan->name() ? plan->name()->string_view() : "?", 40) + " (" +
                                         shown(d->id() ? d->id()->string_view() : "?", 40) + ")");
      }
    }
  if (const auto* nd = root->named_data()) {
    for (const auto* e : *nd) {
      std::string key = e->key() ? shown(e->key()->string_view(), 24) : "?";
      add(e->segment_index(), "named data '" + key + "'");
    }
  }
  return roles;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string constants_text(const ProgramInfo& pi) {
  if (pi.legacy_constant_buffer) return bytes_text(pi.constant_bytes) + " (inline constant_buffer, legacy layout)";
  if (pi.constant_bytes) return bytes_text(pi.constant_bytes) + " (constant segment)";
  return "none";
}

// Bundle facts when the file was a .bpte.
struct BundleInfo {
  bool present = false;
  uint64_t file_bytes = 0;              // the whole .bpte
  uint32_t version = 0;
  uint64_t program_offset = 0;
  uint64_t program_bytes = 0;
  std::vector<std::pair<std::string, size_t>> suites;  // method, number of test cases
};

// --memory: per method, the file's plan next to our lifetime re-plan (memory_planner/),
// measured by loading the method both ways.
struct MethodMemory {
  bool computed = false;   // a compute method that --memory tried to load
  bool loaded = false;
  uint64_t file_plan = 0;  // sum of the file's non_const_buffer_sizes[1..]
  uint64_t file_arena = 0; // arena bytes loaded with the file's plan (differs when the plan is incomplete)
  uint64_t replanned = 0;  // arena bytes of our re-plan
  uint64_t copy_views = 0; // copy instructions run as views with the file's plan
  std::string error;       // why the method did not load
  // the KV cache / persistent state (cache/kv_cache.h)
  size_t state_tensors = 0;
  uint64_t state_bytes = 0;
  std::string state_dtype, state_shape;  // of the first tensor ("mixed" when they differ)
  int64_t cache_positions = 0;           // 0: not a KV cache the runner can use
  std::string cache_note;                // why not, when not
  int cache_layers = 0;                  // K/V layers (ring layers included)
  int ring_layers = 0;                   // sliding-window layers kept as ring buffers
  int64_t window = 0, ring_slots = 0;    // their window and ring size
  std::string where = "mutable buffers";  // or "method inputs" (cache/kv_cache.h)
  size_t slice_outputs = 0;              // input-passed caches whose outputs hold only the new positions
  size_t by_pointer = 0;                 // input-passed caches the method reads in place (not copied in)
};
struct MemoryReport {
  bool present = false;
  std::vector<MethodMemory> methods;  // by method index
};
const MemoryReport* g_memory = nullptr;

// The fp32 matrix multiplies (and delegated convolutions) with constant weights of each compute method and the path
// each takes under the --xnnpack policy (Method::matmul_paths), from a load of the method.
struct MethodPaths {
  bool computed = false;
  std::vector<MatmulPath> paths;
  std::string error;  // the method did not load
};
const std::vector<MethodPaths>* g_paths = nullptr;

const MethodPaths* paths_of(const ProgramInfo& pi, const MethodInfo& m) {
  if (!g_paths) return nullptr;
  size_t k = static_cast<size_t>(&m - pi.methods.data());
  if (k >= g_paths->size() || !(*g_paths)[k].computed) return nullptr;
  return &(*g_paths)[k];
}

// Loads each compute method that has an aten linear / mm / addmm or an XNNPACK fully
// connected node (fp16 / bf16 graphs run widened to fp32), one thread, and records the paths.
std::vector<MethodPaths> collect_paths(Program& program) {
  const ProgramInfo& pi = program.info();
  std::vector<MethodPaths> out(pi.methods.size());
  for (size_t k = 0; k < pi.methods.size(); ++k) {
    const MethodInfo& m = pi.methods[k];
    if (is_constant_method(m)) continue;
    bool any = false;
    for (const auto& op : m.operators)
      any = any || op.name == "aten::linear.out" || op.name == "aten::mm.out" || op.name == "aten::addmm.out";
    for (const auto& d : m.delegates)
      for (const auto& nd : d.nodes) any = any || nd.name == "XNNFullyConnected";
    if (!any) continue;
    MethodPaths& mp = out[k];
    mp.computed = true;
    Program::MethodOptions mo;
    mo.num_threads = 1;
    std::unique_ptr<Method> method;
    Status ls = program.load_method(m.name, mo, &method);
    if (ls) mp.paths = method->matmul_paths();
    else mp.error = ls.message();
  }
  return out;
}

// First output of a constant method as an integer, if present.
bool constant_int(const ProgramInfo& pi, const char* name, int64_t* out) {
  for (const auto& m : pi.methods)
    if (m.name == name && m.is_constant && !m.outputs.empty() && m.outputs[0].tag == Tag::Int) {
      *out = m.outputs[0].int_value;
      return true;
    }
  return false;
}

void describe_state(const ProgramInfo& pi, Method& method, MethodMemory* mm) {
  std::vector<StateTensor> st = method.state_tensors();
  int64_t ctx = 0;
  // ExecuTorch's static-attention export gives its cache length in constant methods of its own
  const bool static_attention = StaticAttention::present(pi, method.info().name);
  const bool have_ctx = static_attention || constant_int(pi, "get_max_context_len", &ctx) || constant_int(pi, "get_max_seq_len", &ctx);
  std::unique_ptr<KvCache> cache;
  Status attached = have_ctx ? StaticAttention::attach_cache(pi, method, ctx, &cache, &ctx) : Status::error("no context length");
  // a cache passed as method inputs: its tensors are the cache component's
  std::vector<const Tensor*> shown;
  if (attached && cache->input_tensors()) {
    mm->where = cache->where();
    for (const auto& c : cache->tensors()) {
      shown.push_back(c.tensor);
      mm->slice_outputs += c.slice;
      mm->by_pointer += c.by_pointer;
    }
  } else {
    for (const auto& x : st) shown.push_back(x.tensor);
  }
  mm->state_tensors = shown.size();
  for (const Tensor* x : shown) {
    const Tensor& t = *x;
    std::string shape = "[";
    for (int d = 0; d < t.dim; ++d) shape += (d ? "," : "") + std::to_string(t.sizes[d]);
    shape += "]";
    std::string dt = dtype_name(t.dtype);
    if (mm->state_shape.empty()) mm->state_shape = shape, mm->state_dtype = dt;
    else if (mm->state_shape != shape) mm->state_shape = "(mixed shapes)";
    if (mm->state_dtype != dt) mm->state_dtype = "mixed";
    mm->state_bytes += t.nbytes();
  }
  if (shown.empty()) {
    // inputs after the token ids and positions that are not a cache the runner can feed
    if (have_ctx && !attached && method.info().inputs.size() > 2) mm->cache_note = attached.message();
    return;
  }
  if (!have_ctx) {
    mm->cache_note = "no get_max_context_len / get_max_seq_len: positions unknown";
    return;
  }
  if (!attached) {
    mm->cache_note = attached.message();
    return;
  }
  if (!cache->unsupported().empty()) {
    mm->cache_note = cache->unsupported();
    return;
  }
  mm->cache_positions = cache->capacity();
  mm->cache_layers = cache->layers();
  mm->ring_layers = cache->ring_layers();
  mm->window = cache->window();
  mm->ring_slots = cache->ring_slots();
}

const MethodMemory* memory_of(const ProgramInfo& pi, const MethodInfo& m) {
  if (!g_memory || !g_memory->present) return nullptr;
  size_t k = static_cast<size_t>(&m - pi.methods.data());
  if (k >= g_memory->methods.size() || !g_memory->methods[k].computed) return nullptr;
  return &g_memory->methods[k];
}

std::string percent_text(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return b;
}

// Method readiness in this build.
std::string readiness(const MethodInfo& m, size_t* missing_ops, size_t* bad_delegates) {
  *missing_ops = 0;
  *bad_delegates = 0;
  for (const auto& o : m.operators) *missing_ops += !o.supported;
  for (const auto& d : m.delegates) *bad_delegates += !d.supported;
  if (!*missing_ops && !*bad_delegates) return "runnable";
  std::vector<std::string> why;
  if (*missing_ops) why.push_back(plural(*missing_ops, "operator", "operators") + " not supported");
  if (*bad_delegates) why.push_back(plural(*bad_delegates, "delegate", "delegates") + " not supported");
  return "not runnable in this build: " + join(why, ", ");
}

// ---------------------------------------------------------------- human output

void print_text(const std::string& file, const Program& program, const BundleInfo& bundle,
                const std::vector<std::string>& data_files) {
  const ProgramInfo& pi = program.info();
  std::FILE* f = stdout;
  std::fprintf(f, "%s\n", shown(file, 4096).c_str());
  Table top;
  top.row({"size", bytes_text(bundle.present ? bundle.file_bytes : pi.file_bytes)});
  if (std::string task = program_task(pi); !task.empty()) top.row({"task", task});
  if (bundle.present) {
    top.row({"file", "bundled program (BP08, version " + std::to_string(bundle.version) + ")"});
    top.row({"program", bytes_text(bundle.program_bytes) + " embedded at offset " + grouped(bundle.program_offset) +
                              " (offsets below are relative to it)"});
    std::vector<std::string> suites;
    for (const auto& s : bundle.suites) suites.push_back(shown(s.first, 60) + " (" + plural(s.second, "case", "cases") + ")");
    top.row({"test suites", suites.empty() ? "none" : join(suites, ", ")});
  }
  top.row({"format", "ET12, schema version " + std::to_string(pi.version) +
                         (pi.extended_header ? ", extended header (eh00)" : ", no extended header")});
  uint64_t seg_total = 0;
  for (const auto& s : pi.segments) seg_total += s.size;
  top.row({"segments", pi.segments.empty() ? "none" : plural(pi.segments.size(), "segment", "segments") + ", " + bytes_text(seg_total)});
  top.row({"constants", constants_text(pi)});
  top.row({"named data", pi.named_data_entries ? plural(pi.named_data_entries, "entry", "entries") + ", " + bytes_text(pi.named_data_bytes)
                                               : "none"});
  if (data_files.empty()) top.row({"external data", "none"});
  else top.row({"external data", bytes_text(pi.external_bytes) + " in " + join(data_files, ", ")});
  top.print(f, "  ", "  ");

  if (!pi.segments.empty() && seg_total > 0) {
    auto roles = segment_roles(program);
    Table seg({true, true, true, false});
    seg.row({"#", "offset", "bytes", "holds"});
    size_t limit = pi.segments.size() <= 24 ? pi.segments.size() : 16;
    for (size_t k = 0; k < limit; ++k)
      seg.row({std::to_string(k), grouped(pi.segments[k].offset), grouped(pi.segments[k].size),
               roles[k].holds.empty() ? "-" : join(roles[k].holds, ", ")});
    std::fprintf(f, "\n  segments\n");
    seg.print(f, "    ", "    ");
    if (limit < pi.segments.size()) std::fprintf(f, "    ... %zu more\n", pi.segments.size() - limit);
  }

  std::vector<const MethodInfo*> constants;
  for (const MethodInfo& m : pi.methods) {
    if (is_constant_method(m)) {
      constants.push_back(&m);
      continue;
    }
    std::fprintf(f, "\nmethod %s\n", shown(m.name).c_str());
    Table t;
    t.row({"values", grouped(m.num_values)});
    t.row({"instructions", grouped(m.num_instructions)});
    std::string mem;
    if (m.planned_buffers.empty()) mem = "none";
    for (size_t k = 0; k < m.planned_buffers.size(); ++k)
      mem += (k ? ", " : "") + std::string("arena ") + std::to_string(k + 1) + ": " + bytes_text(static_cast<uint64_t>(m.planned_buffers[k]));
    t.row({"planned memory", mem});
    if (const MethodMemory* mm = memory_of(pi, m)) {
      if (!mm->loaded) {
        t.row({"re-planned memory", "not computed: " + shown(mm->error, 400)});
      } else {
        std::string r = bytes_text(mm->replanned) + " (our lifetime plan; the file's plan: " + bytes_text(mm->file_plan);
        if (mm->file_plan) r += ", " + percent_text(mm->replanned, mm->file_plan) + " of it";
        if (mm->file_arena != mm->file_plan) r += "; loaded with the file's plan: " + bytes_text(mm->file_arena);
        t.row({"re-planned memory", r + ")"});
        t.row({"copies as views", std::to_string(mm->copy_views) + " copy instructions run as views (no bytes moved)"});
        if (mm->state_tensors == 0) {
          t.row({"KV cache", mm->cache_note.empty() ? "none (no persistent state in this method)"
                                                    : "none: " + shown(mm->cache_note, 400)});
        } else {
          std::string c = std::to_string(mm->state_tensors) + " tensors";
          if (mm->cache_positions) c += " (" + std::to_string(mm->cache_layers) + " layers, K and V)";
          c += ", " + mm->state_dtype + " " + mm->state_shape + ", " + bytes_text(mm->state_bytes) + ", in " + mm->where;
          if (mm->where != "mutable buffers")
            c += std::string(" (owned by pte-run, ") +
                 (mm->by_pointer == mm->state_tensors ? "read in place"
                  : mm->by_pointer == 0              ? "copied in each call"
                                                     : std::to_string(mm->by_pointer) + " read in place, the others copied in each call") +
                 "; the outputs return " +
                 (mm->slice_outputs == mm->state_tensors ? "the new positions, written back at the position)"
                  : mm->slice_outputs == 0             ? "the whole updated caches, copied back)"
                                                       : "whole caches or new positions)");
          if (mm->cache_positions) c += ", " + std::to_string(mm->cache_positions) + " positions";
          if (mm->ring_layers)
            c += "; " + std::to_string(mm->ring_layers) + " of the layers sliding-window (window " + std::to_string(mm->window) +
                 ") in ring buffers of " + std::to_string(mm->ring_slots) + " slots, with their slot-position tensors";
          if (mm->cache_positions) {
          } else if (!mm->cache_note.empty()) c += " (" + shown(mm->cache_note, 200) + ")";
          t.row({"KV cache", c});
        }
      }
    }
    size_t mo, bd;
    t.row({"status", readiness(m, &mo, &bd)});
    t.print(f, "  ", "  ");

    auto sig = [&](const char* title, const std::vector<ValueInfo>& vals, bool inputs) {
      std::fprintf(f, "  %s\n", title);
      if (vals.empty()) {
        std::fprintf(f, "    (none)\n");
        return;
      }
      Table s({true, false, false});
      for (size_t k = 0; k < vals.size(); ++k) {
        const ValueInfo& v = vals[k];
        std::string note;
        if (v.tag == Tag::Tensor) {
          if (has_constant_tensor(v)) note = "constant " + tensor_values_text(v);
          else if (!v.tensor.memory_planned) note = inputs ? "not planned (uses the caller's memory)" : "not planned";
        } else if (v.tag == Tag::Int || v.tag == Tag::Double || v.tag == Tag::Bool || v.tag == Tag::String) {
          note = "= " + value_text(v) + " (fixed at export)";
        }
        s.row({std::to_string(k), type_text(v), note});
      }
      s.print(f, "    ", "    ");
    };
    sig("inputs", m.inputs, true);
    sig("outputs", m.outputs, false);
    if (!m.operators.empty()) {
      std::fprintf(f, "  operators\n");
      Table o;
      for (const auto& op : m.operators) o.row({shown(op.name), op.supported ? "supported" : "NOT SUPPORTED"});
      o.print(f, "    ", "    ");
    }
    if (!m.delegates.empty()) {
      std::fprintf(f, "  delegates\n");
      Table d({true, false, true, false, false});
      for (size_t k = 0; k < m.delegates.size(); ++k) {
        const auto& del = m.delegates[k];
        d.row({std::to_string(k), shown(del.backend, 60), bytes_text(del.blob_bytes), del.inline_data ? "inline" : "segment",
               del.supported ? "supported" : "NOT SUPPORTED"});
      }
      d.print(f, "    ", "    ");
      // node types inside each delegate (XNNPACK), one table per delegate
      for (size_t k = 0; k < m.delegates.size(); ++k) {
        const auto& del = m.delegates[k];
        if (del.nodes.empty() && del.detail.empty()) continue;
        std::fprintf(f, "    delegate %zu nodes%s%s\n", k, del.detail.empty() ? "" : ": ", shown(del.detail, 200).c_str());
        Table nt({false, true, false});
        for (const auto& nd : del.nodes)
          nt.row({shown(nd.name, 60) + (nd.types.empty() ? "" : " (" + shown(nd.types, 60) + ")"), "x" + std::to_string(nd.count),
                  nd.supported ? "supported" : "NOT SUPPORTED"});
        nt.print(f, "      ", "      ");
      }
    }
    if (const MethodPaths* mp = paths_of(pi, m)) {
      if (!mp->error.empty()) {
        std::fprintf(f, "  fp32 matrix multiplies and convolutions: not shown (the method does not load: %s)\n", shown(mp->error, 200).c_str());
      } else if (!mp->paths.empty()) {
        size_t lib = 0;
        for (const auto& p : mp->paths) lib += p.library;
        std::fprintf(f, "  fp32 matrix multiplies and convolutions with constant weights (%zu of %zu on the XNNPACK library)\n", lib, mp->paths.size());
        Table pt({false, false, true, false});
        for (const auto& p : mp->paths)
          pt.row({p.where, shown(p.op, 60), std::to_string(p.k) + " -> " + std::to_string(p.n), shown(p.why, 120)});
        pt.print(f, "    ", "    ");
      }
    }
  }

  if (!constants.empty()) {
    std::fprintf(f, "\nconstant methods\n");
    Table c;
    for (const MethodInfo* m : constants) {
      std::string v;
      if (m->outputs.size() == 1) {
        v = value_text(m->outputs[0]);
      } else {
        std::vector<std::string> parts;
        for (const auto& o : m->outputs) parts.push_back(value_text(o));
        v = "[" + join(parts, ", ") + "]";
      }
      c.row({shown(m->name), "= " + v});
    }
    c.print(f, "  ", "  ");
  }
}

// ---------------------------------------------------------------- JSON output

Value program_json(const std::string& file, const Program& program, const BundleInfo& bundle,
                   const std::vector<std::string>& data_files) {
  const ProgramInfo& pi = program.info();
  Value doc = Value::object();
  doc.set("file", Value(file));
  doc.set("format", Value(bundle.present ? "bpte" : "pte"));
  if (std::string task = program_task(pi); !task.empty()) doc.set("task", Value(task));
  if (bundle.present) {
    Value& b = doc.set("bundle", Value::object());
    b.set("version", Value(bundle.version));
    b.set("program_offset", Value(static_cast<unsigned long long>(bundle.program_offset)));
    b.set("program_bytes", Value(static_cast<unsigned long long>(bundle.program_bytes)));
    Value& suites = b.set("test_suites", Value::array());
    for (const auto& s : bundle.suites) {
      Value& e = suites.push(Value::object());
      e.set("method", Value(s.first));
      e.set("test_cases", Value(static_cast<unsigned long long>(s.second)));
    }
  }
  doc.set("file_bytes", Value(static_cast<unsigned long long>(bundle.present ? bundle.file_bytes : pi.file_bytes)));
  doc.set("schema_version", Value(pi.version));
  doc.set("extended_header", Value(pi.extended_header));
  auto roles = segment_roles(program);
  Value& segs = doc.set("segments", Value::array());
  for (size_t k = 0; k < pi.segments.size(); ++k) {
    Value& s = segs.push(Value::object());
    s.set("offset", Value(static_cast<unsigned long long>(pi.segments[k].offset)));
    s.set("bytes", Value(static_cast<unsigned long long>(pi.segments[k].size)));
    Value& h = s.set("holds", Value::array());
    for (const auto& r : roles[k].holds) h.push(Value(r));
  }
  Value& c = doc.set("constants", Value::object());
  c.set("bytes", Value(static_cast<unsigned long long>(pi.constant_bytes)));
  c.set("storage", Value(pi.legacy_constant_buffer ? "constant_buffer" : pi.constant_bytes ? "segment" : "none"));
  Value& nd = doc.set("named_data", Value::object());
  nd.set("entries", Value(static_cast<unsigned long long>(pi.named_data_entries)));
  nd.set("bytes", Value(static_cast<unsigned long long>(pi.named_data_bytes)));
  Value& ext = doc.set("external_data", Value::object());
  Value& files = ext.set("files", Value::array());
  for (const auto& d : data_files) files.push(Value(d));
  ext.set("bytes", Value(static_cast<unsigned long long>(pi.external_bytes)));

  Value& methods = doc.set("methods", Value::array());
  for (const MethodInfo& m : pi.methods) {
    Value& o = methods.push(Value::object());
    bool constant = is_constant_method(m);
    o.set("name", Value(m.name));
    o.set("kind", Value(constant ? "constant" : "compute"));
    size_t mo, bd;
    readiness(m, &mo, &bd);
    o.set("runnable", Value(mo == 0 && bd == 0));
    o.set("values", Value(static_cast<unsigned long long>(m.num_values)));
    o.set("instructions", Value(static_cast<unsigned long long>(m.num_instructions)));
    Value& in = o.set("inputs", Value::array());
    for (const auto& v : m.inputs) in.push(value_json(v, true));
    Value& out = o.set("outputs", Value::array());
    for (const auto& v : m.outputs) out.push(value_json(v, constant));
    Value& ops = o.set("operators", Value::array());
    for (const auto& op : m.operators) {
      Value& e = ops.push(Value::object());
      e.set("name", Value(op.name));
      e.set("supported", Value(op.supported));
    }
    Value& dels = o.set("delegates", Value::array());
    for (const auto& d : m.delegates) {
      Value& e = dels.push(Value::object());
      e.set("backend", Value(d.backend));
      e.set("bytes", Value(static_cast<unsigned long long>(d.blob_bytes)));
      e.set("location", Value(d.inline_data ? "inline" : "segment"));
      e.set("supported", Value(d.supported));
      if (!d.detail.empty()) e.set("detail", Value(d.detail));
      if (!d.nodes.empty()) {
        Value& nodes = e.set("nodes", Value::array());
        for (const auto& nd : d.nodes) {
          Value& ne = nodes.push(Value::object());
          ne.set("name", Value(nd.name));
          ne.set("count", Value(static_cast<unsigned long long>(nd.count)));
          if (!nd.types.empty()) ne.set("types", Value(nd.types));
          ne.set("supported", Value(nd.supported));
        }
      }
    }
    if (const MethodPaths* mp = paths_of(pi, m)) {
      if (!mp->error.empty()) {
        o.set("matmuls_error", Value(mp->error));
      } else {
        Value& mm = o.set("matmuls", Value::array());
        for (const auto& p : mp->paths) {
          Value& e = mm.push(Value::object());
          e.set("where", Value(p.where));
          e.set("op", Value(p.op));
          e.set("n", Value(static_cast<long long>(p.n)));
          e.set("k", Value(static_cast<long long>(p.k)));
          e.set("path", Value(p.library ? "xnnpack" : "ours"));
          e.set("why", Value(p.why));
        }
      }
    }
    Value& mem = o.set("planned_memory", Value::array());
    for (int64_t b : m.planned_buffers) mem.push(Value(static_cast<long long>(b)));
    if (const MethodMemory* mm = memory_of(pi, m)) {
      Value& r = o.set("memory", Value::object());
      r.set("file_plan_bytes", Value(static_cast<unsigned long long>(mm->file_plan)));
      if (mm->loaded) {
        r.set("file_plan_arena_bytes", Value(static_cast<unsigned long long>(mm->file_arena)));
        r.set("replanned_bytes", Value(static_cast<unsigned long long>(mm->replanned)));
        r.set("copies_as_views", Value(static_cast<unsigned long long>(mm->copy_views)));
        Value& kv = r.set("kv_cache", Value::object());
        kv.set("where", Value(mm->state_tensors ? mm->where : std::string("none")));
        if (mm->where != "mutable buffers") kv.set("inputs_read_in_place", Value(static_cast<unsigned long long>(mm->by_pointer)));
        kv.set("tensors", Value(static_cast<unsigned long long>(mm->state_tensors)));
        kv.set("layers", Value(static_cast<unsigned long long>(mm->cache_positions ? mm->cache_layers : 0)));
        kv.set("ring_layers", Value(static_cast<unsigned long long>(mm->ring_layers)));
        kv.set("window", Value(static_cast<long long>(mm->window)));
        kv.set("ring_slots", Value(static_cast<long long>(mm->ring_slots)));
        kv.set("dtype", Value(mm->state_dtype));
        kv.set("shape", Value(mm->state_shape));
        kv.set("bytes", Value(static_cast<unsigned long long>(mm->state_bytes)));
        kv.set("positions", Value(static_cast<long long>(mm->cache_positions)));
        if (!mm->cache_note.empty()) kv.set("note", Value(mm->cache_note));
      } else {
        r.set("error", Value(mm->error));
      }
    }
  }
  return doc;
}

// ---------------------------------------------------------------- .ptd on its own

int describe_ptd(const std::string& path, bool as_json) {
  DataFile df;
  Status s = df.open(path);
  if (!s) {
    std::fprintf(stderr, "pte-run: %s\n", one_line(s.message()).c_str());
    return 1;
  }
  struct Entry {
    std::string key, type;
    uint64_t bytes = 0;
  };
  std::vector<Entry> entries;
  Value doc = Value::object();
  doc.set("file", Value(path));
  doc.set("format", Value("ptd"));
  doc.set("layout", Value(df.legacy_layout() ? "tensors (2025-01..06)" : "named_data"));
  doc.set("file_bytes", Value(static_cast<unsigned long long>(df.map().size())));
  doc.set("data_bytes", Value(static_cast<unsigned long long>(df.data_bytes())));
  Value& arr = doc.set("tensors", Value::array());
  for (size_t k = 0; k < df.entries(); ++k) {
    DataEntry e;
    if (!df.entry(k, &e)) break;
    Entry en;
    en.key = std::string(e.key);
    en.bytes = e.bytes.size;
    Value& j = arr.push(Value::object());
    j.set("key", Value(en.key));
    j.set("bytes", Value(static_cast<unsigned long long>(en.bytes)));
    if (e.has_layout) {
      bool known = dtype_valid(e.scalar_type);
      TensorInfo t;
      t.dtype = known ? static_cast<DType>(e.scalar_type) : DType::UInt8;
      t.sizes = e.sizes;
      en.type = known ? shape_text(t) : "unknown dtype " + std::to_string(e.scalar_type);
      j.set("dtype", Value(known ? dtype_name(t.dtype) : "unknown"));
      Value& shape = j.set("shape", Value::array());
      for (int64_t v : t.sizes) shape.push(Value(static_cast<long long>(v)));
    }
    entries.push_back(std::move(en));
  }
  if (as_json) {
    std::printf("%s\n", json::write(doc, 2).c_str());
    return 0;
  }
  std::printf("%s\n", shown(path, 4096).c_str());
  Table top;
  top.row({"size", bytes_text(df.map().size())});
  top.row({"format", df.legacy_layout() ? "external data (FT01, earlier tensors layout of 2025-01..06)" : "external data (FT01)"});
  top.row({"tensors", plural(entries.size(), "entry", "entries") + ", " + bytes_text(df.data_bytes())});
  top.print(stdout, "  ", "  ");
  if (!entries.empty()) {
    std::printf("\n  tensors\n");
    Table t({false, false, true});
    for (const auto& e : entries) t.row({shown(e.key), e.type.empty() ? "-" : e.type, bytes_text(e.bytes)});
    t.print(stdout, "    ", "    ");
  }
  return 0;
}

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run info MODEL.pte [--data FILE.ptd]... [--memory] [--json]\n"
               "  Describes a program without running it: file layout, methods (inputs, outputs,\n"
               "  operators, delegates, planned memory) and the values of constant methods.\n"
               "  MODEL may also be a bundled program (.bpte) or an external data file (.ptd).\n"
               "  --data FILE.ptd   external weights the program refers to (repeatable)\n"
               "  --memory          also load each method with the file's memory plan and with our\n"
               "                    lifetime re-plan and print both arena sizes\n"
               "  --json            print one JSON document instead of text\n"
               "  --ops-list A.pte [B.pte...]  print the operators and delegate nodes the programs use, one\n"
               "                    per line: the list a selective build keeps (meson setup -Dselect_ops=FILE)\n"
               "  --xnnpack on|off|auto  the policy under which the fp32 matrix multiplies and delegated\n"
               "                    convolutions with constant weights are listed with their path (ours\n"
               "                    or the XNNPACK library)\n");
}

int fail(const std::string& message) {
  std::fprintf(stderr, "pte-run: %s\n", one_line(message).c_str());
  return 1;
}

}  // namespace

int cmd_info(int argc, char** argv) {
  std::string model;
  OpenOptions options;
  bool as_json = false;
  bool with_memory = false;
  bool ops_list = false;
  std::vector<std::string> models;  // --ops-list takes several
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    }
    if (a == "--ops-list") {
      ops_list = true;
    } else if (ops_list && (a.empty() || a[0] != '-')) {
      models.push_back(a);
    } else if (a == "--json") {
      as_json = true;
    } else if (a == "--memory") {
      with_memory = true;
    } else if (a == "--data" || a.rfind("--data=", 0) == 0) {
      std::string v;
      if (a == "--data") {
        if (i + 1 >= argc) {
          std::fprintf(stderr, "pte-run info: --data needs a file\n");
          usage(stderr);
          return 2;
        }
        v = argv[++i];
      } else {
        v = a.substr(7);
      }
      options.data_files.push_back(v);
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "pte-run info: unknown option '%s'\n", one_line(a).c_str());
      usage(stderr);
      return 2;
    } else if (model.empty()) {
      model = a;
    } else {
      std::fprintf(stderr, "pte-run info: more than one model given ('%s' and '%s')\n", one_line(model).c_str(),
                   one_line(a).c_str());
      usage(stderr);
      return 2;
    }
  }
  if (ops_list) {
    if (!model.empty()) models.insert(models.begin(), model);
    if (models.empty()) {
      std::fprintf(stderr, "pte-run info: --ops-list needs one or more models\n");
      return 2;
    }
    return cmd_ops_list(models, options);
  }
  if (model.empty()) {
    std::fprintf(stderr, "pte-run info: no model given\n");
    usage(stderr);
    return 2;
  }

  FileMap map;
  Status s = map.open(model);
  if (!s) return fail(s.message());
  const uint8_t* d = map.data();
  size_t n = map.size();

  if (n >= 8 && std::memcmp(d + 4, "FT01", 4) == 0 && options.data_files.empty()) return describe_ptd(model, as_json);

  BundleInfo bundle;
  std::unique_ptr<Program> program;
  if (n >= 8 && std::memcmp(d + 4, "BP08", 4) == 0) {
    namespace bp = bundled_program_flatbuffer;
    flatbuffers::Verifier v(d, n, 64, 10'000'000);
    if (!v.VerifyBuffer<bp::BundledProgram>("BP08"))
      return fail(model + ": bundled program (BP08) is corrupt: flatbuffer verification failed");
    const auto* root = flatbuffers::GetRoot<bp::BundledProgram>(d);
    if (!root->program() || root->program()->size() == 0) return fail(model + ": bundled program (BP08) embeds no program");
    bundle.present = true;
    bundle.file_bytes = n;
    bundle.version = root->version();
    bundle.program_offset = static_cast<uint64_t>(root->program()->data() - d);
    bundle.program_bytes = root->program()->size();
    if (const auto* suites = root->method_test_suites())
      for (const auto* suite : *suites)
        bundle.suites.emplace_back(suite->method_name() ? suite->method_name()->str() : std::string("?"),
                                   suite->test_cases() ? suite->test_cases()->size() : 0);
    s = Program::open_buffer(root->program()->data(), root->program()->size(), model + " (embedded program)", options,
                             &program);
  } else {
    s = Program::open_file(model, options, &program);
  }
  if (!s) return fail(s.message());

  MemoryReport memory;
  if (with_memory) {
    memory.present = true;
    const ProgramInfo& pi = program->info();
    memory.methods.resize(pi.methods.size());
    for (size_t k = 0; k < pi.methods.size(); ++k) {
      const MethodInfo& m = pi.methods[k];
      if (is_constant_method(m)) continue;
      MethodMemory& mm = memory.methods[k];
      mm.computed = true;
      for (int64_t b : m.planned_buffers) mm.file_plan += static_cast<uint64_t>(b);
      Program::MethodOptions mo;
      mo.num_threads = 1;
      mo.inputs_by_pointer = StaticAttention::present(pi, m.name) ? StaticAttention::cache_inputs(pi, m.name)
                                                                  : KvCache::input_candidates(m);  // as the runner loads it
      std::unique_ptr<Method> method;
      Status ls = program->load_method(m.name, mo, &method);
      if (ls) {
        mm.file_arena = method->arena_bytes();
        mm.copy_views = method->copies_as_views();
        describe_state(pi, *method, &mm);
        method.reset();
        mo.replan_memory = true;
        ls = program->load_method(m.name, mo, &method);
        if (ls) mm.replanned = method->arena_bytes();
      }
      mm.loaded = ls.is_ok();
      if (!ls) mm.error = ls.message();
    }
    g_memory = &memory;
  }

  const std::vector<MethodPaths> paths = collect_paths(*program);
  g_paths = &paths;
  if (as_json) {
    Value doc = program_json(model, *program, bundle, options.data_files);
    std::printf("%s\n", json::write(doc, 2).c_str());
  } else {
    print_text(model, *program, bundle, options.data_files);
  }
  g_memory = nullptr;
  g_paths = nullptr;
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace pte::cli
