// pte-run: the positions of an fp16 KV cache that an attention reads, cast to fp32
// (interpreter/passes/cast_cache_prefix.cpp).
//
// An fp16 export with llama::custom_sdpa casts each whole cache [B, L, H, D] to fp32
// before every attention (`_to_copy`): L positions per layer and step, whatever the
// context. custom_sdpa without a mask reads positions [0, start_pos + S) only (S: the
// query's dim 1), so the pass gives the cast that bound: the same bytes where they are
// read, the rest of the fp32 copy left as it was (nothing else reads it).
#pragma once
#include "ops/kernel.h"

namespace pte {

// args (the _to_copy's, two replaced): src (fp16, contiguous, rank >= 2), start_pos (Int),
// query (tensor, rank >= 2), out (fp32, contiguous), return. out is resized to src's
// shape; for each index of dim 0, positions [0, min(L, max(0, start_pos + query.sizes[1])))
// of dim 1 are converted.
bool cast_cache_prefix(KernelContext& ctx, EValue** args);

// Positions [0, min(L, max(0, positions))) of dim 1 of src (fp16 [B, L, ...], contiguous)
// widened into out (fp32, contiguous; resized to src's shape), for each index of dim 0; the
// rest of out left as it was. Shared by the kernel above and custom_sdpa_half_kv.
bool cast_rows_f16_f32(KernelContext& ctx, const Tensor& src, Tensor& out, int64_t positions);

}  // namespace pte
