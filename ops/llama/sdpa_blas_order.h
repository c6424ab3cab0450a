// pte-run: the summation orders of the official runtime's BLAS in custom_sdpa's
// one-query-row products.
//
// llama::custom_sdpa (ExecuTorch's flash attention) runs q.k^T and p.V through the
// BLAS it was built with: in the Python package, sgemm_ resolves to Intel MKL
// (inside libtorch_cpu). With three or more query rows in a block MKL's result is an
// in-order fused multiply-add chain per output (sdpa_common.cpp). With one row (every
// decode step; the last row of a prefill whose length is 1 mod 32) MKL takes its
// matrix-vector paths, with other orders. These functions reproduce them; they were
// found by probing MKL 2024.2 (the torch 2.13 wheel) on AVX-512 with crafted inputs
// (which products meet first: +-2^100 pairs among ones) and then fitting where it
// fuses (random inputs against MKL, bit for bit): scripts/mkl_gemv_order.py records
// what tests/data compares against.
//
// q.k^T, one query row: sgemm('T', 'N', m = keys in the block, n = 1, k = head dim).
//   Columns (keys) go in groups of four; the m mod 4 keys left over go in a pair then a
//   single (their own kernels). Let x_e = k_e q_e (e < k), lanes i = 0..15, and
//   reduce(v) the halving sum ((v_i + v_i+8) then + 4, + 2, + 1):
//   - group of four:   v_0 = x_0; lanes take x_(1+16t+i) by FMA for t < (k-1)/16 full
//                      vectors; s = reduce(v); the rest x_(e0..k-1) (e0 = 1 + 16 full)
//                      rounded into lanes w_i, except w_0 = fma(x_e0, s); out = reduce(w).
//   - pair, first key and single key: two vectors over pairs of full vectors (16 + 16
//                      products, FMA), added; then the remaining products by FMA into
//                      the lanes; out = round(x_0) + reduce(v).
//   - pair, second key: one vector, every product by FMA from 1 on; out = round(x_0) + reduce(v).
// p.V, one query row: sgemm('N', 'N', m = head dim, n = 1, k = keys): per output d,
//   y_j = v_jd p_j. Eight keys at a time: the first eight as
//   (fma(y0, y2) + fma(y1, y3)) + (fma(y4, y6) + fma(y5, y7)) (fma(a, b) = a's product
//   fused onto b's rounded product); each next eight (base j): acc = fma(y6, acc),
//   fma(y4, acc), + fma(y5, y7), + (fma(y0, y2) + fma(y1, y3)); then the keys left over
//   by FMA in order. (Fewer than eight keys: an FMA chain.) The D mod 16 outputs past the
//   last group of 16: an FMA chain in key order.
// q.k^T, two query rows (the last block of a prefill of 32n + 2): sgemm('T', 'N', m, 2, k).
//   For head dims of 48 or more that are multiples of 16: 16 lanes (lane i takes x_i,
//   x_(i+16), ... by FMA), then s_r = ((v_r + v_r+4) + v_r+8) + v_r+12 and
//   out = (s_0 + s_1) + (s_2 + s_3). (Up to 32: the in-order FMA chain, as for more rows.)
// Valid while MKL runs these on one thread (OMP_NUM_THREADS=1 / torch.set_num_threads(1),
// as fixtures/make_fixtures.py records its references): with more threads it splits the
// columns of q.k^T (from 128 keys at head dim 64, halves rounded up) and the outputs of
// p.V (from 119 keys at head dim 64: rows 0..39 and 40..63 on two threads) over them,
// which moves some keys / outputs to the other kernels above; past those sizes the
// results may then differ from the official runtime's in the last bits.
#pragma once
#include <cstdint>

namespace pte {

// One score: key row kr (k floats, contiguous) . query q (k floats), key `col` of `ncols`.
float blas_gemv1_dot(const float* kr, const float* q, int64_t k, int64_t col, int64_t ncols);
// The value sum for D outputs over L keys: out[d] = sum_j v[j * v_stride + d] * p[j].
void blas_gemv1_value(const float* v, int64_t v_stride, const float* p, int64_t L, int64_t D, float* out);

// One score of a two-row block; only for k % 16 == 0 and k >= 48 (blas_gemm2_applies).
inline bool blas_gemm2_applies(int64_t k) { return k >= 48 && k % 16 == 0; }
float blas_gemm2_dot(const float* kr, const float* q, int64_t k);

// The same with AVX-512F (bit-equal to the above; callers check the CPU).
float blas_gemm2_dot_avx512(const float* kr, const float* q, int64_t k);
float blas_gemv1_dot_avx512(const float* kr, const float* q, int64_t k, int64_t col, int64_t ncols);
void blas_gemv1_value_avx512(const float* v, int64_t v_stride, const float* p, int64_t L, int64_t D, float* out);
// Sixteen scores at once: keys col .. col + 15, all in groups of four (col + 16 <= ncols / 4 * 4),
// transposed as kt[e * 16 + lane] (64-byte aligned, k rows); out[lane] = blas_gemv1_dot of key
// col + lane, bit for bit.
void blas_gemv1_dot16_avx512(const float* kt, const float* q, int64_t k, float* out);
// The same with aarch64 NEON (sdpa_blas_order_neon.cpp; bit-equal too).
float blas_gemm2_dot_neon(const float* kr, const float* q, int64_t k);
float blas_gemv1_dot_neon(const float* kr, const float* q, int64_t k, int64_t col, int64_t ncols);
void blas_gemv1_value_neon(const float* v, int64_t v_stride, const float* p, int64_t L, int64_t D, float* out);

}  // namespace pte
