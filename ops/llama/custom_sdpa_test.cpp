#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "op_harness.h"
#include "ops/isa.h"
#include "ops/llama/sdpa_common.h"

using pte::test::Harness;

namespace {

std::vector<float> randn(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d;
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// Plain two-pass attention in double: q [B,S,Hq,D], caches [B,L,Hkv,D].
std::vector<float> reference(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                             int B, int S, int Hq, int Hkv, int D, int L, int start, bool causal,
                             const std::vector<float>* mask, int mask_w) {
  std::vector<float> out(static_cast<size_t>(B) * S * Hq * D);
  int kv_len = mask ? mask_w : start + S;
  double scale = 1.0 / std::sqrt(static_cast<double>(D));
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < S; ++s)
      for (int h = 0; h < Hq; ++h) {
        int hk = h / (Hq / Hkv);
        int n = causal ? std::min(start + s + 1, kv_len) : kv_len;
        std::vector<double> sc(n);
        double mx = -1e300;
        for (int j = 0; j < n; ++j) {
          double acc = 0;
          for (int d = 0; d < D; ++d)
            acc += double(q[((b * S + s) * Hq + h) * D + d]) * k[((b * L + j) * Hkv + hk) * D + d];
          sc[j] = acc * scale + (mask ? (*mask)[s * mask_w + j] : 0.0);
          mx = std::max(mx, sc[j]);
        }
        double sum = 0;
        for (auto& x : sc) sum += (x = std::exp(x - mx));
        for (int d = 0; d < D; ++d) {
          double acc = 0;
          for (int j = 0; j < n; ++j) acc += sc[j] / sum * v[((b * L + j) * Hkv + hk) * D + d];
          out[((b * S + s) * Hq + h) * D + d] = static_cast<float>(acc);
        }
      }
  return out;
}

float max_err(const std::vector<float>& a, const std::vector<float>& b) {
  float m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

}  // namespace

TEST_CASE("llama::custom_sdpa.out: causal GQA over the filled cache positions") {
  const int B = 1, S = 3, Hq = 4, Hkv = 2, D = 8, L = 10, start = 4;
  auto q = randn(B * S * Hq * D, 1), k = randn(B * L * Hkv * D, 2), v = randn(B * L * Hkv * D, 3);
  // Garbage past start+S must not be read: make it huge.
  for (int j = start + S; j < L; ++j)
    for (int x = 0; x < Hkv * D; ++x) k[j * Hkv * D + x] = v[j * Hkv * D + x] = 1e30f;
  Harness h;
  auto* out = h.out<float>({B, S, Hq, D});
  REQUIRE_MESSAGE(h.call("llama::custom_sdpa.out",
                         {h.tensor<float>({B, S, Hq, D}, q), h.tensor<float>({B, L, Hkv, D}, k), h.tensor<float>({B, L, Hkv, D}, v),
                          h.i(start), h.none(), h.d(0.0), h.b(true), h.none(), out}),
                  h.message);
  auto ref = reference(q, k, v, B, S, Hq, Hkv, D, L, start, true, nullptr, 0);
  CHECK(max_err(Harness::values<float>(out), ref) < 1e-5f);
  CHECK(Harness::shape(out) == std::vector<int64_t>{B, S, Hq, D});
}

TEST_CASE("llama::custom_sdpa.out: explicit scale, non-causal, and a float mask") {
  const int B = 2, S = 2, Hq = 2, Hkv = 2, D = 4, L = 6;
  auto q = randn(B * S * Hq * D, 4), k = randn(B * L * Hkv * D, 5), v = randn(B * L * Hkv * D, 6);
  std::vector<float> mask = {0, 0, -INFINITY, 0, 0, 0, 0, 0, -1.5f, 0};  // [S=2, 5]
  Harness h;
  auto* out = h.out<float>({B, S, Hq, D});
  REQUIRE_MESSAGE(h.call("llama::custom_sdpa.out",
                         {h.tensor<float>({B, S, Hq, D}, q), h.tensor<float>({B, L, Hkv, D}, k), h.tensor<float>({B, L, Hkv, D}, v),
                          h.i(0), h.tensor<float>({S, 5}, mask), h.d(0.0), h.b(false), h.none(), out}),
                  h.message);
  auto ref = reference(q, k, v, B, S, Hq, Hkv, D, L, 0, false, &mask, 5);
  CHECK(max_err(Harness::values<float>(out), ref) < 1e-5f);

  // scale = 1/sqrt(D) given explicitly gives the same numbers as the default
  Harness h2;
  auto* out2 = h2.out<float>({B, S, Hq, D});
  REQUIRE(h2.call("llama::custom_sdpa.out",
                  {h2.tensor<float>({B, S, Hq, D}, q), h2.tensor<float>({B, L, Hkv, D}, k), h2.tensor<float>({B, L, Hkv, D}, v),
                   h2.i(0), h2.tensor<float>({S, 5}, mask), h2.d(0.0), h2.b(false), h2.d(0.5), out2}));
  CHECK(max_err(Harness::values<float>(out2), ref) < 1e-5f);
}

TEST_CASE("llama::custom_sdpa.out: bfloat16 within bf16 rounding") {
  const int B = 1, S = 2, Hq = 2, Hkv = 1, D = 8, L = 4;
  auto q = randn(B * S * Hq * D, 7), k = randn(B * L * Hkv * D, 8), v = randn(B * L * Hkv * D, 9);
  auto to_bf = [](const std::vector<float>& x) {
    std::vector<pte::BFloat16> r(x.size());
    for (size_t i = 0; i < x.size(); ++i) r[i] = pte::BFloat16(x[i]);
    return r;
  };
  auto back = [](const std::vector<pte::BFloat16>& x) {
    std::vector<float> r(x.size());
    for (size_t i = 0; i < x.size(); ++i) r[i] = x[i];
    return r;
  };
  auto qb = to_bf(q), kb = to_bf(k), vb = to_bf(v);
  Harness h;
  auto* out = h.out<pte::BFloat16>({B, S, Hq, D});
  REQUIRE_MESSAGE(h.call("llama::custom_sdpa.out",
                         {h.tensor<pte::BFloat16>({B, S, Hq, D}, qb), h.tensor<pte::BFloat16>({B, L, Hkv, D}, kb),
                          h.tensor<pte::BFloat16>({B, L, Hkv, D}, vb), h.i(1), h.none(), h.d(0.0), h.b(true), h.none(), out}),
                  h.message);
  auto ref = reference(back(qb), back(kb), back(vb), B, S, Hq, Hkv, D, L, 1, true, nullptr, 0);
  CHECK(max_err(back(Harness::values<pte::BFloat16>(out)), ref) < 2e-2f);
}

TEST_CASE("llama::custom_sdpa.out: refuses overflow of the cache and bad head counts") {
  Harness h;
  auto q = randn(1 * 2 * 3 * 4, 1), kv = randn(1 * 4 * 2 * 4, 2);
  CHECK_FALSE(h.call("llama::custom_sdpa.out",
                     {h.tensor<float>({1, 2, 3, 4}, q), h.tensor<float>({1, 4, 2, 4}, kv), h.tensor<float>({1, 4, 2, 4}, kv),
                      h.i(0), h.none(), h.d(0.0), h.b(true), h.none(), h.out<float>({1, 2, 3, 4})}));
  CHECK(h.message.find("multiple") != std::string::npos);
  auto q2 = randn(1 * 2 * 2 * 4, 1);
  CHECK_FALSE(h.call("llama::custom_sdpa.out",
                     {h.tensor<float>({1, 2, 2, 4}, q2), h.tensor<float>({1, 4, 2, 4}, kv), h.tensor<float>({1, 4, 2, 4}, kv),
                      h.i(3), h.none(), h.d(0.0), h.b(true), h.none(), h.out<float>({1, 2, 2, 4})}));
  CHECK(h.message.find("exceeds the cache") != std::string::npos);
}

TEST_CASE("llama::update_cache.out writes rows at start_pos and nothing else") {
  Harness h;
  std::vector<float> cache(1 * 5 * 2 * 2, -1.f);
  auto* c = h.tensor<float>({1, 5, 2, 2}, cache);
  REQUIRE(h.call("llama::update_cache.out",
                 {h.tensor<float>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), c, h.i(2), h.out<float>({1})}));
  auto got = Harness::values<float>(c);
  std::vector<float> want = {-1, -1, -1, -1, -1, -1, -1, -1, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1, -1};
  CHECK(got == want);
  CHECK_FALSE(h.call("llama::update_cache.out",
                     {h.tensor<float>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), c, h.i(4), h.out<float>({1})}));

  Harness h2;
  auto* c2 = h2.tensor<float>({1, 4, 1, 2}, std::vector<float>(8, 0.f));
  REQUIRE(h2.call("llama::update_cache_with_indices.out",
                  {h2.tensor<float>({1, 2, 1, 2}, {1, 2, 3, 4}), c2, h2.i(0), h2.tensor<int64_t>({1, 2}, {3, 0}), h2.out<float>({1})}));
  CHECK(Harness::values<float>(c2) == std::vector<float>{3, 4, 0, 0, 0, 0, 1, 2});
}

TEST_CASE("llama::custom_sdpa.out: the AVX-512 forms' vector expf equals std::exp (every 97th float of [-104, 89])") {
  const int r = pte::sdpa_vector_expf_check(97);
  if (r < 0) MESSAGE("no AVX-512: not checked");
  CHECK(r != 0);
}

TEST_CASE("llama::custom_sdpa.out: float32 AVX-512 forms (rows, tiles of positions) equal the scalar official-order form bit for bit") {
  struct Cfg { int S, Hq, Hkv, D, L, start; bool causal; bool mask; };
  const Cfg cfgs[] = {{1, 9, 3, 64, 700, 650, true, false},   // decode past one 512-key block
                      {21, 9, 3, 64, 256, 0, true, false},    // prefill: rows with < 16 and >= 16 keys
                      {5, 4, 2, 20, 40, 7, true, false},      // odd head dim (masked lanes)
                      {3, 2, 1, 72, 600, 0, false, true},     // mask over two key blocks
                      {2, 2, 2, 16, 16, 3, true, false},
                      {4, 8, 2, 40, 90, 30, true, false},    // 4 query heads per kv head, keys past 64
                      {3, 10, 2, 32, 90, 40, true, false},    // 5 query heads a key head: groups of 4 + 1
                      {2, 8, 1, 24, 50, 0, false, true},      // 8 a key head (groups of 4), mask
                      // prefill in tiles of positions (AVX-512): tiles cut by the query blocks' ends
                      {70, 9, 3, 64, 600, 0, true, false},    // last query block of 6 rows
                      {66, 6, 2, 64, 600, 500, true, false},  // keys cross the 512-key block; last block of 2 rows
                      {65, 4, 4, 128, 100, 0, true, false},   // one query head a key head, D 128; last block of 1 row
                      {38, 8, 2, 80, 700, 0, false, true},    // mask over two key blocks, masked head-dim lanes
                      {200, 3, 1, 32, 260, 40, true, false},  // query blocks of 64 rows, 3 heads a key head
                      {9, 4, 1, 136, 30, 3, true, false},     // D past the tiles' 128: the row form
                      // decode (AVX-512: the query heads of a key head together, keys 16 at a time)
                      {1, 4, 4, 128, 300, 200, true, false},  // one query head a key head, D 128
                      {1, 8, 2, 20, 100, 90, true, false},    // 4 heads a key head, masked head-dim lanes
                      {1, 6, 3, 64, 80, 0, false, true},      // a mask instead of causality
                      {1, 4, 2, 64, 1100, 1098, true, false}}; // three key blocks, keys left over in each
  for (const Cfg& c : cfgs) {
    INFO("S=" << c.S << " D=" << c.D << " L=" << c.L);
    auto q = randn(size_t(c.S) * c.Hq * c.D, 11), k = randn(size_t(c.L) * c.Hkv * c.D, 12), v = randn(size_t(c.L) * c.Hkv * c.D, 13);
    const int mw = c.mask ? c.L : 0;
    std::vector<float> mask = c.mask ? randn(size_t(c.S) * mw, 14) : std::vector<float>{};
    std::vector<float> res[3];  // AVX-512 in tiles, scalar, AVX-512 row by row
    for (int form = 0; form < 3; ++form) {
      pte::sdpa_force_scalar(form == 1);
      pte::sdpa_tiles(form != 2);
      Harness h;
      auto* out = h.out<float>({1, c.S, c.Hq, c.D});
      auto* m = c.mask ? h.tensor<float>({c.S, mw}, mask) : h.none();
      REQUIRE_MESSAGE(h.call("llama::custom_sdpa.out",
                             {h.tensor<float>({1, c.S, c.Hq, c.D}, q), h.tensor<float>({1, c.L, c.Hkv, c.D}, k),
                              h.tensor<float>({1, c.L, c.Hkv, c.D}, v), h.i(c.start), m, h.d(0.0), h.b(c.causal), h.none(), out}),
                      h.message);
      res[form] = Harness::values<float>(out);
      auto ref = reference(q, k, v, 1, c.S, c.Hq, c.Hkv, c.D, c.L, c.start, c.causal, c.mask ? &mask : nullptr, mw);
      CHECK(max_err(res[form], ref) < 1e-5f);
    }
    pte::sdpa_force_scalar(false);
    pte::sdpa_tiles(true);
    for (int form = 1; form < 3; ++form) {
      INFO("form " << form);
      REQUIRE(res[0].size() == res[form].size());
      size_t differ = 0;
      for (size_t i = 0; i < res[0].size(); ++i) differ += std::memcmp(&res[0][i], &res[form][i], 4) != 0;
      CHECK(differ == 0);
    }
  }
}

TEST_CASE("llama::custom_sdpa.out: SmolLM2-like heads (D=64, GQA 3:1) over more keys than one block, with a mask") {
  // more than 64 keys (the vector path's key block), D a multiple of 16 and an odd D
  for (int D : {64, 20}) {
    const int B = 1, S = 5, Hq = 6, Hkv = 2, L = 160, start = 140;
    auto q = randn(B * S * Hq * D, 7), k = randn(B * L * Hkv * D, 8), v = randn(B * L * Hkv * D, 9);
    for (auto& x : q) x *= 3.0f;  // peaky softmax: the running max moves between blocks
    Harness h;
    auto* out = h.out<float>({B, S, Hq, D});
    REQUIRE_MESSAGE(h.call("llama::custom_sdpa.out",
                           {h.tensor<float>({B, S, Hq, D}, q), h.tensor<float>({B, L, Hkv, D}, k),
                            h.tensor<float>({B, L, Hkv, D}, v), h.i(start), h.none(), h.d(0.0), h.b(true), h.none(), out}),
                    h.message);
    auto ref = reference(q, k, v, B, S, Hq, Hkv, D, L, start, true, nullptr, 0);
    CHECK(max_err(Harness::values<float>(out), ref) < 2e-5f);
    // a mask of width 150 that blanks one whole 64-key block for row 0
    std::vector<float> mask(S * 150, 0.0f);
    for (int j = 64; j < 128; ++j) mask[j] = -INFINITY;
    for (int j = 0; j < 150; j += 7) mask[2 * 150 + j] = -2.0f;
    Harness h2;
    auto* out2 = h2.out<float>({B, S, Hq, D});
    REQUIRE(h2.call("llama::custom_sdpa.out",
                    {h2.tensor<float>({B, S, Hq, D}, q), h2.tensor<float>({B, L, Hkv, D}, k),
                     h2.tensor<float>({B, L, Hkv, D}, v), h2.i(0), h2.tensor<float>({S, 150}, mask), h2.d(0.0), h2.b(false),
                     h2.none(), out2}));
    auto ref2 = reference(q, k, v, B, S, Hq, Hkv, D, L, 0, false, &mask, 150);
    CHECK(max_err(Harness::values<float>(out2), ref2) < 2e-5f);
  }
}

TEST_CASE("llama::custom_sdpa.out: a decode step split over threads (scores, softmax, value sums) equals the one-row form bit for bit" *
          doctest::skip(!pte::isa::cpu().avx512f)) {  // (the split is an AVX-512 form)
  struct Cfg { int B, Hq, Hkv, D, L, start; bool causal; int mask_blank; };
  const Cfg cfgs[] = {{1, 9, 3, 64, 2304, 1999, true, 0},    // SmolLM2's heads, four key blocks, the last partial
                      {2, 16, 8, 128, 700, 650, true, 0},    // Qwen3's heads, two batches
                      {1, 4, 2, 64, 1100, 1098, true, 0},    // keys left over in each block
                      {1, 3, 3, 32, 300, 250, true, 0},      // one query head a key head
                      {1, 6, 3, 64, 600, 0, false, 512},     // a mask whose first block is all -inf
                      {1, 8, 2, 32, 1030, 0, false, 3},      // a mask, blocks of 512 + 512 + 6 keys
                      {1, 16, 16, 128, 200, 127, true, 0},   // chunks of 16 keys; value rows in four units
                      {1, 16, 4, 48, 700, 600, true, 0}};    // four query heads a key head, 3 vectors a head
  const uint64_t runs0 = pte::sdpa_decode_split_min_keys(-2);
  for (const Cfg& c : cfgs) {
    INFO("B=" << c.B << " Hq=" << c.Hq << " D=" << c.D << " L=" << c.L << " start=" << c.start);
    auto q = randn(size_t(c.B) * c.Hq * c.D, 21), k = randn(size_t(c.B) * c.L * c.Hkv * c.D, 22),
         v = randn(size_t(c.B) * c.L * c.Hkv * c.D, 23);
    for (auto& x : q) x *= 3.0f;  // peaky: the running max moves between blocks
    const bool masked = !c.causal;
    std::vector<float> mask;
    if (masked) {
      mask = randn(size_t(c.L), 24);
      for (int j = 0; j < c.mask_blank; ++j) mask[j] = -INFINITY;
    }
    std::vector<float> res[3];  // split (2 threads), one-row form (2 threads), scalar
    for (int form = 0; form < 3; ++form) {
      pte::sdpa_force_scalar(form == 2);
      pte::sdpa_decode_split_min_keys(form == 0 ? 0 : -1);
      Harness h;
      h.ctx.claim_threads = 2;
      auto* out = h.out<float>({c.B, 1, c.Hq, c.D});
      auto* m = masked ? h.tensor<float>({1, c.L}, mask) : h.none();
      const uint64_t before = pte::sdpa_decode_split_min_keys(-2);
      REQUIRE_MESSAGE(h.call("llama::custom_sdpa.out",
                             {h.tensor<float>({c.B, 1, c.Hq, c.D}, q), h.tensor<float>({c.B, c.L, c.Hkv, c.D}, k),
                              h.tensor<float>({c.B, c.L, c.Hkv, c.D}, v), h.i(c.start), m, h.d(0.0), h.b(c.causal), h.none(), out}),
                      h.message);
      CHECK(pte::sdpa_decode_split_min_keys(-2) - before == (form == 0 ? 1u : 0u));  // the split ran only where asked
      res[form] = Harness::values<float>(out);
      auto ref = reference(q, k, v, c.B, 1, c.Hq, c.Hkv, c.D, c.L, c.start, c.causal, masked ? &mask : nullptr, c.L);
      CHECK(max_err(res[form], ref) < 1e-5f);
    }
    pte::sdpa_force_scalar(false);
    pte::sdpa_decode_split_min_keys(128);
    for (int form = 1; form < 3; ++form) {
      INFO("form " << form);
      size_t differ = 0;
      for (size_t i = 0; i < res[0].size(); ++i) differ += std::memcmp(&res[0][i], &res[form][i], 4) != 0;
      CHECK(differ == 0);
    }
  }
  CHECK(pte::sdpa_decode_split_min_keys(-2) - runs0 == std::size(cfgs));
}

TEST_CASE("llama::custom_sdpa over fp16 caches (the cast_cache_prefix pass's kernel) equals custom_sdpa over the caches widened, bit for bit") {
  // Decode steps on AVX-512 read the fp16 rows (the split form); the rest widen the positions
  // read into the fp32 copies, which start as NaN here: nothing past them may be read.
  struct Cfg { int B, S, Hq, Hkv, D, L, start, threads; bool causal; bool split; };
  const Cfg cfgs[] = {{1, 1, 9, 3, 64, 2304, 1999, 2, true, true},    // SmolLM2's heads, four key blocks
                      {2, 1, 16, 8, 128, 700, 650, 2, true, true},    // Qwen3's heads, two batches
                      {1, 1, 4, 2, 64, 1100, 1098, 1, true, true},    // one thread; keys left over in each block
                      {1, 1, 16, 4, 48, 700, 600, 2, true, true},     // four query heads a key head, 3 vectors a head
                      {1, 1, 9, 3, 64, 300, 40, 1, true, true},       // one thread splits from 32 keys
                      {1, 1, 9, 3, 64, 300, 20, 2, true, false},      // below 32 keys: the one-row form
                      {1, 1, 9, 3, 64, 300, 50, 2, true, true},       // two threads split fp16 caches from 32 keys
                      {1, 1, 4, 2, 20, 300, 200, 2, true, false},     // head dim not a multiple of 16
                      {1, 1, 6, 3, 64, 600, 599, 2, false, true},     // not causal: every position up to start + 1
                      {1, 21, 9, 3, 64, 256, 0, 2, true, false},      // prefill
                      {1, 5, 6, 2, 64, 700, 600, 1, true, false}};    // prefill across a key block
  const bool avx512 = pte::isa::cpu().avx512f;
  for (const Cfg& c : cfgs) {
    INFO("B=" << c.B << " S=" << c.S << " Hq=" << c.Hq << " D=" << c.D << " start=" << c.start << " threads=" << c.threads);
    const size_t nq = size_t(c.B) * c.S * c.Hq * c.D, nc = size_t(c.B) * c.L * c.Hkv * c.D;
    auto q = randn(nq, 31), kf = randn(nc, 32), vf = randn(nc, 33);
    for (auto& x : q) x *= 3.0f;  // peaky: the running max moves between blocks
    std::vector<pte::Half> kh(nc), vh(nc);
    for (size_t i = 0; i < nc; ++i) {
      kh[i] = pte::Half(kf[i]), vh[i] = pte::Half(vf[i]);
      kf[i] = pte::half_bits_to_float(kh[i].bits), vf[i] = pte::half_bits_to_float(vh[i].bits);  // the widened caches
    }
    const std::vector<int64_t> qs{c.B, c.S, c.Hq, c.D}, cs{c.B, c.L, c.Hkv, c.D};
    Harness a;
    a.ctx.claim_threads = c.threads;
    auto* out_a = a.out<float>(qs);
    REQUIRE_MESSAGE(a.call("llama::custom_sdpa.out", {a.tensor<float>(qs, q), a.tensor<float>(cs, kf), a.tensor<float>(cs, vf), a.i(c.start),
                                                      a.none(), a.d(0.0), a.b(c.causal), a.none(), out_a}),
                    a.message);
    Harness h;
    h.ctx.claim_threads = c.threads;
    auto* out_h = h.out<float>(qs);
    auto* k32 = h.tensor<float>(cs, std::vector<float>(nc, NAN));
    auto* v32 = h.tensor<float>(cs, std::vector<float>(nc, NAN));
    const uint64_t before = pte::sdpa_decode_split_min_keys(-2);
    REQUIRE_MESSAGE(h.call_fn(pte::custom_sdpa_half_kv_out, {h.tensor<float>(qs, q), h.tensor<pte::Half>(cs, kh), h.tensor<pte::Half>(cs, vh),
                                                             h.i(c.start), h.none(), h.d(0.0), h.b(c.causal), h.none(), k32, v32, out_h, out_h}),
                    h.message);
    CHECK(pte::sdpa_decode_split_min_keys(-2) - before == (c.split && avx512 ? 1u : 0u));
    const auto ra = Harness::values<float>(out_a), rh = Harness::values<float>(out_h);
    REQUIRE(ra.size() == rh.size());
    size_t differ = 0;
    for (size_t i = 0; i < ra.size(); ++i) differ += std::memcmp(&ra[i], &rh[i], 4) != 0;
    CHECK(differ == 0);
    CHECK(max_err(ra, reference(q, kf, vf, c.B, c.S, c.Hq, c.Hkv, c.D, c.L, c.start, c.causal, nullptr, 0)) < 1e-5f);
  }
  // fp32 caches are refused with a message
  Harness h;
  auto* out = h.out<float>({1, 1, 2, 16});
  auto* f = h.tensor<float>({1, 8, 2, 16}, std::vector<float>(256, 0.f));
  CHECK_FALSE(h.call_fn(pte::custom_sdpa_half_kv_out, {h.tensor<float>({1, 1, 2, 16}, std::vector<float>(32, 0.f)), f, f, h.i(0), h.none(),
                                                       h.d(0.0), h.b(true), h.none(), f, f, out, out}));
  CHECK(h.message.find("float16") != std::string::npos);
}
