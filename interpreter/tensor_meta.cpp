#include "interpreter/tensor_meta.h"
#include <cstdint>
#include <string>

namespace pte {

Status decode_tensor_meta(const fb::Tensor* t, Tensor* out) {
  int st = static_cast<int>(t->scalar_type());
  if (!dtype_valid(st) || dtype_size(static_cast<DType>(st)) == 0)
    return Status::error("tensor has unknown scalar type " + std::to_string(st));
  out->dtype = static_cast<DType>(st);
  const auto* sizes = t->sizes();
  int dim = sizes ? static_cast<int>(sizes->size()) : 0;
  if (dim > kMaxDims) return Status::error("tensor has " + std::to_string(dim) + " dimensions (at most " + std::to_string(kMaxDims) + ")");
  const auto* order = t->dim_order();
  int norder = order ? static_cast<int>(order->size()) : 0;
  if (norder != 0 && norder != dim)
    return Status::error("tensor dim_order has " + std::to_string(norder) + " entries for " + std::to_string(dim) + " dimensions");
  out->dim = dim;
  unsigned seen = 0;
  int64_t numel = 1;  // at most 2^48: checked before each product (no 128-bit type on 32-bit ARM)
  for (int i = 0; i < dim; ++i) {
    int32_t s = sizes->Get(i);
    if (s < 0) return Status::error("tensor has a negative size " + std::to_string(s));
    out->sizes[i] = s;
    const int64_t f = s > 0 ? s : 1;  // (zero-size dims aside: the strides are products of the others)
    if (numel > (int64_t{1} << 48) / f) return Status::error("tensor size is absurd (more than 2^48 elements)");
    numel *= f;
    int o = norder ? order->Get(i) : i;
    if (o >= dim || (seen & (1u << o))) return Status::error("tensor dim_order is not a permutation");
    seen |= 1u << o;
    out->dim_order[i] = static_cast<uint8_t>(o);
  }
  // The byte count must fit a size_t and a pointer difference: on a 32-bit machine a tensor
  // of 2^32 bytes or more would wrap nbytes() to a small number and every check after it.
  if (static_cast<uint64_t>(numel) * dtype_size(out->dtype) > static_cast<uint64_t>(PTRDIFF_MAX))
    return Status::error("tensor of " + std::to_string(static_cast<uint64_t>(numel) * dtype_size(out->dtype)) +
                         " bytes does not fit this machine's address space");
  if (t->storage_offset() != 0) return Status::error("tensor storage_offset " + std::to_string(t->storage_offset()) + " is not 0");
  int dyn = static_cast<int>(t->shape_dynamism());
  if (dyn < 0 || dyn > 2) return Status::error("tensor shape dynamism " + std::to_string(dyn) + " is unknown");
  out->dynamism = static_cast<Dynamism>(dyn);
  compute_strides(*out);
  return Status::ok();
}

size_t tensor_meta_nbytes(const Tensor& t) { return t.nbytes(); }

}  // namespace pte
