// llama::custom_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos,
//     Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None,
//     *, Tensor(a!) out) -> Tensor(a!)
// key/value are the whole caches [B, max_len, Hkv, D]; only positions filled so far
// (start_pos + S, or the mask's width) are read. Grouped-query attention when Hq > Hkv.
#include "ops/llama/sdpa_common.h"

namespace pte {

namespace {

// custom_sdpa's eight schema arguments (query, key, value, start_pos, attn_mask, dropout_p,
// is_causal, scale) and its out, into `a`, checked (sdpa_prepare).
bool custom_sdpa_args(KernelContext& ctx, EValue** args, EValue* out, bool half_kv, SdpaArgs* a) {
  for (EValue* e : {args[0], args[1], args[2], out})
    if (!expect_tag(ctx, e, Tag::Tensor, e == out ? "out" : "query/key/value")) return false;
  if (!expect_tag(ctx, args[3], Tag::Int, "start_pos") || !expect_tag(ctx, args[6], Tag::Bool, "is_causal")) return false;
  if (args[5]->tag == Tag::Double && args[5]->d != 0.0) return ctx.fail("dropout_p must be 0 at inference");
  *a = SdpaArgs{};
  a->q = args[0]->t;
  a->k = args[1]->t;
  a->v = args[2]->t;
  a->mask = args[4]->is_tensor() ? args[4]->t : nullptr;
  a->out = out->t;
  a->start_pos = args[3]->i;
  a->causal = args[6]->b;
  const bool has_scale = args[7]->tag == Tag::Double;
  return sdpa_prepare(ctx, *a, has_scale, has_scale ? args[7]->d : 0.0, half_kv);
}

}  // namespace

bool custom_sdpa_out(KernelContext& ctx, EValue** args) {
  SdpaArgs a;
  return custom_sdpa_args(ctx, args, args[8], false, &a) && sdpa_run(ctx, a);
}

// custom_sdpa over float16 caches that the program casts to float32 first (set by the load-time
// pass interpreter/passes/cast_cache_prefix.cpp, never named by a file): args (query, key
// cache fp16, value cache fp16, start_pos, attn_mask (None), dropout_p, is_causal, scale,
// key fp32, value fp32, out, return). The fp32 tensors are the program's own casts' outputs,
// whose casts are no-ops now; sdpa_run_half_kv writes the positions it reads into them when
// its form needs fp32 rows.
bool custom_sdpa_half_kv_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[8], Tag::Tensor, "key copy") || !expect_tag(ctx, args[9], Tag::Tensor, "value copy")) return false;
  if (args[4]->is_tensor()) return ctx.fail("attn_mask must be None here");
  if (args[8]->t->dtype != DType::Float || args[9]->t->dtype != DType::Float)
    return ctx.fail("the key and value copies must be float32 (got %s, %s)", dtype_name(args[8]->t->dtype), dtype_name(args[9]->t->dtype));
  SdpaArgs a;
  return custom_sdpa_args(ctx, args, args[10], true, &a) && sdpa_run_half_kv(ctx, a, *args[8]->t, *args[9]->t);
}

// llama::sdpa_with_kv_cache.out(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache,
//     Tensor(b!) value_cache, SymInt start_pos, SymInt seq_len, Tensor? attn_mask=None,
//     float drpout_p=0.0, bool is_causal=False, float? scale=None, *, Tensor(c!) out)
bool sdpa_with_kv_cache_out(KernelContext& ctx, EValue** args) {
  for (int i : {0, 1, 2, 3, 4, 11})
    if (!expect_tag(ctx, args[i], Tag::Tensor, "tensor argument")) return false;
  if (!expect_tag(ctx, args[5], Tag::Int, "start_pos") || !expect_tag(ctx, args[9], Tag::Bool, "is_causal")) return false;
  int64_t start_pos = args[5]->i;
  if (!cache_write(ctx, *args[1]->t, *args[3]->t, start_pos)) return false;
  if (!cache_write(ctx, *args[2]->t, *args[4]->t, start_pos)) return false;
  SdpaArgs a{};
  a.q = args[0]->t;
  a.k = args[3]->t;
  a.v = args[4]->t;
  a.mask = args[7]->is_tensor() ? args[7]->t : nullptr;
  a.out = args[11]->t;
  a.start_pos = start_pos;
  a.causal = args[9]->b;
  bool has_scale = args[10]->tag == Tag::Double;
  if (!sdpa_prepare(ctx, a, has_scale, has_scale ? args[10]->d : 0.0)) return false;
  return sdpa_run(ctx, a);
}

}  // namespace pte
