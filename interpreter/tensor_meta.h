// pte-run: checks and decodes a serialized tensor's metadata (dtype, sizes, dim order).
#pragma once
#include "interpreter/loader.h"

namespace pte {

// Validates the metadata of `t` and fills the shape part of `out` (dtype, dim, sizes,
// dim_order, strides, dynamism). Data pointer and capacity are left to the caller.
Status decode_tensor_meta(const fb::Tensor* t, Tensor* out);

// Byte size of the tensor at its serialized (upper-bound) sizes.
size_t tensor_meta_nbytes(const Tensor& t);

}  // namespace pte
