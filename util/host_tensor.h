// pte-run tools: a tensor that owns its bytes, always contiguous in C (row-major)
// order. The CLI, the .npy reader and the conformance tests exchange tensors as
// HostTensors; binding one to a method converts it to the method's dim order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pte/program.h"
#include "pte/status.h"
#include "pte/value.h"

namespace pte::util {

struct HostTensor {
  DType dtype = DType::Float;
  std::vector<int64_t> shape;  // empty: a 0-d tensor (one element)
  std::vector<uint8_t> bytes;  // numel * dtype_size, C order, little-endian

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  size_t elem_size() const { return dtype_size(dtype); }
};

// A method input or output held by the host: a tensor or a scalar.
struct HostValue {
  Tag tag = Tag::None;   // Tensor, Int, Double, Bool, String or None
  HostTensor tensor;     // tag == Tensor
  int64_t i = 0;         // tag == Int
  double d = 0;          // tag == Double
  bool b = false;        // tag == Bool
  std::string s;         // tag == String
};

// "f32[2,3]" (dtype short name and sizes); "f32[]" for a 0-d tensor.
std::string shape_string(DType dtype, const int64_t* sizes, size_t dim);
inline std::string shape_string(const HostTensor& t) { return shape_string(t.dtype, t.shape.data(), t.shape.size()); }
// "f32[2,<=8]": a signature entry; dynamic dims are shown as upper bounds.
std::string signature_entry(const ValueInfo& v);
// "forward(f32[2,2], f32[2,2]) -> (f32[2,2])".
std::string signature_string(const MethodInfo& m);

// Element i (C order) of a contiguous array of `dtype`, as double (bool: 0/1;
// half and bfloat16 widened exactly; int64 beyond 2^53 rounds).
double element_as_double(DType dtype, const void* base, int64_t i);
// True for float32/float64/float16/bfloat16.
bool is_floating(DType dtype);

// Copies a runtime tensor (any dim order) into C order.
Status host_from_tensor(const Tensor& t, HostTensor* out);
// Copies a runtime value (tensor or scalar) to the host.
Status host_from_evalue(const EValue& v, HostValue* out);
// Copies `physical` bytes laid out in `dim_order` (outermost first; empty =
// contiguous) into a C-order HostTensor.
Status host_from_physical(DType dtype, const int64_t* sizes, size_t dim, const uint8_t* dim_order,
                          const void* physical, size_t physical_bytes, HostTensor* out);

// A host tensor prepared for Method::set_input: its bytes rearranged into the
// method's dim order. Keep it alive until execute() returns (unplanned inputs
// are bound by pointer).
struct BoundInput {
  Tensor tensor;
  std::vector<uint8_t> storage;  // physical bytes (8-aligned by the allocator)
  EValue scalar;                 // for Int/Double/Bool inputs
  bool is_tensor = false;
};

// Checks `value` against input `index` of `method` (tag, dtype, rank, sizes:
// equal when static, within the bound when dynamic) and prepares it. The error
// names the input and both types, e.g. "input 1: expected f32[2,2], got i64[2,2]".
Status bind_input(const MethodInfo& method, size_t index, const HostValue& value, BoundInput* out);
// Binds every input (count must match) and calls set_input on each.
Status set_inputs(Method& method, const std::vector<HostValue>& values, std::vector<BoundInput>* bound);

}  // namespace pte::util
