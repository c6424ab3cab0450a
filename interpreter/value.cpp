#include "pte/value.h"

#include <cstdint>

namespace pte {

void compute_strides(Tensor& t) {
  int64_t stride = 1;
  for (int k = t.dim - 1; k >= 0; --k) {
    int d = t.dim_order[k];
    t.strides[d] = stride;
    // (saturates: only a tensor with a zero-size dim can get here with a product past
    // 2^63, and it is never indexed)
    if (__builtin_mul_overflow(stride, t.sizes[d], &stride)) stride = INT64_MAX;
  }
}

bool resize_tensor(Tensor& t, const int64_t* sizes, int32_t dim) {
  if (dim < 0 || dim > kMaxDims) return false;
  int64_t numel = 1;
  for (int i = 0; i < dim; ++i) {
    if (sizes[i] < 0 || __builtin_mul_overflow(numel, sizes[i], &numel)) return false;
  }
  bool same = dim == t.dim;
  for (int i = 0; same && i < dim; ++i) same = sizes[i] == t.sizes[i];
  if (same) return true;
  if (t.dynamism == Dynamism::Static) return false;
  // (in 64 bits: with a 32-bit size_t the product could wrap below the capacity)
  uint64_t bytes = 0;
  if (t.data && (__builtin_mul_overflow(static_cast<uint64_t>(numel), static_cast<uint64_t>(dtype_size(t.dtype)), &bytes) ||
                 bytes > static_cast<uint64_t>(t.capacity)))
    return false;
  if (dim != t.dim) {
    // A rank change keeps a contiguous layout.
    for (int i = 0; i < dim; ++i) t.dim_order[i] = static_cast<uint8_t>(i);
  }
  t.dim = dim;
  for (int i = 0; i < dim; ++i) t.sizes[i] = sizes[i];
  compute_strides(t);
  return true;
}

const char* tag_name(Tag t) {
  switch (t) {
    case Tag::None: return "None";
    case Tag::Int: return "Int";
    case Tag::Double: return "Double";
    case Tag::Bool: return "Bool";
    case Tag::String: return "String";
    case Tag::Tensor: return "Tensor";
    case Tag::IntList: return "IntList";
    case Tag::DoubleList: return "DoubleList";
    case Tag::BoolList: return "BoolList";
    case Tag::TensorList: return "TensorList";
    case Tag::OptionalTensorList: return "OptionalTensorList";
  }
  return "?";
}

const int64_t* EValue::int_list(size_t* n) const {
  for (size_t k = 0; k < ilist.size; ++k) {
    const EValue* e = ilist.items[k];
    ilist.scratch[k] = e ? e->to_int() : 0;
  }
  *n = ilist.size;
  return ilist.scratch;
}

}  // namespace pte
