// xnn-fc-bench: fp32 linear layers at the hot shapes of SmolLM2-135M (and, with --qwen,
// Qwen3-0.6B), our GEMM (ops/linalg/gemm.h) against the XNNPACK library's fully connected
// operator (ops/linalg/xnn_library.h), on 1 and 2 threads. The figures XnnpackPolicy::Auto
// follows. Prints a Markdown table: median milliseconds per call and the ratio
// library / ours (< 1: the library is faster).
//
//   xnn-fc-bench [--qwen] [--convnext] [--ms N] [--rows M1,M2,...]
//   N: time budget per measurement, default 150 ms; --rows: the row counts of the LLM shapes
//   (default 1,64; a prefill of 16 tokens is M = 16)
//   --convnext: only ConvNeXt-T's pointwise layers at their row counts (a vision graph's large M)
//
// Ours runs as the interpreter runs a linear layer ([N, K] weight read in place, its
// claim-pool threads); on x86 with AVX-512F also capped to AVX2+FMA (what an AVX2-only CPU
// runs; the library keeps its own best kernels, so that column is only indicative).
// Weights are packed once before timing (as at load); each call sets up and runs.
#include <pthreadpool.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ops/isa.h"
#include "ops/kernel.h"
#include "ops/linalg/gemm.h"
#include "ops/linalg/xnn_library.h"

namespace {

using namespace pte::linalg;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median time of fn() over as many calls as fit in budget_ms (at least 5), after 2 warm-ups.
template <class Fn>
double median_ms(Fn fn, double budget_ms) {
  fn();
  fn();
  std::vector<double> t;
  const double start = now_ms();
  while (t.size() < 5 || (now_ms() - start < budget_ms && t.size() < 2000)) {
    const double t0 = now_ms();
    fn();
    t.push_back(now_ms() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Shape {
  const char* what;
  int64_t K, N;
  int64_t M = 0;  // 0: the --rows counts (default 1 and 64: decode and a prompt); else this many rows
};

}  // namespace

int main(int argc, char** argv) {
  bool qwen = false, convnext = false;
  double budget = 150;
  std::vector<int64_t> llm_rows = {1, 64};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--qwen")) qwen = true;
    else if (!std::strcmp(argv[i], "--convnext")) convnext = true;
    else if (!std::strcmp(argv[i], "--ms") && i + 1 < argc) budget = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--rows") && i + 1 < argc) {
      llm_rows.clear();
      for (char* p = argv[++i]; *p;) {
        char* end = p;
        const long long m = std::strtoll(p, &end, 10);
        if (end == p || m <= 0) {
          std::fprintf(stderr, "xnn-fc-bench: --rows wants positive counts separated by commas\n");
          return 2;
        }
        llm_rows.push_back(m);
        p = *end == ',' ? end + 1 : end;
      }
    } else {
      std::fprintf(stderr, "usage: xnn-fc-bench [--qwen] [--convnext] [--ms N] [--rows M1,M2,...]\n");
      return 2;
    }
  }
  std::vector<Shape> shapes;
  if (!convnext) shapes = {
      {"SmolLM2 q/o_proj", 576, 576},  {"SmolLM2 k/v_proj", 576, 192}, {"SmolLM2 gate/up", 576, 1536},
      {"SmolLM2 down", 1536, 576},     {"SmolLM2 lm_head", 576, 49152},
  };
  if (qwen) {
    shapes.push_back({"Qwen3-0.6B q_proj", 1024, 2048});
    shapes.push_back({"Qwen3-0.6B k/v_proj", 1024, 1024});
    shapes.push_back({"Qwen3-0.6B o_proj", 2048, 1024});
    shapes.push_back({"Qwen3-0.6B gate/up", 1024, 3072});
    shapes.push_back({"Qwen3-0.6B down", 3072, 1024});
  }
  if (convnext) {  // ConvNeXt-T at 224x224: the pointwise layers of its four stages (rows = H x W)
    shapes.push_back({"ConvNeXt-T stage 1 pw1", 96, 384, 3136});
    shapes.push_back({"ConvNeXt-T stage 1 pw2", 384, 96, 3136});
    shapes.push_back({"ConvNeXt-T stage 2 pw1", 192, 768, 784});
    shapes.push_back({"ConvNeXt-T stage 2 pw2", 768, 192, 784});
    shapes.push_back({"ConvNeXt-T stage 3 pw1", 384, 1536, 196});
    shapes.push_back({"ConvNeXt-T stage 3 pw2", 1536, 384, 196});
    shapes.push_back({"ConvNeXt-T stage 4 pw1", 768, 3072, 49});
    shapes.push_back({"ConvNeXt-T stage 4 pw2", 3072, 768, 49});
  }
  std::string why;
  const bool lib = xnnlib::ready(&why);
  const bool x86_avx512 = gemm_auto_isa() == GemmIsa::Avx512f;
  double load[1] = {0};
  if (getloadavg(load, 1) != 1) load[0] = -1;
  std::printf("# fp32 linear layers: ours vs the XNNPACK library\n\n%s; 1-minute load average at start %.2f\n", pte::isa::describe(), load[0]);
  if (!lib) std::printf("library: not measured (%s)\n", why.c_str());
  std::printf("\n| shape | K -> N | M | threads | ours ms |%s library ms | library / ours |\n", x86_avx512 ? " ours AVX2 ms |" : "");
  std::printf("| --- | --- | --- | --- | --- |%s --- | --- |\n", x86_avx512 ? " --- |" : "");
  for (int threads : {1, 2}) {
    pthreadpool* pool = threads > 1 ? pthreadpool_create(static_cast<size_t>(threads)) : nullptr;
    pte::KernelContext ctx;
    ctx.threadpool = pool;
    for (const Shape& s : shapes) {
      std::vector<float> w(static_cast<size_t>(s.N * s.K));
      uint32_t seed = 1;
      for (auto& v : w) v = static_cast<float>((seed = seed * 1664525u + 1013904223u) >> 9) * 0x1p-23f - 0.5f;
      std::unique_ptr<xnnlib::FullyConnectedF32> fc;
      if (lib) {
        pte::Status st = xnnlib::FullyConnectedF32::create(s.N, s.K, w.data(), s.K, 1, nullptr, -__builtin_inff(), __builtin_inff(), &fc);
        if (!st) {
          std::fprintf(stderr, "%s\n", st.message().c_str());
          return 1;
        }
      }
      std::vector<int64_t> rows = llm_rows;
      if (s.M) rows = {s.M};
      for (int64_t M : rows) {
        std::vector<float> x(static_cast<size_t>(M * s.K), 0.25f), y(static_cast<size_t>(M * s.N));
        GemmF32 g;
        g.M = M, g.N = s.N, g.K = s.K;
        g.a = x.data(), g.a_rs = s.K, g.a_cs = 1;
        g.b = w.data(), g.b_rs = 1, g.b_cs = s.K;
        g.c = y.data(), g.c_rs = s.N, g.c_cs = 1;
        const double ours = median_ms([&] { gemm_f32(threads, g); }, budget);
        double avx2 = 0;
        if (x86_avx512) avx2 = median_ms([&] { gemm_f32(threads, g, GemmIsa::Avx2Fma); }, budget);
        double libms = 0;
        if (fc) libms = median_ms([&] { fc->run(ctx, M, x.data(), y.data()); }, budget);
        char a2[32] = "", lb[32] = "n/a", ratio[32] = "n/a";
        if (x86_avx512) std::snprintf(a2, sizeof a2, " %.4f |", avx2);
        if (fc) std::snprintf(lb, sizeof lb, "%.4f", libms), std::snprintf(ratio, sizeof ratio, "%.2f", libms / ours);
        std::printf("| %s | %lld -> %lld | %lld | %d | %.4f |%s %s | %s |\n", s.what, (long long)s.K, (long long)s.N, (long long)M,
                    threads, ours, a2, lb, ratio);
        std::fflush(stdout);
      }
    }
    if (pool) pthreadpool_destroy(pool);
  }
  if (getloadavg(load, 1) == 1) std::printf("\n1-minute load average at the end %.2f\n", load[0]);
  return 0;
}
