// pte-run: the read prefix of an fp16 KV cache cast to fp32 (see cast_cache_prefix.h).
#include "ops/prim/cast_cache_prefix.h"

#include <algorithm>

#include "ops/linalg/claim_pool.h"
#include "ops/linalg/gemm_f16w.h"
#include "ops/util.h"

namespace pte {

bool cast_rows_f16_f32(KernelContext& ctx, const Tensor& src, Tensor& out, int64_t positions) {
  if (src.dtype != DType::Half || out.dtype != DType::Float) return ctx.fail("cache cast: expected fp16 -> fp32");
  if (src.dim < 2) return ctx.fail("cache cast: the cache needs rank 2 or more");
  if (!src.contiguous_order() || !out.contiguous_order()) return ctx.fail("cache cast: expected contiguous tensors");
  if (!resize_output_like(ctx, out, src)) return false;
  const int64_t L = src.sizes[1], B = src.sizes[0];
  int64_t inner = 1;
  for (int d = 2; d < src.dim; ++d) inner *= src.sizes[d];
  const int64_t n = std::clamp<int64_t>(positions, 0, L);
  if (n == 0 || B == 0 || inner == 0) return true;
  if (!src.data || !out.data) return ctx.fail("cache cast: a tensor has no memory");
  // chunks of 32 Ki values; over the caller and the claim pool's helpers from 192 Ki values
  // (SmolLM2-135M fp16 decode, 2 threads: a helper's wake-up costs more than it converts
  // below that, 15.7 against 18.5 ms a step at context 512; above, 20.6 against 29 at 2048)
  constexpr int64_t kChunk = 32768, kMinShared = 196608;
  struct Job {
    const uint16_t* src;
    float* out;
    int64_t per_batch, stride, chunks_per_batch;
  } job{static_cast<const uint16_t*>(src.data), static_cast<float*>(out.data), n * inner, L * inner,
        (n * inner + kChunk - 1) / kChunk};
  auto run = [](void* p, int64_t t) {
    const Job& j = *static_cast<const Job*>(p);
    const int64_t b = t / j.chunks_per_batch, c0 = t % j.chunks_per_batch * kChunk;
    const int64_t c1 = std::min(j.per_batch, c0 + kChunk);
    linalg::convert_f16_to_f32(j.src + b * j.stride + c0, j.out + b * j.stride + c0, c1 - c0);
  };
  const int64_t tiles = B * job.chunks_per_batch;
  linalg::claim_parallel_for(B * n * inner >= kMinShared ? ctx.claim_threads - 1 : 0, tiles, run, &job);
  return true;
}

bool cast_cache_prefix(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Int, "start_pos") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "query") || !expect_tag(ctx, args[3], Tag::Tensor, "out"))
    return false;
  const Tensor& q = *args[2]->t;
  if (q.dim < 2) return ctx.fail("cache cast: the query needs rank 2 or more");
  return cast_rows_f16_f32(ctx, *args[0]->t, *args[3]->t, args[1]->i + q.sizes[1]);
}

}  // namespace pte
