// quantized_decomposed::embedding_2bit.out(Tensor weight, Tensor weight_scales,
//     Tensor? weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices,
//     *, Tensor(a!) out) -> Tensor(a!)
// quantized_decomposed::embedding_2bit.dtype_out(..., Tensor indices, ScalarType? dtype=None,
//     *, Tensor(a!) out) -> Tensor(a!)
// Four values per byte (low bits first, stored +2); see embedding_common.h.
#include "ops/quantized/embedding_common.h"

namespace pte {

bool embedding_2bit_out(KernelContext& ctx, EValue** args) {
  return quant::embedding_quantized(ctx, "embedding_2bit", 2, args, nullptr, args[6]);
}

bool embedding_2bit_dtype_out(KernelContext& ctx, EValue** args) {
  return quant::embedding_quantized(ctx, "embedding_2bit.dtype", 2, args, args[6], args[7]);
}

}  // namespace pte
