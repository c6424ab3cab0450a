// llama::update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out)
//   copies value [B, S, H, D] into cache[:, start_pos : start_pos + S]; `out` is a dummy.
// llama::update_cache_with_indices.out(Tensor value, Tensor(a!) cache, SymInt start_pos,
//     Tensor indices, *, Tensor(b!) out): row (b, s) goes to cache[b, indices[b, s]].
#include "ops/llama/sdpa_common.h"

namespace pte {

bool update_cache_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "value") || !expect_tag(ctx, args[1], Tag::Tensor, "cache") ||
      !expect_tag(ctx, args[2], Tag::Int, "start_pos"))
    return false;
  return cache_write(ctx, *args[0]->t, *args[1]->t, args[2]->i);
}

bool update_cache_with_indices_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "value") || !expect_tag(ctx, args[1], Tag::Tensor, "cache") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "indices"))
    return false;
  const Tensor& v = *args[0]->t;
  Tensor& c = *args[1]->t;
  const Tensor& idx = *args[3]->t;
  if (v.dim != 4 || c.dim != 4 || v.dtype != c.dtype || v.sizes[0] != c.sizes[0] || v.sizes[2] != c.sizes[2] ||
      v.sizes[3] != c.sizes[3])
    return ctx.fail("value and cache must be 4-D [B, S, H, D] of one dtype, matching in dims 0, 2, 3");
  if (idx.dtype != DType::Int64 || idx.dim != 2 || idx.sizes[0] != v.sizes[0] || idx.sizes[1] != v.sizes[1])
    return ctx.fail("indices must be int64 [B, S] matching value");
  if (!c.contiguous_order()) return ctx.fail("cache must be contiguous");
  const size_t es = dtype_size(v.dtype);
  const int64_t H = v.sizes[2], D = v.sizes[3];
  for (int64_t b = 0; b < v.sizes[0]; ++b) {
    for (int64_t s = 0; s < v.sizes[1]; ++s) {
      int64_t pos = idx.ptr<int64_t>()[b * idx.strides[0] + s * idx.strides[1]];
      if (pos < 0 || pos >= c.sizes[1]) return ctx.fail("cache index %lld out of range [0, %lld)", (long long)pos, (long long)c.sizes[1]);
      auto* dst = static_cast<uint8_t*>(c.data) + (b * c.strides[0] + pos * c.strides[1]) * es;
      for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < D; ++d)
          std::memcpy(dst + (h * D + d) * es,
                      static_cast<const uint8_t*>(v.data) + (b * v.strides[0] + s * v.strides[1] + h * v.strides[2] + d * v.strides[3]) * es, es);
    }
  }
  return true;
}

}  // namespace pte
