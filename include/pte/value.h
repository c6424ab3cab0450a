// pte-run public API: the runtime value types. Plain structs that own nothing:
// a Tensor points at memory owned by the program (arena, mapped file) or the caller.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pte/dtype.h"

namespace pte {

constexpr int kMaxDims = 16;

enum class Dynamism : uint8_t { Static = 0, DynamicBound = 1, DynamicUnbound = 2 };

struct Tensor {
  DType dtype = DType::Float;
  int32_t dim = 0;
  int64_t sizes[kMaxDims] = {};
  // Element strides, derived from dim_order (the file never stores strides).
  int64_t strides[kMaxDims] = {};
  // Physical order of the dimensions, outermost first; identity when contiguous.
  uint8_t dim_order[kMaxDims] = {};
  void* data = nullptr;
  // Bytes available at `data` (the planned upper bound); a resize may not exceed it.
  size_t capacity = 0;
  Dynamism dynamism = Dynamism::Static;

  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < dim; ++i) n *= sizes[i];
    return n;
  }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
  bool contiguous_order() const {
    for (int i = 0; i < dim; ++i)
      if (dim_order[i] != i) return false;
    return true;
  }
  template <class T>
  T* ptr() const { return static_cast<T*>(data); }
  int64_t size(int d) const { return sizes[d < 0 ? d + dim : d]; }
};

// Recomputes `strides` from `sizes` and `dim_order`.
void compute_strides(Tensor& t);
// Sets new sizes (same rank or a new rank with a contiguous dim order) and strides.
// Fails (returns false) when the tensor is static and the sizes differ, or when
// the new byte size exceeds `capacity` (for tensors with data).
bool resize_tensor(Tensor& t, const int64_t* sizes, int32_t dim);

enum class Tag : uint8_t {
  None = 0,
  Int,
  Double,
  Bool,
  String,
  Tensor,
  IntList,
  DoubleList,
  BoolList,
  TensorList,
  OptionalTensorList,
};

const char* tag_name(Tag t);

struct EValue;

// A list of integers stored as references to Int EValues (symbolic sizes computed at
// run time flow through them); `scratch` has room for `size` values.
struct IntListRef {
  EValue* const* items;
  int64_t* scratch;
  size_t size;
};

struct EValue {
  Tag tag = Tag::None;
  union {
    int64_t i;
    double d;
    bool b;
    Tensor* t;
    struct { const char* data; size_t size; } str;
    IntListRef ilist;
    struct { const double* data; size_t size; } dlist;
    struct { const uint8_t* data; size_t size; } blist;
    // Tensor lists: items point at Tensor EValues; for optional lists an item may be null (None).
    struct { EValue* const* items; size_t size; } tlist;
  };
  EValue() : i(0) {}

  bool is_none() const { return tag == Tag::None; }
  bool is_tensor() const { return tag == Tag::Tensor; }
  bool is_int() const { return tag == Tag::Int; }
  std::string_view string() const { return {str.data, str.size}; }
  // Materialises an IntList into its scratch array and returns it; `n` receives the length.
  const int64_t* int_list(size_t* n) const;
  // A Scalar argument: Int, Double or Bool as double / as int64.
  double to_double() const { return tag == Tag::Double ? d : tag == Tag::Bool ? (b ? 1.0 : 0.0) : static_cast<double>(i); }
  int64_t to_int() const { return tag == Tag::Double ? static_cast<int64_t>(d) : tag == Tag::Bool ? (b ? 1 : 0) : i; }
};

}  // namespace pte
