// quantized_decomposed::embedding_4bit.out(Tensor weight, Tensor weight_scales,
//     Tensor? weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices,
//     *, Tensor(a!) out) -> Tensor(a!)
// quantized_decomposed::embedding_4bit.dtype_out(..., Tensor indices, ScalarType? dtype=None,
//     *, Tensor(a!) out) -> Tensor(a!)
// Two values per byte (high nibble first, stored +8); see embedding_common.h.
#include "ops/quantized/embedding_common.h"

namespace pte {

bool embedding_4bit_out(KernelContext& ctx, EValue** args) {
  return quant::embedding_quantized(ctx, "embedding_4bit", 4, args, nullptr, args[6]);
}

bool embedding_4bit_dtype_out(KernelContext& ctx, EValue** args) {
  return quant::embedding_quantized(ctx, "embedding_4bit.dtype", 4, args, args[6], args[7]);
}

}  // namespace pte
