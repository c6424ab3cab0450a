// pte-run: the tail of torch's safe softmax as one kernel (interpreter/passes/fold_safe_softmax.cpp).
//
// The exporter's SDPA decomposition (aten::_safe_softmax) leaves, after each softmax,
//   m = eq(x, -inf); a = logical_not(any(logical_not(m), dim=-1, keepdim)); z = full_like(s, 0)
//   out = where(a, z, s)
// i.e. out = s with the rows whose inputs x are all -inf set to zero: five passes over an
// attention map of bools and floats (Depth Anything small: 6 x 1370 x 1370 per layer). The
// pass keeps only the where, with its condition argument replaced by x.
#pragma once
#include "ops/kernel.h"

namespace pte {

// args (the where's, condition replaced): x, (unused), s, out, return. x, s, out: fp32 of
// one shape (out resized to it); out may be x's own memory, never partly overlap it.
bool safe_softmax_rows(KernelContext& ctx, EValue** args);

}  // namespace pte
