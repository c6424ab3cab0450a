// quantized_decomposed::embedding_byte.out(Tensor weight, Tensor weight_scales,
//     Tensor? weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices,
//     *, Tensor(a!) out) -> Tensor(a!)
// quantized_decomposed::embedding_byte.dtype_out(..., Tensor indices, *, ScalarType? dtype=None,
//     Tensor(a!) out) -> Tensor(a!)
// 8-bit (uint8 or int8) rows, per-row or per-group scales; see embedding_common.h.
#include "ops/quantized/embedding_common.h"

namespace pte {

bool embedding_byte_out(KernelContext& ctx, EValue** args) {
  return quant::embedding_quantized(ctx, "embedding_byte", 8, args, nullptr, args[6]);
}

bool embedding_byte_dtype_out(KernelContext& ctx, EValue** args) {
  return quant::embedding_quantized(ctx, "embedding_byte.dtype", 8, args, args[6], args[7]);
}

}  // namespace pte
