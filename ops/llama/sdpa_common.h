// pte-run: scaled dot-product attention over a KV cache, shared by the llama:: ops.
#pragma once
#include "ops/util.h"

namespace pte {

struct SdpaArgs {
  const Tensor* q;     // [B, S, Hq, D]
  const Tensor* k;     // [B, Skv, Hkv, D] (full cache)
  const Tensor* v;     // [B, Skv, Hkv, D]
  const Tensor* mask;  // optional float [S, kv_len], added to the scores
  Tensor* out;         // [B, S, Hq, D]
  int64_t start_pos;
  int64_t kv_len;      // keys considered: start_pos + S without a mask, the mask's width with one
  bool causal;         // query row i sees keys 0 .. start_pos + i
  float scale;
};

// Checks shapes and dtypes shared by the SDPA ops; fills kv_len and scale.
// half_kv: a float32 query and out with float16 key and value caches (sdpa_run_half_kv).
bool sdpa_prepare(KernelContext& ctx, SdpaArgs& a, bool has_scale, double scale, bool half_kv = false);
// Runs attention (parallel over rows). float32 follows the official runtime's
// arithmetic step by step (key blocks of 512, see sdpa_common.cpp); half and
// bfloat16 use an online softmax in float.
bool sdpa_run(KernelContext& ctx, const SdpaArgs& a);
// float32 attention over float16 caches (a.k, a.v; a.q and a.out float32), bit for bit what
// sdpa_run gives on the caches widened to float32: a decode step on AVX-512 reads the fp16
// rows (the split form); otherwise positions [0, kv_len) are widened into k32 / v32 (fp32,
// contiguous, the caches' shape) and the float32 form reads those.
bool sdpa_run_half_kv(KernelContext& ctx, const SdpaArgs& a, Tensor& k32, Tensor& v32);
// The kernel the load-time pass cast_cache_prefix gives llama::custom_sdpa.out over casts of
// fp16 caches (custom_sdpa.cpp): 12 arguments (custom_sdpa's 8, the two fp32 copies, out, return).
bool custom_sdpa_half_kv_out(KernelContext& ctx, EValue** args);
// Tests: run the float32 path in its scalar form instead of the AVX-512 one.
void sdpa_force_scalar(bool on);
// Tests: prefill's AVX-512 form in tiles of positions (the default) or row by row.
void sdpa_tiles(bool on);
// Tests and benchmarks: a decode step (one query row, AVX-512) over at least `keys` keys
// splits scores, softmax and value sums over the threads (default 128); 0: always, -1: never,
// less than -1: unchanged. Returns how many calls have taken the split so far.
uint64_t sdpa_decode_split_min_keys(int64_t keys);
// Tests: the AVX-512 forms' vector expf against std::exp on every stride-th float of
// [-104, 89]: 1 equal, 0 differs (then the forms use std::exp), -1 no AVX-512.
int sdpa_vector_expf_check(uint32_t stride);
// Copies value [B, S, H, D] into cache[:, start_pos : start_pos + S].
bool cache_write(KernelContext& ctx, const Tensor& value, Tensor& cache, int64_t start_pos);

}  // namespace pte
