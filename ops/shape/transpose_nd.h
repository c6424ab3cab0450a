// pte-run shape: a contiguous tensor permuted into another contiguous tensor (the XNNPACK
// delegate's XNNStaticTranspose: NCHW <-> NHWC around a ConvNeXt block's LayerNorm, a
// transformer's [B, S, H, D] <-> [B, H, S, D]).
//
// The permutation is first simplified: size-1 dims dropped, input dims that stay side by side
// in the output merged, and a run of dims that is innermost on both sides taken as one
// element (a head's D values move as one block). What is left is a copy (identity), or a
// batch of 2-D transposes between the input's innermost dim and the output's: done in 64 x 64
// tiles that sit in L1 (rows read and written contiguously), the tiles of all batches split
// over the claim pool. transpose_nd_ref walks the output element by element: the reference.
#pragma once
#include <cstddef>
#include <cstdint>

namespace pte::shape {

// y[i_0, .., i_{r-1}] = x[j] with j_{perm[k]} = i_k: y's dim k is x's dim perm[k]. x and y
// contiguous (row-major), es bytes an element, rank <= 8; perm a permutation of 0..rank-1.
void transpose_nd_ref(const void* x, const int64_t* shape, const int* perm, int rank, size_t es, void* y);
// The same, tiled; threads: the caller and threads - 1 claim-pool helpers.
void transpose_nd(int threads, const void* x, const int64_t* shape, const int* perm, int rank, size_t es, void* y);

}  // namespace pte::shape
