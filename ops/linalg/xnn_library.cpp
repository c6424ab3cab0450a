// pte-run: the XNNPACK library's fp32 fully connected operator and the policy (xnn_library.h).
#include "ops/linalg/xnn_library.h"

#include <atomic>
#include <cstdlib>
#include <cstdio>
#include <mutex>
#include <vector>

#include <pthreadpool.h>

#include "ops/isa.h"
#include "pte_config.h"

#if PTE_HAVE_XNNPACK
#include <xnnpack.h>
#endif

namespace pte {

namespace {
// The initial default: $PTE_XNNPACK (on, off, auto; e.g. to run a whole test suite with the
// library forced on), else Auto.
XnnpackPolicy initial_policy() {
  XnnpackPolicy p = XnnpackPolicy::Auto;
  if (const char* e = std::getenv("PTE_XNNPACK")) {
    if (!parse_xnnpack_policy(e, &p)) p = XnnpackPolicy::Auto;
  }
  return p;
}
std::atomic<XnnpackPolicy> g_default{initial_policy()};
}  // namespace

void set_default_xnnpack_policy(XnnpackPolicy policy) {
  g_default.store(policy == XnnpackPolicy::Default ? XnnpackPolicy::Auto : policy, std::memory_order_relaxed);
}

XnnpackPolicy default_xnnpack_policy() { return g_default.load(std::memory_order_relaxed); }

bool parse_xnnpack_policy(const std::string& text, XnnpackPolicy* out) {
  if (text == "on") *out = XnnpackPolicy::On;
  else if (text == "off") *out = XnnpackPolicy::Off;
  else if (text == "auto") *out = XnnpackPolicy::Auto;
  else return false;
  return true;
}

}  // namespace pte

namespace pte::linalg::xnnlib {

bool built() { return PTE_HAVE_XNNPACK != 0; }

bool ready(std::string* why) {
#if PTE_HAVE_XNNPACK
  // Initialised once for the process and never deinitialised (operators may outlive any
  // one program); xnn_initialize is itself idempotent.
  static const int status = static_cast<int>(xnn_initialize(nullptr));
  if (status == xnn_status_success) return true;
  if (why)
    *why = status == xnn_status_unsupported_hardware ? "the XNNPACK library does not support this CPU"
                                                      : "the XNNPACK library failed to initialise (status " + std::to_string(status) + ")";
  return false;
#else
  if (why) *why = "this build has no XNNPACK library";
  return false;
#endif
}

void release_workers(pthreadpool* pool) {
  if (!pool) return;
  const size_t n = pthreadpool_get_threads_count(pool);
  if (n <= 1) return;
  // one item per thread, so every worker takes part (and yields afterwards)
  pthreadpool_parallelize_1d(pool, [](void*, size_t) {}, nullptr, n, PTHREADPOOL_FLAG_YIELD_WORKERS);
}

XnnpackPolicy resolve(XnnpackPolicy p) { return p == XnnpackPolicy::Default ? default_xnnpack_policy() : p; }

bool decide(XnnpackPolicy p, bool auto_lib, const char* auto_why, std::string* why) {
  std::string w;
  bool lib = false;
  p = resolve(p);
  if (p == XnnpackPolicy::Off) {
    w = "--xnnpack off";
  } else if (!ready(&w)) {
    // w says why
  } else if (p == XnnpackPolicy::On) {
    lib = true, w = "--xnnpack on";
  } else {
    lib = auto_lib, w = auto_why;
  }
  if (why) *why = w;
  return lib;
}

bool choose(XnnpackPolicy p, int64_t N, int64_t K, std::string* why) {
  if (N < 1 || K < 1) {
    if (why) *why = "empty product";
    return false;
  }
  // bench/xnn_fc_bench.cpp: on x86-64 the library (its AVX-512F kernels) took 0.99-3.0x
  // our time at every SmolLM2 shape on one thread. On ARM nothing was timed (qemu timing
  // means nothing) and the library's arithmetic was not run through the ARM test suites:
  // ours until it is (armhf, with scalar kernels of ours, is the first candidate).
#if defined(__arm__) || defined(__aarch64__)
  return decide(p, false, "auto: ARM, our kernels (the library not yet measured here; --xnnpack on uses it)", why);
#else
  return decide(p, false, isa::cpu().avx512f ? "auto: x86-64 AVX-512F, our kernels measured faster" : "auto: x86-64, our kernels",
                why);
#endif
}

FullyConnectedF32::~FullyConnectedF32() {
#if PTE_HAVE_XNNPACK
  if (op_) xnn_delete_operator(static_cast<xnn_operator_t>(op_));
#endif
}

Status FullyConnectedF32::create(int64_t N, int64_t K, const float* w, int64_t w_ns, int64_t w_ks, const float* bias,
                                 float out_min, float out_max, std::unique_ptr<FullyConnectedF32>* out) {
#if PTE_HAVE_XNNPACK
  std::string why;
  if (!ready(&why)) return Status::error(why);
  if (N < 1 || K < 1 || !w) return Status::error("XNNPACK fully connected: empty weights");
  // The library packs [N, K] (or, flagged, [K, N]) row-major weights; other layouts are
  // gathered into a temporary first.
  uint32_t flags = 0;
  std::vector<float> dense;
  if (!(w_ks == 1 && w_ns == K)) {
    if (w_ns == 1 && w_ks == N) {
      flags |= XNN_FLAG_TRANSPOSE_WEIGHTS;
    } else {
      dense.resize(static_cast<size_t>(N) * static_cast<size_t>(K));
      for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k) dense[static_cast<size_t>(n * K + k)] = w[n * w_ns + k * w_ks];
      w = dense.data();
    }
  }
  xnn_operator_t op = nullptr;
  const enum xnn_status st = xnn_create_fully_connected_nc_f32(static_cast<size_t>(K), static_cast<size_t>(N),
                                                               static_cast<size_t>(K), static_cast<size_t>(N), w, bias,
                                                               out_min, out_max, flags, &op);
  if (st != xnn_status_success)
    return Status::error("XNNPACK: xnn_create_fully_connected_nc_f32 [" + std::to_string(N) + ", " + std::to_string(K) +
                         "] failed (status " + std::to_string(static_cast<int>(st)) + ")");
  std::unique_ptr<FullyConnectedF32> fc(new FullyConnectedF32());
  fc->op_ = op, fc->n_ = N, fc->k_ = K;
  *out = std::move(fc);
  return Status::ok();
#else
  (void)N, (void)K, (void)w, (void)w_ns, (void)w_ks, (void)bias, (void)out_min, (void)out_max, (void)out;
  return Status::error("this build has no XNNPACK library");
#endif
}

bool FullyConnectedF32::run(KernelContext& ctx, int64_t M, const float* x, float* y) const {
#if PTE_HAVE_XNNPACK
  if (M <= 0) return true;
  auto* op = static_cast<xnn_operator_t>(op_);
  enum xnn_status st = xnn_setup_fully_connected_nc_f32(op, static_cast<size_t>(M), x, y, ctx.threadpool);
  if (st == xnn_status_success) st = xnn_run_operator(op, ctx.threadpool);
  if (st != xnn_status_success)
    return ctx.fail("XNNPACK fully connected [%lld x %lld] x %lld rows failed (status %d)", (long long)n_, (long long)k_,
                    (long long)M, static_cast<int>(st));
  return true;
#else
  (void)M, (void)x, (void)y;
  return ctx.fail("this build has no XNNPACK library");
#endif
}

}  // namespace pte::linalg::xnnlib
