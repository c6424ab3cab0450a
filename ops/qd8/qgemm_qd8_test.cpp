// qd8 GEMM kernels: the scalar reference against dequantized arithmetic, every SIMD kernel
// this CPU has bit for bit against the reference, on odd shapes, every block size the
// exporters use, extreme activations / weights and zero points, with and without threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <pthreadpool.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ops/linalg/claim_pool.h"
#include "ops/isa.h"
#include "ops/qd8/qgemm_qd8.h"
#include "ops/linalg/gemm.h"

namespace {

using namespace pte::xnn;

struct Case {
  int64_t M, N, K, block;
  QWeights kind;
  bool extreme;  // x and w at their limits, zero points -128 / 127
  std::vector<int8_t> x;
  std::vector<float> xs, ws, bias;
  std::vector<int32_t> xz, wsum;
  std::vector<int16_t> wsum16;
  std::vector<uint16_t> ws16;
  std::vector<uint8_t> w, wpack;
  std::vector<int8_t> wv;  // the weight values [N, K]
  std::vector<float> ksum;  // blockwise: XNNPACK's zero-point term per column
  QGemm q;

  Case(int64_t m, int64_t n, int64_t k, int64_t b, QWeights w, bool e = false) : M(m), N(n), K(k), block(b), kind(w), extreme(e) {}
  // compact: bf16 scales and int16 sums (what load prepares for blockwise 4-bit filters)
  // tiny: every third column's scales ~1e-38 (subnormal: scale / 16 is not exact)
  void make(uint32_t seed, bool with_bias = true, bool compact = false, bool tiny = false) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> q8(-128, 127), q4(0, 15), coin(0, 1);
    const int64_t nb = K / block, rb = kind == QWeights::U4 ? (K + 1) / 2 : K;
    x.resize(M * K), xs.resize(M), xz.resize(M), w.assign(N * rb, 0), wv.resize(N * K);
    for (int64_t m = 0; m < M; ++m) {
      xs[m] = 0.001f * static_cast<float>(m % 7 + 1) + 0.0137f;
      xz[m] = extreme ? (m % 2 ? 127 : -128) : q8(rng);
    }
    for (auto& v : x) v = static_cast<int8_t>(extreme ? (coin(rng) ? 127 : -128) : q8(rng));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) {
        if (kind == QWeights::U4) {
          const int nib = extreme ? (coin(rng) ? 15 : 0) : q4(rng);
          w[n * rb + k / 2] |= static_cast<uint8_t>(nib << ((k & 1) * 4));
          wv[n * K + k] = static_cast<int8_t>(nib - 8);
        } else {
          const int v = extreme ? (coin(rng) ? 127 : -128) : q8(rng);
          w[n * rb + k] = static_cast<uint8_t>(static_cast<int8_t>(v));
          wv[n * K + k] = static_cast<int8_t>(v);
        }
      }
    // as load prepares them: 4-bit filters repacked, metadata rows padded to 16 columns
    const bool pack = kind == QWeights::U4 && K % 8 == 0 && block % 8 == 0;
    const int64_t S = pack ? (N + 15) / 16 * 16 : N;
    ws.assign(nb * S, 0.0f), wsum.assign(nb * S, 0);
    std::uniform_real_distribution<float> u(0.0005f, 0.02f);
    for (int64_t i = 0; i < nb * S; ++i) {
      if (i % S >= N) continue;  // padding
      float& v = ws[i];
      v = u(rng);
      if (tiny && (i % S) % 3 == 0) v *= 1e-36f;
      if (compact) {  // a bf16 value
        uint32_t b;
        std::memcpy(&b, &v, 4);
        b &= 0xFFFF0000u;
        std::memcpy(&v, &b, 4);
      }
    }
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) wsum[(k / block) * S + n] += wv[n * K + k];
    if (pack) {  // the packer's sums must equal the plain ones, for both packers and both widths
      std::vector<float> snk(N * nb);  // scales [N, blocks], as the file has them
      for (int64_t n = 0; n < N; ++n)
        for (int64_t b = 0; b < nb; ++b) snk[n * nb + b] = ws[b * S + n];
      wpack.assign(qd8_packed_u4_bytes(N, K, block, compact), 0);
      std::vector<uint8_t> wp2(wpack.size(), 1);
      std::vector<int32_t> s32(nb * S, -1), s32b(nb * S, -2);
      std::vector<int16_t> s16(nb * S, -1);
      qd8_pack_u4(w.data(), snk.data(), compact, N, K, block, S, wpack.data(), s32.data(), nullptr);
      qd8_pack_u4(w.data(), snk.data(), compact, N, K, block, S, wp2.data(), nullptr, s16.data());
      CHECK(s32 == wsum);
      CHECK(std::vector<int32_t>(s16.begin(), s16.end()) == wsum);
      CHECK(wp2 == wpack);
      std::fill(wp2.begin(), wp2.end(), 3);  // the portable packer (qd8_pack_u4 takes AVX-512 where present)
      qd8_pack_u4_scalar(w.data(), snk.data(), compact, N, K, block, S, wp2.data(), s32b.data(), nullptr);
      CHECK(s32b == wsum);
      CHECK(wp2 == wpack);
    }
    bias.resize(N);
    for (int64_t n = 0; n < N; ++n) bias[n] = 0.05f * static_cast<float>(n % 11) - 0.2f;
    q.M = M, q.N = N, q.K = K, q.x = x.data(), q.x_scale = xs.data(), q.x_zp = xz.data();
    q.wkind = kind, q.w = w.data(), q.w_row_bytes = rb, q.block = block, q.meta_stride = S;
    q.wp = pack ? wpack.data() : nullptr, q.wp_bf16 = compact;
    if (compact) {
      wsum16.assign(wsum.begin(), wsum.end());
      ws16.resize(ws.size());
      for (size_t i = 0; i < ws.size(); ++i) {
        uint32_t b;
        std::memcpy(&b, &ws[i], 4);
        ws16[i] = static_cast<uint16_t>(b >> 16);
      }
      q.wsum16 = wsum16.data(), q.w_scale_bf16 = ws16.data();
    } else {
      q.wsum = wsum.data(), q.w_scale = ws.data();
    }
    q.bias = with_bias ? bias.data() : nullptr;
    if (nb > 1) {  // blockwise: the zero-point term (for 4-bit as load computes it)
      ksum.assign(N, 0.0f);
      for (int64_t n = 0; n < N; ++n) {
        std::vector<float> sc(nb);
        for (int64_t b = 0; b < nb; ++b) sc[b] = ws[b * S + n];
        if (kind == QWeights::U4) {
          ksum[n] = qd8_ksum_u4(w.data() + n * rb, K, block, sc.data());
        } else {
          float acc = 0.0f;
          for (int64_t k0 = 0; k0 < K;) {
            const int64_t end = std::min({k0 + 16, (k0 / block + 1) * block, K});
            int32_t sum = 0;
            for (int64_t k = k0; k < end; ++k) sum += wv[n * K + k];
            acc = acc - static_cast<float>(sum) * sc[k0 / block];
            k0 = end;
          }
          ksum[n] = acc;
        }
      }
      q.ksum = ksum.data();
      if (pack && kind == QWeights::U4) {  // load's vector form (16 columns at once, from the stream)
        std::vector<float> kp(N, -7.0f);
        if (qd8_ksum_u4_packed(wpack.data(), compact, N, K, block, kp.data()))
          CHECK(std::memcmp(kp.data(), ksum.data(), N * 4) == 0);
        else
          CHECK((block % 16 != 0 || !cpu_has_avx512_vnni()));
      }
    }
  }
  // the whole product through qgemm_qd8, with the scratch it asks for (or none)
  std::vector<float> run(pthreadpool_t pool, bool with_scratch = true, QIsa isa = QIsa::Auto, bool helper = false) {
    std::vector<uint8_t> scratch(with_scratch ? qgemm_qd8_scratch_bytes(q) : 0);
    std::vector<float> y(M * N, -1.0f);
    q.y = y.data();
    qgemm_qd8(pool, q, with_scratch ? scratch.data() : nullptr, isa, helper);
    return y;
  }
  std::vector<float> scalar() {
    std::vector<float> y(M * N, -1.0f);
    q.y = y.data();
    qgemm_qd8_scalar(q, 0, M, 0, N);
    return y;
  }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

std::vector<QIsa> simd_isas() {
  std::vector<QIsa> v;
  if (pte::linalg::cpu_has_avx2_fma()) v.push_back(QIsa::Avx2);
  if (cpu_has_avx512_vnni()) v.push_back(QIsa::Avx512);
  if (cpu_has_amx_int8()) v.push_back(QIsa::Amx);
#if defined(__arm__)
  if (pte::isa::cpu().neon) v.push_back(QIsa::Neon);
#endif
#if defined(__aarch64__)
  if (pte::isa::cpu().neon) v.push_back(QIsa::Neon);
  if (pte::isa::cpu().dotprod) v.push_back(QIsa::NeonDot);
  if (pte::isa::cpu().dotprod && pte::isa::cpu().i8mm) v.push_back(QIsa::NeonI8mm);
#endif
  return v;
}

const char* isa_name(QIsa i) {
  return i == QIsa::Amx ? "amx-int8" : i == QIsa::Avx512 ? "avx512vnni" : i == QIsa::Avx2 ? "avx2"
         : i == QIsa::Neon ? "neon" : i == QIsa::NeonDot ? "neon-dotprod" : i == QIsa::NeonI8mm ? "neon-i8mm" : "scalar";
}

}  // namespace

TEST_CASE("qgemm_qd8: the scalar reference equals dequantized arithmetic") {
  for (QWeights kind : {QWeights::U4, QWeights::I8})
    for (int64_t block : {int64_t(8), int64_t(16), int64_t(40), int64_t(80)}) {
      Case c(3, 5, 80, block, kind);
      c.make(11, true, kind == QWeights::U4 && block == 16);
      const auto y = c.scalar();
      const int64_t nb = c.K / block;
      for (int64_t m = 0; m < c.M; ++m)
        for (int64_t n = 0; n < c.N; ++n) {
          double acc = c.bias[n];
          for (int64_t k = 0; k < c.K; ++k)
            acc += (static_cast<double>(c.x[m * c.K + k]) - c.xz[m]) * c.xs[m] * c.wv[n * c.K + k] * c.ws[(k / block) * c.q.meta_stride + n];
          CHECK(y[m * c.N + n] == doctest::Approx(acc).epsilon(1e-5).scale(1e-2));
        }
      (void)nb;
    }
  // odd K, 4-bit rows padded to a whole byte
  Case c(2, 3, 7, 7, QWeights::U4);
  c.make(5);
  const auto y = c.scalar();
  for (int64_t m = 0; m < 2; ++m)
    for (int64_t n = 0; n < 3; ++n) {
      double acc = c.bias[n];
      for (int64_t k = 0; k < 7; ++k) acc += (static_cast<double>(c.x[m * 7 + k]) - c.xz[m]) * c.xs[m] * c.wv[n * 7 + k] * c.ws[n];
      CHECK(y[m * 3 + n] == doctest::Approx(acc).epsilon(1e-5).scale(1e-2));
    }
}

TEST_CASE("qgemm_qd8: SIMD kernels are bit-identical to the scalar reference") {
  const auto isas = simd_isas();
  if (isas.empty()) MESSAGE("no SIMD qd8 kernel for this CPU: only the scalar reference is checked");
  for (QIsa isa : isas) MESSAGE("checking the " << std::string(isa_name(isa)) << " kernel (" << std::string(pte::isa::describe()) << ")");
  struct Shape { int64_t M, N, K, block; QWeights kind; };
  const Shape shapes[] = {
      {1, 16, 32, 32, QWeights::U4},    {1, 576, 576, 32, QWeights::U4},  {5, 37, 96, 32, QWeights::U4},
      {4, 48, 128, 64, QWeights::U4},   {9, 23, 256, 128, QWeights::U4},  {3, 17, 512, 256, QWeights::U4},
      {2, 33, 192, 192, QWeights::U4},  {7, 64, 576, 576, QWeights::U4},  {1, 1, 64, 32, QWeights::U4},
      {1, 40, 576, 576, QWeights::I8},  {6, 31, 48, 48, QWeights::I8},    {4, 16, 64, 16, QWeights::I8},
      {3, 9, 1536, 1536, QWeights::I8}, {13, 71, 160, 32, QWeights::U4},
      // decode tiles (1 to 3 rows: 4, 2 and 1 groups of 16 columns, the last one partial)
      {1, 101, 64, 32, QWeights::U4},   {2, 230, 96, 96, QWeights::U4},   {3, 118, 1536, 32, QWeights::U4},
      // AMX tiles (16 rows; 4 blocks a round and fewer at the end; other rows on AVX-512)
      {16, 16, 32, 32, QWeights::U4},   {35, 53, 576, 32, QWeights::U4},  {48, 40, 448, 64, QWeights::U4},
      {17, 70, 160, 32, QWeights::U4},
  };
  for (const Shape& s : shapes)
    for (bool extreme : {false, true})
      for (bool with_bias : {true, false}) {
        // blockwise 4-bit runs with the compact (bf16 / int16) metadata load prepares, half the time
        const bool compact = s.kind == QWeights::U4 && s.block < s.K && with_bias == extreme;
        Case c(s.M, s.N, s.K, s.block, s.kind, extreme);
        c.make(static_cast<uint32_t>(s.M * 131 + s.N * 7 + s.K + extreme), with_bias, compact);
        const auto ref = c.scalar();
        REQUIRE(qd8_simd_supported(c.q));
        if (c.q.wp) {  // packed, as load leaves it: no sum or scale arrays (scales from the stream)
          QGemm bare = c.q;
          bare.wsum = nullptr, bare.wsum16 = nullptr, bare.w_scale = nullptr, bare.w_scale_bf16 = nullptr;
          std::vector<float> yb(c.M * c.N, -1.0f);
          bare.y = yb.data();
          qgemm_qd8_scalar(bare, 0, c.M, 0, c.N);
          CHECK(same_bits(yb, ref));
          c.q = bare;  // and the SIMD kernels below run on it too
        }
        std::vector<uint8_t> scratch(qgemm_qd8_scratch_bytes(c.q) + 64);
        for (QIsa isa : isas) {
          CAPTURE(isa_name(isa));
          CAPTURE(s.M);
          CAPTURE(s.N);
          CAPTURE(s.K);
          CAPTURE(s.block);
          CAPTURE(extreme);
          CAPTURE(with_bias);
          CAPTURE(compact);
          std::vector<float> y(c.M * c.N, -1.0f);
          c.q.y = y.data();
          qgemm_qd8(nullptr, c.q, scratch.data(), isa);
          CHECK(same_bits(y, ref));
          // a sub-range of rows and columns writes only that range
          if (s.M > 1 && s.N > 17) {
            std::vector<float> z(c.M * c.N, -1.0f);
            c.q.y = z.data();
            qd8_prepare_x(c.q, scratch.data(), isa);
#if defined(__x86_64__)
            if (isa == QIsa::Amx && qd8_amx_supported(c.q))
              qgemm_qd8_amx(c.q, scratch.data(), 1, c.M, 16, c.N);
            else if (isa == QIsa::Avx512 || isa == QIsa::Amx)
              qgemm_qd8_avx512(c.q, scratch.data(), 1, c.M, 16, c.N);
            else
              qgemm_qd8_avx2(c.q, scratch.data(), 1, c.M, 16, c.N);
#elif defined(__arm__)
            qgemm_qd8_neon(c.q, 1, c.M, 16, c.N);
#elif defined(__aarch64__)
            if (isa == QIsa::NeonI8mm)
              qgemm_qd8_neoni8mm(c.q, 1, c.M, 16, c.N);
            else if (isa == QIsa::NeonDot)
              qgemm_qd8_neondot(c.q, 1, c.M, 16, c.N);
            else
              qgemm_qd8_neon(c.q, 1, c.M, 16, c.N);
#endif
            bool ok = true;
            for (int64_t m = 0; m < c.M; ++m)
              for (int64_t n = 0; n < c.N; ++n) {
                const float want = (m >= 1 && n >= 16) ? ref[m * c.N + n] : -1.0f;
                ok = ok && std::memcmp(&z[m * c.N + n], &want, 4) == 0;
              }
            CHECK(ok);
          }
        }
      }
}

TEST_CASE("qgemm_qd8: subnormal block scales (the AMX epilogue's exact scale / 16 form does not apply)") {
  for (bool compact : {false, true}) {
    Case c(35, 40, 128, 32, QWeights::U4);
    c.make(21, true, compact, /*tiny=*/true);
    const auto ref = c.scalar();
    for (QIsa isa : simd_isas()) {
      CAPTURE(isa_name(isa));
      CHECK(same_bits(c.run(nullptr, true, isa), ref));
    }
  }
}

TEST_CASE("qgemm_qd8: threads, unsupported shapes and no scratch give the reference result") {
  pthreadpool_t pool = pthreadpool_create(3);
  REQUIRE(pool);
  {
    Case c(70, 200, 576, 32, QWeights::U4);
    c.make(3);
    const auto ref = c.scalar();
    CHECK(same_bits(c.run(pool), ref));
    CHECK(same_bits(c.run(pool, /*with_scratch=*/false), ref));  // no scratch: the scalar kernel
  }
  // decode (1 to 3 rows) in threads: each task takes groups from the four quarters of the
  // columns, the columns past them (a partial group too) are one more task
  struct Dec { int64_t M, N, K, block; };
  for (const Dec& d : {Dec{1, 600, 576, 32}, Dec{2, 1000, 576, 576}, Dec{3, 130, 2048, 64}, Dec{1, 4160, 64, 32}}) {
    Case c(d.M, d.N, d.K, d.block, QWeights::U4);
    c.make(static_cast<uint32_t>(d.N + d.M));
    const auto ref = c.scalar();
    CAPTURE(d.M);
    CAPTURE(d.N);
    CHECK(same_bits(c.run(pool), ref));
    CHECK(same_bits(c.run(nullptr, true, QIsa::Auto, /*helper=*/true), ref));
  }
  {  // K = 36 with one block: not a multiple of 8, so the reference runs
    Case c(3, 20, 36, 36, QWeights::U4);
    c.make(4);
    CHECK(!qd8_simd_supported(c.q));
    CHECK(same_bits(c.run(pool), c.scalar()));
  }
  pthreadpool_destroy(pool);
}

TEST_CASE("qgemm_qd8: on the claim pool's helpers every task runs exactly once, results bit-identical") {
  {  // many short loops back to back: each index once per loop
    std::vector<std::atomic<int>> hits(257);
    struct Ctx {
      std::vector<std::atomic<int>>* hits;
    } ctx{&hits};
    auto fn = [](void* c, size_t i) { (*static_cast<Ctx*>(c)->hits)[i].fetch_add(1); };
    // (short loops back to back are where a loop's publication once raced a helper still
    // claiming in the last one: 400k loops of 2..8 tasks showed 3-30 tasks run twice)
    for (int loop = 0; loop < 100000; ++loop) {
      const size_t n = loop < 2000 ? static_cast<size_t>(loop % 257) + 1 : static_cast<size_t>(loop % 7) + 2;
      for (size_t i = 0; i < n; ++i) hits[i].store(0);
      pte::linalg::claim_parallel_for(1, static_cast<int64_t>(n), fn, &ctx);
      bool once = true;
      for (size_t i = 0; i < n; ++i) once = once && hits[i].load() == 1;
      if (!once) {
        CHECK(once);
        break;
      }
    }
  }
  for (int64_t M : {int64_t(1), int64_t(40)}) {  // decode and prefill shapes on caller + helper
    Case c(M, 576, 576, 32, QWeights::U4);
    c.make(9);
    const auto ref = c.scalar();
    bool same = true;
    for (int rep = 0; rep < 50 && same; ++rep) same = same_bits(c.run(nullptr, true, QIsa::Auto, /*helper=*/true), ref);
    CAPTURE(M);
    CHECK(same);
  }
}

TEST_CASE("qgemm_qd8_group: products of one activation tensor in one region equal each product alone; mixed groups fall back") {
  // decode (1 row, the quarters tiling) and prefill (20 rows, tiles), on the pool and on the
  // claim pool's helper: SmolLM2-like 576 / 192 / 130 outputs of K = 576, blockwise 4-bit
  pthreadpool_t pool = pthreadpool_create(2);
  REQUIRE(pool);
  for (int64_t M : {int64_t(1), int64_t(20)}) {
    Case a(M, 576, 576, 32, QWeights::U4), b(M, 192, 576, 32, QWeights::U4), c(M, 130, 576, 32, QWeights::U4, true);
    a.make(21, true, true), b.make(22, false, true), c.make(23, true, true);
    // one activation tensor: b and c read a's rows (their own references first re-made from it)
    for (Case* o : {&b, &c}) {
      o->x = a.x, o->xs = a.xs, o->xz = a.xz;
      o->q.x = a.x.data(), o->q.x_scale = a.xs.data(), o->q.x_zp = a.xz.data();
    }
    const std::vector<float> ra = a.scalar(), rb = b.scalar(), rc = c.scalar();
    // a fourth product over other activations (e.g. another tensor): the group runs it alone
    Case d(M, 64, 576, 32, QWeights::U4);
    d.make(24, true, true);
    const std::vector<float> rd = d.scalar();
    size_t scratch = 0;
    for (Case* o : {&a, &b, &c, &d}) scratch = std::max(scratch, qgemm_qd8_scratch_bytes(o->q));
    std::vector<uint8_t> buf(scratch);
    for (int form = 0; form < 3; ++form) {  // pool, helper, mixed (falls back)
      std::vector<float> ya(ra.size(), -1.f), yb(rb.size(), -1.f), yc(rc.size(), -1.f), yd(rd.size(), -1.f);
      a.q.y = ya.data(), b.q.y = yb.data(), c.q.y = yc.data(), d.q.y = yd.data();
      QGemm qs[4] = {a.q, b.q, c.q, d.q};
      const int count = form == 2 ? 4 : 3;
      qgemm_qd8_group(form == 0 ? pool : nullptr, qs, count, buf.data(), QIsa::Auto, form == 1 ? 1 : 0);
      CAPTURE(M);
      CAPTURE(form);
      CHECK(same_bits(ya, ra));
      CHECK(same_bits(yb, rb));
      CHECK(same_bits(yc, rc));
      if (form == 2) CHECK(same_bits(yd, rd));
    }
    // an empty product among them (no columns) and more than kQd8GroupMax products: one after
    // the other, the empty one writes nothing
    std::vector<float> ya(ra.size(), -1.f), yb(rb.size(), -1.f);
    QGemm empty = b.q;
    empty.N = 0;
    float untouched = -3.f;
    empty.y = &untouched;
    a.q.y = ya.data(), b.q.y = yb.data();
    std::vector<QGemm> many(kQd8GroupMax + 1, b.q);
    many[0] = a.q, many[1] = empty;
    qgemm_qd8_group(nullptr, many.data(), kQd8GroupMax + 1, buf.data(), QIsa::Auto, 1);
    CHECK(same_bits(ya, ra));
    CHECK(same_bits(yb, rb));
    CHECK(untouched == -3.f);
  }
  pthreadpool_destroy(pool);
}
