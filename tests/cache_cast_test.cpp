// pte-run: an fp16 KV cache cast to fp32 before llama::custom_sdpa converts only the
// positions the attention reads, or the attention reads the fp16 caches itself
// (MethodOptions::bound_cache_casts,
// interpreter/passes/cast_cache_prefix.cpp, ops/prim/cast_cache_prefix.cpp). The fp16
// custom-sdpa fixture gives bit-identical outputs bounded and whole over every step; the
// kernel converts exactly positions [0, start_pos + S) of each batch and leaves the rest.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ops/kernel.h"
#include "ops/prim/cast_cache_prefix.h"
#include "ops/util.h"
#include "pte/program.h"
#include "pte_config.h"
#include "tests/fixture_steps.h"

#if PTE_LLM_PASSES
TEST_CASE("cache cast: bounded casts give the whole casts' outputs bit for bit (fp16 custom-sdpa decoder)") {
  const std::string dir = "fixtures/data/tiny_llama_f16_custom_xnnpack/";
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    pte::Program::MethodOptions mo;
    mo.num_threads = threads;
    mo.bound_cache_casts = false;
    pte::test::FixtureRun whole = pte::test::run_fixture_steps(dir, "model.pte", "", mo);
    mo.bound_cache_casts = true;
    pte::test::FixtureRun bounded = pte::test::run_fixture_steps(dir, "model.pte", "", mo);
    CHECK(whole.method->cache_cast_prefixes() == 0);
    CHECK(bounded.method->cache_cast_prefixes() == 4);  // 2 layers x (key, value)
    CHECK(whole.method->cache_half_attentions() == 0);
    CHECK(bounded.method->cache_half_attentions() == 2);  // each layer's attention reads its fp16 caches
    REQUIRE(whole.outputs.size() == 5);                  // prefill + 4 decode steps
    REQUIRE(whole.outputs.size() == bounded.outputs.size());
    for (size_t s = 0; s < whole.outputs.size(); ++s) {
      REQUIRE(whole.outputs[s].size() == bounded.outputs[s].size());
      for (size_t o = 0; o < whole.outputs[s].size(); ++o) {
        CAPTURE(s);
        CHECK(whole.outputs[s][o].shape == bounded.outputs[s][o].shape);
        CHECK(whole.outputs[s][o].bytes == bounded.outputs[s][o].bytes);
      }
    }
  }
}
#endif

namespace {

pte::Tensor tensor4(pte::DType dt, void* data, int64_t b, int64_t l, int64_t h, int64_t d) {
  pte::Tensor t;
  t.dtype = dt;
  t.dim = 4;
  t.sizes[0] = b, t.sizes[1] = l, t.sizes[2] = h, t.sizes[3] = d;
  for (int k = 0; k < 4; ++k) t.dim_order[k] = static_cast<uint8_t>(k);
  pte::compute_strides(t);
  t.data = data;
  t.capacity = static_cast<size_t>(b * l * h * d) * pte::dtype_size(dt);
  return t;
}

}  // namespace

TEST_CASE("cache cast: the kernel converts positions [0, start_pos + S) of every batch, nothing else") {
  const int64_t B = 2, L = 600, H = 3, D = 64;  // 115 Ki values a batch: several chunks
  std::vector<uint16_t> cache(static_cast<size_t>(B * L * H * D));
  for (size_t i = 0; i < cache.size(); ++i) cache[i] = pte::float_to_half_bits(static_cast<float>(i % 2000) * 0.25f - 100.0f);
  struct Case {
    int64_t start, S, want;
  };
  for (const Case c : {Case{0, 5, 5}, Case{16, 1, 17}, Case{597, 3, 600}, Case{598, 5, 600}, Case{-4, 2, 0}}) {
    for (int threads : {1, 2}) {
      INFO("start ", c.start, " S ", c.S, " threads ", threads);
      std::vector<float> out(cache.size(), 7.0f), q(static_cast<size_t>(c.S * 9 * D));
      pte::Tensor ts = tensor4(pte::DType::Half, cache.data(), B, L, H, D);
      pte::Tensor to = tensor4(pte::DType::Float, out.data(), B, L, H, D);
      pte::Tensor tq = tensor4(pte::DType::Float, q.data(), 1, c.S, 9, D);
      pte::EValue es, eo, eq, ep;
      es.tag = pte::Tag::Tensor, es.t = &ts;
      eo.tag = pte::Tag::Tensor, eo.t = &to;
      eq.tag = pte::Tag::Tensor, eq.t = &tq;
      ep.tag = pte::Tag::Int, ep.i = c.start;
      pte::EValue* args[5] = {&es, &ep, &eq, &eo, &eo};
      pte::KernelContext ctx;
      ctx.claim_threads = threads;
      REQUIRE(pte::cast_cache_prefix(ctx, args));
      size_t bad = 0;
      for (int64_t b = 0; b < B; ++b)
        for (int64_t l = 0; l < L; ++l)
          for (int64_t e = 0; e < H * D; ++e) {
            const size_t i = static_cast<size_t>((b * L + l) * H * D + e);
            const float want = l < c.want ? pte::half_bits_to_float(cache[i]) : 7.0f;
            bad += std::memcmp(&want, &out[i], 4) != 0;
          }
      CHECK(bad == 0);
    }
  }
  // a non-fp16 cache is refused with a message
  std::vector<float> f(static_cast<size_t>(L * H * D)), out(f.size());
  pte::Tensor ts = tensor4(pte::DType::Float, f.data(), 1, L, H, D), to = tensor4(pte::DType::Float, out.data(), 1, L, H, D);
  pte::EValue es, eo, ep;
  es.tag = pte::Tag::Tensor, es.t = &ts;
  eo.tag = pte::Tag::Tensor, eo.t = &to;
  ep.tag = pte::Tag::Int, ep.i = 0;
  pte::EValue* args[5] = {&es, &ep, &es, &eo, &eo};
  pte::KernelContext ctx;
  CHECK_FALSE(pte::cast_cache_prefix(ctx, args));
}
