// pte-run linalg: the blocked loop nest and helpers shared by the f32 GEMM kernels of
// every ISA (gemm.cpp: scalar, AVX2+FMA; gemm_avx512f.cpp: AVX-512F). Private to
// ops/linalg.
//
// Blocking (per thread tile of rows [m0,m1) x columns [n0,n1)):
//   for each K block of kKc:
//     for each NR-column sliver of the tile: get B(kKc x NR) either in place (rows
//       contiguous, full sliver) or packed into a stack buffer (transposed or partial),
//       then for each MR-row block: micro-kernel C(MR x NR) (+)= alpha * A(MR x kKc) B(kKc x NR).
// The B sliver stays in L1 across all row blocks; the A block (tile rows x kKc)
// stays in L2 across slivers. A is read in place with its strides.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ops/linalg/gemm.h"

namespace pte::linalg::detail {

constexpr int64_t kKc = 256;  // K block

inline int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Returns B(p0..p0+kc, j0..j0+NR) with its row stride in `bstride`: in place when the
// sliver is NR full contiguous columns, otherwise packed (zero-padded) into `buf`.
template <int NR>
inline const float* b_sliver(const GemmF32& g, const float* B, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                             float* buf, int64_t* bstride) {
  if (nc == NR && g.b_cs == 1) {
    *bstride = g.b_rs;
    return B + p0 * g.b_rs + j0;
  }
  for (int64_t j = 0; j < NR; ++j) {
    if (j < nc) {
      const float* src = B + p0 * g.b_rs + (j0 + j) * g.b_cs;
      if (g.b_rs == 1)
        for (int64_t k = 0; k < kc; ++k) buf[k * NR + j] = src[k];
      else
        for (int64_t k = 0; k < kc; ++k) buf[k * NR + j] = src[k * g.b_rs];
    } else {
      for (int64_t k = 0; k < kc; ++k) buf[k * NR + j] = 0.0f;
    }
  }
  *bstride = NR;
  return buf;
}

// Writes the MR x NR tile `t` (row-major, alpha applied) to C, adding C unless `first`.
template <int NR>
inline void store_tile(const float* t, int mr, int64_t nc, float* c, int64_t c_rs, int64_t c_cs, bool first) {
  for (int r = 0; r < mr; ++r)
    for (int64_t j = 0; j < nc; ++j) {
      float* p = c + r * c_rs + j * c_cs;
      *p = first ? t[r * NR + j] : *p + t[r * NR + j];
    }
}

// Row pointers of an MR-row block of A for a micro-kernel; rows past `mr` read row 0
// again (computed, then discarded at the store).
template <int MR>
inline void block_rows(const float* a, int64_t a_rs, int mr, const float* (&rows)[MR]) {
  for (int r = 0; r < MR; ++r) rows[r] = r < mr ? a + r * a_rs : a;
}

// C(mr x nc) (+)= alpha * A(mr x kc) @ Bsliver(kc x NR)
using UkernelFn = void (*)(int mr, int64_t kc, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
                           int64_t b_rs, float* c, int64_t c_rs, int64_t c_cs, int64_t nc, bool first, float alpha);

using SliverFn = const float* (*)(const GemmF32& g, const float* B, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                                  float* buf, int64_t* bstride);

template <int MR, int NR, SliverFn sliver = b_sliver<NR>>
inline void gemm_tile(UkernelFn kernel, const GemmF32& g, int64_t bi, int64_t m0, int64_t m1, int64_t n0,
                      int64_t n1) {
  const float* A = g.a + bi * g.a_bs;
  const float* B = g.b + bi * g.b_bs;
  float* C = g.c + bi * g.c_bs;
  alignas(64) float buf[kKc * NR];
  // K blocks of equal size (<= kKc, a multiple of 16): 576 = 3 x 192, not 256+256+64
  const int64_t nkb = (g.K + kKc - 1) / kKc;
  const int64_t kb = std::min(kKc, round_up((g.K + nkb - 1) / nkb, 16));
  for (int64_t p0 = 0; p0 < g.K; p0 += kb) {
    const int64_t kc = std::min(kb, g.K - p0);
    const bool first = p0 == 0 && !g.accumulate;
    for (int64_t j0 = n0; j0 < n1; j0 += NR) {
      const int64_t nc = std::min<int64_t>(NR, n1 - j0);
      int64_t bstride;
      const float* bp = sliver(g, B, p0, kc, j0, nc, buf, &bstride);
      for (int64_t i0 = m0; i0 < m1; i0 += MR) {
        const int mr = static_cast<int>(std::min<int64_t>(MR, m1 - i0));
        kernel(mr, kc, A + i0 * g.a_rs + p0 * g.a_cs, g.a_rs, g.a_cs, bp, bstride, C + i0 * g.c_rs + j0 * g.c_cs,
               g.c_rs, g.c_cs, nc, first, g.alpha);
      }
    }
  }
}

inline void gemv_finish(const GemmF32& g, float* c, int64_t j, float sum) {
  float* p = c + j * g.c_cs;
  *p = g.accumulate ? *p + g.alpha * sum : g.alpha * sum;
}

constexpr int64_t kGemvChunk = 4096;  // GEMV row sweep: 16 KiB of accumulators (L1)
constexpr int64_t kGemvAhead = 128;   // GEMV dot rows: prefetch distance in floats (512 bytes)

// The M == 1 GEMV over columns [n0, n1) of batch bi, shared by the SIMD variants. `Isa`
// supplies the vector loops (compiled for its ISA, called out of line: each call reads
// at least one weight row):
//   Isa::kDotRows                      weight rows per call of the widest dots (4 or 8)
//   Isa::dots<R>(a, w, K, out, ahead)  out[r] = dot(a, w[r]) over K contiguous floats,
//                                      R in {kDotRows, 4, 1}; ahead != 0: also prefetch
//                                      w[r] + k + ahead (on into the segment's next row)
//   Isa::axpy(acc, b, x, n)            acc[j] += x * b[j] for j < n (acc 64-byte aligned)
// Layouts: B(k, j) = W[j*b_cs + k] (a linear layer's [N, K] weight) takes dot products;
// rows of B contiguous along N take a row sweep into L1 accumulators; others the scalar.
template <class Isa>
void gemv_tile(const GemmF32& g, int64_t bi, int64_t n0, int64_t n1) {
  const float* a = g.a + bi * g.a_bs;
  const float* B = g.b + bi * g.b_bs;
  float* c = g.c + bi * g.c_bs;
  const int64_t K = g.K;
  if (g.b_rs == 1 && g.a_cs == 1) {
    constexpr int R = Isa::kDotRows;
    const float* w[R];
    float r[R];
    // Each call takes one row from each of R equal segments of the tile, so the core
    // reads R long sequential streams instead of R adjacent short rows (SmolLM2-135M
    // fp32 decode on the 2-core Xeon VM: 27.2 -> 21.5 ms a token; a plain two-thread
    // read measured 20.5 GB/s with one stream per thread and ~27 GB/s with eight).
    const int64_t seg = (n1 - n0) / R;
    for (int64_t t = 0; t < seg; ++t) {
      for (int q = 0; q < R; ++q) w[q] = B + (n0 + q * seg + t) * g.b_cs;
      Isa::template dots<R>(a, w, K, r, t + 1 < seg ? kGemvAhead : 0);
      for (int q = 0; q < R; ++q) gemv_finish(g, c, n0 + q * seg + t, r[q]);
    }
    int64_t j = n0 + R * seg;
    if constexpr (R > 4)
      for (; j + 4 <= n1; j += 4) {
        for (int q = 0; q < 4; ++q) w[q] = B + (j + q) * g.b_cs;
        Isa::template dots<4>(a, w, K, r, 0);
        for (int q = 0; q < 4; ++q) gemv_finish(g, c, j + q, r[q]);
      }
    for (; j < n1; ++j) {
      w[0] = B + j * g.b_cs;
      Isa::template dots<1>(a, w, K, r, 0);
      gemv_finish(g, c, j, r[0]);
    }
    return;
  }
  if (g.b_cs == 1) {
    // y[chunk] += x[k] * B[k, chunk]: rows read sequentially, the chunk's sums in L1
    alignas(64) float acc[kGemvChunk];
    for (int64_t j0 = n0; j0 < n1; j0 += kGemvChunk) {
      const int64_t nj = std::min(kGemvChunk, n1 - j0);
      for (int64_t j = 0; j < nj; ++j) acc[j] = 0.0f;
      for (int64_t k = 0; k < K; ++k) Isa::axpy(acc, B + k * g.b_rs + j0, a[k * g.a_cs], nj);
      for (int64_t j = 0; j < nj; ++j) gemv_finish(g, c, j0 + j, acc[j]);
    }
    return;
  }
  gemv_f32_scalar(g, bi, n0, n1);
}

}  // namespace pte::linalg::detail
