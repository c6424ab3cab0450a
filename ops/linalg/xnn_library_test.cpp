// Tests of the XNNPACK library wrapper (xnn_library.h): the policy, and the fully connected
// operator against the GEMM reference for every weight layout, with bias, clamp and threads.
// In a build without the library: nothing of it runs (every policy answers "ours").
#include "ops/linalg/xnn_library.h"

#include <doctest/doctest.h>
#include <pthreadpool.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "ops/linalg/gemm.h"
#include "pte_config.h"

using namespace pte;
using namespace pte::linalg;

namespace {

float lcg(uint32_t& s) {
  s = s * 1664525u + 1013904223u;
  return static_cast<float>((s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

}  // namespace

TEST_CASE("xnn library: policy parsing and the process default") {
  XnnpackPolicy p = XnnpackPolicy::Default;
  CHECK(parse_xnnpack_policy("on", &p));
  CHECK(p == XnnpackPolicy::On);
  CHECK(parse_xnnpack_policy("off", &p));
  CHECK(p == XnnpackPolicy::Off);
  CHECK(parse_xnnpack_policy("auto", &p));
  CHECK(p == XnnpackPolicy::Auto);
  CHECK_FALSE(parse_xnnpack_policy("yes", &p));
  const XnnpackPolicy initial = default_xnnpack_policy();  // Auto unless $PTE_XNNPACK says otherwise
  const char* env = std::getenv("PTE_XNNPACK");
  if (!env || !parse_xnnpack_policy(env, &p)) p = XnnpackPolicy::Auto;
  CHECK(initial == p);
  set_default_xnnpack_policy(XnnpackPolicy::Off);
  CHECK(xnnlib::resolve(XnnpackPolicy::Default) == XnnpackPolicy::Off);
  CHECK(xnnlib::resolve(XnnpackPolicy::On) == XnnpackPolicy::On);
  set_default_xnnpack_policy(XnnpackPolicy::Default);  // taken as Auto
  CHECK(default_xnnpack_policy() == XnnpackPolicy::Auto);
  set_default_xnnpack_policy(initial);

  std::string why;
  CHECK_FALSE(xnnlib::choose(XnnpackPolicy::Off, 64, 64, &why));
  CHECK(why == "--xnnpack off");
  CHECK_FALSE(xnnlib::choose(XnnpackPolicy::On, 0, 64, &why));  // nothing to pack
  CHECK(xnnlib::built() == (PTE_HAVE_XNNPACK != 0));
  const bool on = xnnlib::choose(XnnpackPolicy::On, 64, 64, &why);
  CHECK(on == xnnlib::ready());
  if (!xnnlib::built()) {
    CHECK(why == "this build has no XNNPACK library");
    std::unique_ptr<xnnlib::FullyConnectedF32> fc;
    float w[4] = {1, 2, 3, 4};
    CHECK_FALSE(xnnlib::FullyConnectedF32::create(2, 2, w, 2, 1, nullptr, -INFINITY, INFINITY, &fc).is_ok());
    CHECK(!fc);
  }
}

TEST_CASE("xnn library: fully connected f32 equals the GEMM reference (layouts, bias, clamp, threads)") {
  if (!xnnlib::built()) {
    MESSAGE("skipped: this build has no XNNPACK library (-Dxnnpack=disabled)");
    return;
  }
  // built with the library: every CPU this project targets (x86-64, aarch64, armv7 NEON) has
  // XNNPACK kernels, so a refusal is a failure, not a skip
  REQUIRE_MESSAGE(xnnlib::ready(), "the XNNPACK library refuses this CPU");
  pthreadpool* pool = pthreadpool_create(2);
  REQUIRE(pool);
  struct Shape { int64_t M, N, K; };
  for (const Shape sh : {Shape{1, 1, 1}, Shape{1, 37, 19}, Shape{3, 16, 32}, Shape{17, 67, 129}, Shape{64, 24, 576}}) {
    for (int layout = 0; layout < 3; ++layout) {  // [N, K] rows, [K, N] rows (transpose flag), strided gather
      for (int variant = 0; variant < 2; ++variant) {  // plain; bias + clamp
        INFO("M " << sh.M << " N " << sh.N << " K " << sh.K << " layout " << layout << " variant " << variant);
        const int64_t M = sh.M, N = sh.N, K = sh.K;
        uint32_t seed = static_cast<uint32_t>(M * 131 + N * 7 + K + layout * 1000 + variant);
        std::vector<float> W(static_cast<size_t>(N * K)), x(static_cast<size_t>(M * K)), bias(static_cast<size_t>(N));
        for (auto& v : W) v = lcg(seed);
        for (auto& v : x) v = lcg(seed);
        for (auto& v : bias) v = lcg(seed);
        // the weights as the operator reads them: W(n, k) = w[n * ns + k * ks]
        std::vector<float> w;
        int64_t ns, ks;
        if (layout == 0) {
          w = W, ns = K, ks = 1;
        } else if (layout == 1) {
          w.resize(W.size());
          for (int64_t n = 0; n < N; ++n)
            for (int64_t k = 0; k < K; ++k) w[static_cast<size_t>(k * N + n)] = W[static_cast<size_t>(n * K + k)];
          ns = 1, ks = N;
        } else {  // every other float of a [N, 2K] buffer
          w.assign(static_cast<size_t>(N * K * 2), NAN);
          for (int64_t n = 0; n < N; ++n)
            for (int64_t k = 0; k < K; ++k) w[static_cast<size_t>(n * 2 * K + 2 * k)] = W[static_cast<size_t>(n * K + k)];
          ns = 2 * K, ks = 2;
        }
        const float lo = variant ? -0.5f : -INFINITY, hi = variant ? 0.75f : INFINITY;
        std::unique_ptr<xnnlib::FullyConnectedF32> fc;
        pte::Status s = xnnlib::FullyConnectedF32::create(N, K, w.data(), ns, ks, variant ? bias.data() : nullptr, lo, hi, &fc);
        REQUIRE_MESSAGE(s.is_ok(), s.message());
        w.assign(w.size(), NAN);  // packed: the source may go away
        // reference: gemm_f32_ref (in-order float sums), then bias and clamp
        std::vector<float> ref(static_cast<size_t>(M * N), 0.0f);
        GemmF32 g;
        g.M = M, g.N = N, g.K = K;
        g.a = x.data(), g.a_rs = K, g.a_cs = 1;
        g.b = W.data(), g.b_rs = 1, g.b_cs = K;
        g.c = ref.data(), g.c_rs = N, g.c_cs = 1;
        gemm_f32_ref(g);
        std::vector<float> bound(static_cast<size_t>(M * N));
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            float& r = ref[static_cast<size_t>(i * N + j)];
            double sum_abs = 0;
            for (int64_t k = 0; k < K; ++k) sum_abs += std::fabs(x[static_cast<size_t>(i * K + k)] * W[static_cast<size_t>(j * K + k)]);
            if (variant) r = std::fmin(std::fmax(r + bias[static_cast<size_t>(j)], lo), hi);
            bound[static_cast<size_t>(i * N + j)] = static_cast<float>(1e-5 * sum_abs + 1e-6);
          }
        for (pthreadpool* tp : {static_cast<pthreadpool*>(nullptr), pool}) {
          KernelContext ctx;
          ctx.threadpool = tp;
          std::vector<float> y(static_cast<size_t>(M * N), NAN);
          REQUIRE(fc->run(ctx, M, x.data(), y.data()));
          int bad = 0;
          for (size_t e = 0; e < y.size(); ++e) bad += !(std::fabs(y[e] - ref[e]) <= bound[e]);
          CHECK(bad == 0);
        }
      }
    }
  }
  pthreadpool_destroy(pool);
}
