// gemm_f16w: the reference against a double-precision sum over the widened weights; every
// ISA variant this CPU runs (dot products for M <= 8, the blocked path above) and the
// threaded dispatcher against the reference, over shapes around the vector widths, the
// 32-column tiles and the 256-wide K blocks; the row conversions bit-exact against
// ops/util.h's scalar ones over every half value and a sweep of floats.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ops/isa.h"
#include "ops/linalg/gemm_f16w.h"
#include "ops/util.h"

namespace {

using pte::linalg::F16wIsa;
using pte::linalg::FcF16w;

std::vector<float> seeded(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>((seed = seed * 1664525u + 1013904223u) >> 9) * 0x1p-22f - 1.0f;
  return v;
}

std::vector<F16wIsa> isas() {
  std::vector<F16wIsa> v{F16wIsa::Scalar};
  for (F16wIsa i : {F16wIsa::Avx2F16c, F16wIsa::Avx512f, F16wIsa::Neon})
    if (pte::linalg::f16w_isa_supported(i)) v.push_back(i);
  return v;
}
const char* name(F16wIsa i) {
  return i == F16wIsa::Avx512f ? "avx512f" : i == F16wIsa::Avx2F16c ? "avx2-f16c" : i == F16wIsa::Neon ? "neon" : "scalar";
}

struct Case {
  int64_t M, N, K;
  bool bias;
};

}  // namespace

TEST_CASE("gemm_f16w: the reference against double sums over the widened weights") {
  const int64_t M = 3, N = 5, K = 37;
  std::vector<float> x = seeded(M * K, 1), wf = seeded(N * K, 2), b = seeded(N, 3), y(M * N);
  std::vector<uint16_t> w(wf.size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = pte::float_to_half_bits(wf[i]);
  FcF16w p;
  p.M = M, p.N = N, p.K = K, p.x = x.data(), p.x_rs = K, p.w = w.data(), p.bias = b.data(), p.y = y.data(), p.y_rs = N;
  pte::linalg::fc_f16w_ref(p);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = b[n];
      for (int64_t k = 0; k < K; ++k) s += double(x[m * K + k]) * double(pte::half_bits_to_float(w[n * K + k]));
      CHECK(y[m * N + n] == doctest::Approx(s).epsilon(1e-5));
    }
}

TEST_CASE("gemm_f16w: every ISA variant and thread count against the reference") {
  const Case cases[] = {{1, 1, 1, false},     {1, 33, 16, true},    {1, 64, 576, false},  {1, 77, 37, true},
                        {2, 31, 15, true},     {3, 32, 17, false},   {4, 65, 64, true},    {5, 9, 8, false},
                        {7, 40, 100, true},    {8, 100, 576, false}, {9, 33, 16, true},    {16, 64, 257, false},
                        {17, 31, 300, true},   {40, 96, 576, false}, {150, 70, 600, true}, {300, 45, 40, false}};
  for (const Case& c : cases) {
    // x rows padded (x_rs > K) and y rows padded (y_rs > N): the strides are honoured
    const int64_t xrs = c.K + 3, yrs = c.N + 2;
    std::vector<float> x = seeded(c.M * xrs, 11 + c.K), wf = seeded(c.N * c.K, 12 + c.N), b = seeded(c.N, 13);
    std::vector<uint16_t> w(wf.size());
    for (size_t i = 0; i < w.size(); ++i) w[i] = pte::float_to_half_bits(wf[i]);
    std::vector<float> ref(c.M * yrs, 7.0f);
    FcF16w p;
    p.M = c.M, p.N = c.N, p.K = c.K, p.x = x.data(), p.x_rs = xrs, p.w = w.data(), p.bias = c.bias ? b.data() : nullptr,
    p.y = ref.data(), p.y_rs = yrs;
    pte::linalg::fc_f16w_ref(p);
    for (F16wIsa isa : isas())
      for (int threads : {1, 2}) {
        INFO("M ", c.M, " N ", c.N, " K ", c.K, " bias ", c.bias, " threads ", threads);
        INFO("isa ", name(isa));
        std::vector<float> y(c.M * yrs, 7.0f);
        FcF16w q = p;
        q.y = y.data();
        pte::linalg::fc_f16w(threads, q, isa);
        double err = 0, mag = 0;
        for (int64_t m = 0; m < c.M; ++m) {
          for (int64_t n = 0; n < c.N; ++n) {
            err = std::max(err, std::fabs(double(y[m * yrs + n]) - ref[m * yrs + n]));
            mag = std::max(mag, std::fabs(double(ref[m * yrs + n])));
          }
          for (int64_t n = c.N; n < yrs; ++n) CHECK(y[m * yrs + n] == 7.0f);  // padding untouched
        }
        CHECK(err <= 2e-6 * (mag + 1.0) * std::sqrt(double(c.K)));
      }
  }
}

TEST_CASE("gemm_f16w: K == 0 gives the bias (or zeros)") {
  std::vector<float> b{1.5f, -2.0f}, y(4, 9.0f);
  FcF16w p;
  p.M = 2, p.N = 2, p.K = 0, p.bias = b.data(), p.y = y.data(), p.y_rs = 2;
  pte::linalg::fc_f16w(2, p);
  CHECK(y == std::vector<float>{1.5f, -2.0f, 1.5f, -2.0f});
  p.bias = nullptr;
  pte::linalg::fc_f16w(1, p);
  CHECK(y == std::vector<float>{0, 0, 0, 0});
}

TEST_CASE("gemm_f16w: row conversions equal the scalar ones") {
  // each variant this CPU runs (and the dispatching entry points), over lengths with tails
  struct Variant {
    const char* name;
    void (*to_f32)(const uint16_t*, float*, int64_t);
    void (*to_f16)(const float*, uint16_t*, int64_t);
  };
  std::vector<Variant> vs{{"dispatch", pte::linalg::convert_f16_to_f32, pte::linalg::convert_f32_to_f16}};
#if defined(__x86_64__)
  if (pte::isa::cpu().f16c && pte::isa::cpu().avx2 && pte::isa::cpu().fma3)
    vs.push_back({"f16c", pte::linalg::f16_to_f32_f16c, pte::linalg::f32_to_f16_f16c});
  if (pte::isa::cpu().avx512f && pte::isa::cpu().f16c)
    vs.push_back({"avx512f", pte::linalg::f16_to_f32_avx512f, pte::linalg::f32_to_f16_avx512f});
#elif defined(__aarch64__)
  vs.push_back({"neon", pte::linalg::f16_to_f32_neon, pte::linalg::f32_to_f16_neon});
#endif
  // every half value through fp16 -> fp32 (NaNs: NaN in both)
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  // fp32 -> fp16 over a sweep of bit patterns (every exponent, ties, subnormals, overflow)
  std::vector<float> f;
  for (uint32_t e = 0; e < 256; ++e)
    for (uint32_t m : {0u, 1u, 0xFFFu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x7FFFFFu, 0x400000u, 0x12345u})
      for (uint32_t s : {0u, 0x80000000u}) {
        const uint32_t bits = s | (e << 23) | m;
        float v;
        std::memcpy(&v, &bits, 4);
        f.push_back(v);
      }
  for (float v : {65504.0f, 65519.99f, 65520.0f, 1e9f, 5.96e-8f, 2.98e-8f, 2.99e-8f}) f.push_back(v);
  int bad = 0;
  for (const Variant& v : vs) {
    CAPTURE(v.name);
    for (int64_t off : {0, 3}) {   // (unaligned starts)
      for (int64_t cut : {0, 1, 7}) {  // lengths with tails of every kind
        CAPTURE(off);
        CAPTURE(cut);
        const int64_t n = static_cast<int64_t>(all.size()) - off - cut;
        std::vector<float> got(all.size() + 5, -7.0f);
        v.to_f32(all.data() + off, got.data(), n);
        bad = 0;
        for (int64_t i = 0; i < n; ++i) {
          const float want = pte::half_bits_to_float(all[static_cast<size_t>(i + off)]);
          if (std::isnan(want) ? !std::isnan(got[static_cast<size_t>(i)]) : std::memcmp(&want, &got[static_cast<size_t>(i)], 4) != 0) ++bad;
        }
        CHECK(bad == 0);
        CHECK(got[static_cast<size_t>(n)] == -7.0f);  // nothing written past n
        const int64_t m = static_cast<int64_t>(f.size()) - off - cut;
        std::vector<uint16_t> h(f.size() + 5, 0xABCDu);
        v.to_f16(f.data() + off, h.data(), m);
        bad = 0;
        for (int64_t i = 0; i < m; ++i) {
          const uint16_t want = pte::float_to_half_bits(f[static_cast<size_t>(i + off)]), g = h[static_cast<size_t>(i)];
          const bool nan = (want & 0x7C00u) == 0x7C00u && (want & 0x3FFu);
          if (nan ? !((g & 0x7C00u) == 0x7C00u && (g & 0x3FFu)) : g != want) ++bad;
        }
        CHECK(bad == 0);
        CHECK(h[static_cast<size_t>(m)] == 0xABCDu);
      }
    }
  }
  // the one-pass round trip (more than one 512-value chunk, and in place) against both steps
  std::vector<float> rt(f.size()), inplace = f;
  pte::linalg::round_through_f16(f.data(), rt.data(), static_cast<int64_t>(f.size()));
  pte::linalg::round_through_f16(inplace.data(), inplace.data(), static_cast<int64_t>(f.size()));
  REQUIRE(f.size() > 1024);
  bad = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const float want = pte::half_bits_to_float(pte::float_to_half_bits(f[i]));
    if (std::isnan(want) ? !(std::isnan(rt[i]) && std::isnan(inplace[i]))
                         : std::memcmp(&want, &rt[i], 4) != 0 || std::memcmp(&want, &inplace[i], 4) != 0)
      ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("gemm_f16w: the SIMD sliver conversion equals the scalar one (column and K tails, padding zero)" *
          doctest::skip(!pte::linalg::f16w_isa_supported(F16wIsa::Avx512f) &&
                        !pte::linalg::f16w_isa_supported(F16wIsa::Neon))) {
#if defined(__x86_64__) || defined(__aarch64__)
  const int64_t K = 230;
  std::vector<uint16_t> w(static_cast<size_t>(32 * K));
  uint32_t s = 77u;
  for (auto& h : w) {
    h = static_cast<uint16_t>((s = s * 1664525u + 1013904223u) >> 16);
    if ((h & 0x7C00u) == 0x7C00u) h &= 0xBFFFu;  // no inf / NaN bit patterns (NaN != NaN below)
  }
  int checked = 0;
  for (int64_t nc : {1, 15, 16, 17, 31, 32})
    for (int64_t kc : {1, 15, 16, 17, 208, 230}) {
      std::vector<float> want(static_cast<size_t>(kc * 32), 9.0f), got(want.size() + 16, 7.0f);
      pte::linalg::f16_to_sliver_scalar(w.data(), K, nc, kc, want.data());
#if defined(__x86_64__)
      pte::linalg::f16_to_sliver_avx512f(w.data(), K, nc, kc, got.data());
#else
      pte::linalg::f16_to_sliver_neon(w.data(), K, nc, kc, got.data());
#endif
      CAPTURE(nc);
      CAPTURE(kc);
      CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
      for (int64_t k = 0; k < kc; ++k)
        for (int64_t j = 0; j < 32; ++j) {
          const float v = want[static_cast<size_t>(k * 32 + j)];
          REQUIRE(v == (j < nc ? pte::half_bits_to_float(w[static_cast<size_t>(j * K + k)]) : 0.0f));
        }
      for (size_t i = want.size(); i < got.size(); ++i) REQUIRE(got[i] == 7.0f);  // nothing past the sliver
      ++checked;
    }
  CHECK(checked == 36);
#endif
}
