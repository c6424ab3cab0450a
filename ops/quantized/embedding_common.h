// pte-run quantized: the dequantizing embedding lookup shared by embedding_byte,
// embedding_4bit and embedding_2bit (ExecuTorch's kernels/quantized layout):
//   weight [V, D * nbits / 8] (uint8; int8 also for 8 bits), scales [V] or [V, groups],
//   zero_points (optional) shaped like scales; out = indices.shape + [D] with
//   out[t, j] = (w(idx, j) - zp(idx, j / group)) * scale(idx, j / group) in float.
// Packing: 4-bit values are stored minus 8 (unsigned nibbles), element 2i in the HIGH
// nibble of byte i and 2i+1 in the low nibble; 2-bit values minus 2, element 4i+k in
// bits [2k, 2k+1] (low bits first).
#pragma once
#include "ops/kernel.h"

namespace pte::quant {

// args: weight, weight_scales, weight_zero_points?, weight_quant_min, weight_quant_max,
// indices, [dtype?,] out. `dtype_arg` is null for the .out overloads.
bool embedding_quantized(KernelContext& ctx, const char* op, int nbits, EValue** args, const EValue* dtype_arg, EValue* out);

}  // namespace pte::quant
