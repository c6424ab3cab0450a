// pte-run linalg: the matrix-multiply engine behind mm, bmm, addmm, baddbmm, linear
// and convolution.
//
// Every operand is a strided view, so transposed weights, channels-last images and
// broadcast biases need no copies: element (r, c) of a view is data[r*rs + c*cs].
//
//   gemm_ref<T, Acc>     plain triple loop in the accumulator type; the reference.
//   gemm_f32_scalar      cache-blocked f32 kernel in portable C++ (the fallback).
//   gemm_f32_avx2_fma    the same blocking with a 6x16 AVX2+FMA micro-kernel.
//   gemm_f32_avx512f     the same blocking with an 8x32 AVX-512F micro-kernel
//                        (gemm_avx512f.cpp).
//   gemv_f32_*           M == 1 (LLM decode): dot products / row sweeps.
//   gemm_small_m_f32_*   M <= 8 (the dispatcher; the kernels take up to 16) against [N, K] weights: dot products,
//                        weights read once.
//   gemm_dots_f32_avx512f 9 <= M <= 64 (the dispatcher) against [N, K] weights: tiles of 4 rows
//                        x 6 weight rows as dot products, nothing packed (short prompts).
//   gemm_f32(threads, g) picks the fastest variant for this CPU and splits the work
//                        over batches, row blocks and column blocks; the tiles are
//                        claimed by the caller and awake helper threads
//                        (claim_pool.h), so a busy machine never stalls a call.
#pragma once
#include <cstddef>
#include <cstdint>

struct pthreadpool;

namespace pte::linalg {

// C = alpha * A @ B (+ C when accumulate), for `batch` independent products.
// A is MxK, B is KxN, C is MxN; *_bs are the batch strides (elements).
struct GemmF32 {
  int64_t batch = 1, M = 0, N = 0, K = 0;
  const float* a = nullptr;
  int64_t a_bs = 0, a_rs = 0, a_cs = 0;
  const float* b = nullptr;
  int64_t b_bs = 0, b_rs = 0, b_cs = 0;
  float* c = nullptr;
  int64_t c_bs = 0, c_rs = 0, c_cs = 0;
  float alpha = 1.0f;
  bool accumulate = false;  // false: C is overwritten (never read, NaN-safe)
};

// Reference: C(i,j) = alpha * sum_k A(i,k) B(k,j) [+ C(i,j)], summed in order in float.
void gemm_f32_ref(const GemmF32& g);
// Blocked kernels over one tile of one batch: rows [m0, m1), columns [n0, n1).
void gemm_f32_scalar(const GemmF32& g, int64_t batch_index, int64_t m0, int64_t m1, int64_t n0, int64_t n1);
void gemm_f32_avx2_fma(const GemmF32& g, int64_t batch_index, int64_t m0, int64_t m1, int64_t n0, int64_t n1);
void gemm_f32_avx512f(const GemmF32& g, int64_t batch_index, int64_t m0, int64_t m1, int64_t n0, int64_t n1);
void gemm_f32_neon(const GemmF32& g, int64_t batch_index, int64_t m0, int64_t m1, int64_t n0, int64_t n1);  // aarch64
// M == 1 kernels over columns [n0, n1) of one batch.
void gemv_f32_scalar(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);
void gemv_f32_avx2_fma(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);
void gemv_f32_avx512f(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);  // this CPU's form of:
void gemv_f32_avx512f_streams8(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);  // Intel
void gemv_f32_avx512f_streams2(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);  // AMD
void gemv_f32_neon(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);  // aarch64

// 2 <= M <= 8 (AVX-512F: 16) with B read as W[j*b_cs + k] (b_rs == 1, a_cs == 1: a linear layer's
// [N, K] weight): columns [n0, n1), each weight row read once for all M rows.
void gemm_small_m_f32_scalar(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);
void gemm_small_m_f32_avx2_fma(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);
void gemm_small_m_f32_avx512f(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);
void gemm_small_m_f32_neon(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);  // aarch64
// Any M against [N, K] weights (b_rs == 1, a_cs == 1), AVX-512F: tiles of 4 rows x 6 weight rows
// as dot products, nothing packed (a short prompt's prefill: the blocked GEMM packs every weight).
void gemm_dots_f32_avx512f(const GemmF32& g, int64_t batch_index, int64_t n0, int64_t n1);

// True when this CPU runs the AVX2+FMA kernels (cpuinfo, initialised once).
bool cpu_has_avx2_fma();
// True when this CPU runs the AVX-512F kernels (and the AVX2+FMA ones).
bool cpu_has_avx512f();

// x86 ordered by capability (Auto aside); Neon: aarch64, armv7 with VFPv4 (gemm_neon.cpp).
enum class GemmIsa { Auto, Scalar, Avx2Fma, Avx512f, Neon };
// What Auto means on this CPU: the widest of AVX-512F, AVX2+FMA, scalar on x86-64, NEON
// on aarch64; the environment variable PTE_GEMM_ISA=scalar|avx2 caps it (timing
// comparisons).
GemmIsa gemm_auto_isa();
// The dispatcher: threads over (batch, row tiles, column tiles). `isa` forces a
// variant (tests; the CPU must have it); Auto is gemm_auto_isa().
// The work is split over `threads` (the caller and threads - 1 shared helpers, see
// claim_pool.h); the pthreadpool overload takes the pool's thread count (null: 1).
void gemm_f32(int threads, const GemmF32& g, GemmIsa isa = GemmIsa::Auto);
void gemm_f32(pthreadpool* pool, const GemmF32& g, GemmIsa isa = GemmIsa::Auto);

// Generic reference for every other dtype (and the f32 reference of the ops):
// C(i,j) = alpha * sum_k A(i,k) B(k,j) + beta * Bias(i,j), summed in Acc and
// rounded once to T. bias may be null (then beta is ignored); beta == 0 ignores
// the bias entirely (torch semantics: NaN in the bias does not propagate).
template <class T>
struct MatRef {
  T* data;
  int64_t bs, rs, cs;
  T& at(int64_t b, int64_t r, int64_t c) const { return data[b * bs + r * rs + c * cs]; }
};

template <class T, class Acc>
void gemm_ref(int64_t batch, int64_t M, int64_t N, int64_t K, MatRef<const T> a, MatRef<const T> b, MatRef<T> c,
              Acc alpha, Acc beta, const MatRef<const T>* bias) {
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        Acc s = 0;
        for (int64_t k = 0; k < K; ++k) s += static_cast<Acc>(a.at(n, i, k)) * static_cast<Acc>(b.at(n, k, j));
        Acc r = alpha * s;
        if (bias && beta != Acc(0)) r += beta * static_cast<Acc>(bias->at(n, i, j));
        c.at(n, i, j) = static_cast<T>(r);
      }
}

}  // namespace pte::linalg
