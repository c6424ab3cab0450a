// pte-run: the system XNNPACK library's fp32 fully connected operator, and the policy that
// decides per matrix multiply whether it or our GEMM (gemm.h) runs.
//
// Builds with -Dxnnpack=enabled (PTE_HAVE_XNNPACK) link Debian's libXNNPACK (a 2022
// snapshot: xnn_create_fully_connected_nc_f32, then setup + run per call). The operator is
// created at load from constant weights, which the library packs into its own buffer once;
// a call only sets up the pointers and the batch size (no allocation) and runs on the
// method's pthreadpool. The library is initialised once per process (xnn_initialize).
// Builds without the library compile none of it: built() is false, create() fails and
// choose() always answers "ours".
//
// Auto (XnnpackPolicy::Auto) follows bench/xnn_fc_bench.cpp's figures:
//   x86-64   ours: on an AVX-512F machine the library (with its own AVX-512F kernels) took
//            0.99-3.0x our time at every SmolLM2-135M and Qwen3-0.6B shape, M = 1 and 64,
//            one thread (a Xeon VM); on a Zen 4 VM 1.0-1.6x at M = 1 but 0.8-0.95x at M = 64
//            and 512 on 2 threads, with a packed weight copy that doubles an fp32 model's
//            memory, so ours there too; against our kernels capped to AVX2 it won at M = 64 and was
//            about equal at M = 1 (an AVX2-only CPU, where the library too runs its
//            FMA3 kernels, was not timed; bench/results/xnn_fc.md);
//   ARM      ours until measured (qemu timing means nothing): armhf, where our kernels are
//            scalar and the library has NEON ones, is the first candidate to flip.
// `--xnnpack on` runs the library wherever it can. Builds without the library: always ours.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "ops/kernel.h"
#include "pte/program.h"
#include "pte/status.h"

namespace pte::linalg::xnnlib {

// True when this build links the XNNPACK library.
bool built();
// Initialises the library once (thread-safe). False, with the reason, when this build has
// no library or the library refuses this CPU.
bool ready(std::string* why = nullptr);
// After a run of library operators, before our own kernels: the pool's workers, which spin
// after each operator waiting for the next, go to sleep instead (one empty job with
// PTHREADPOOL_FLAG_YIELD_WORKERS). Otherwise on a machine with as many threads as cores
// they spin through our kernels' claim-pool work, taking the cores its helpers need
// (ConvNeXt-T: ~28% of a forward's samples in the spinning workers). Null pool: nothing.
void release_workers(pthreadpool* pool);
// Default -> the process-wide default (set_default_xnnpack_policy).
XnnpackPolicy resolve(XnnpackPolicy p);
// The policy's answer where the operation does not matter: off, or no usable library ->
// ours; on -> the library; auto -> `auto_lib` (reason `auto_why`). `why` gets the reason.
bool decide(XnnpackPolicy p, bool auto_lib, const char* auto_why, std::string* why);
// Whether an fp32 product with constant [N, K] weights runs on the library; `why` gets
// the reason shown by `pte-run info`.
bool choose(XnnpackPolicy p, int64_t N, int64_t K, std::string* why);

// y[M, N] = x[M, K] W^T + bias, clamped to [out_min, out_max]; x rows K floats apart,
// y rows N floats apart.
class FullyConnectedF32 {
 public:
  ~FullyConnectedF32();
  FullyConnectedF32(const FullyConnectedF32&) = delete;
  FullyConnectedF32& operator=(const FullyConnectedF32&) = delete;

  // W(n, k) = w[n * w_ns + k * w_ks] (any strides; packed, so w may go away afterwards);
  // bias: N floats or null.
  static Status create(int64_t N, int64_t K, const float* w, int64_t w_ns, int64_t w_ks, const float* bias,
                       float out_min, float out_max, std::unique_ptr<FullyConnectedF32>* out);
  // Runs on ctx.threadpool (null: the calling thread). False with ctx.fail on a library error.
  bool run(KernelContext& ctx, int64_t M, const float* x, float* y) const;
  int64_t N() const { return n_; }
  int64_t K() const { return k_; }

 private:
  FullyConnectedF32() = default;
  void* op_ = nullptr;  // xnn_operator_t
  int64_t n_ = 0, k_ = 0;
};

}  // namespace pte::linalg::xnnlib
