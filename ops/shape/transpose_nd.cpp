// pte-run shape: tiled N-d transpose (transpose_nd.h).
#include "ops/shape/transpose_nd.h"

#include <algorithm>
#include <cstring>

#include "ops/linalg/claim_pool.h"

namespace pte::shape {

namespace {

constexpr int kMaxRank = 8;
constexpr int64_t kTile = 64;

// The simplified problem: `rank` dims in input order (size), the output order (perm), and
// the element size in bytes (es, grown by merged innermost dims).
struct Plan {
  int rank = 0;
  int64_t size[kMaxRank] = {};
  int perm[kMaxRank] = {};
  size_t es = 0;
};

void simplify(const int64_t* shape, const int* perm, int rank, size_t es, Plan* p) {
  // drop size-1 dims (renumbering the survivors)
  int keep[kMaxRank], newid[kMaxRank];
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    newid[d] = shape[d] == 1 ? -1 : n;
    if (shape[d] != 1) keep[n++] = d;
  }
  int64_t size[kMaxRank];
  int pm[kMaxRank];
  for (int i = 0; i < n; ++i) size[i] = shape[keep[i]];
  int m = 0;
  for (int k = 0; k < rank; ++k)
    if (newid[perm[k]] >= 0) pm[m++] = newid[perm[k]];
  // merge input dims d, d + 1 that are adjacent (in that order) in the output
  int64_t msize[kMaxRank];
  int group[kMaxRank];  // input dim -> merged dim
  int g = 0;
  for (int d = 0; d < n; ++d) {
    bool joins = false;
    if (d > 0)
      for (int k = 0; k + 1 < n; ++k)
        if (pm[k] == d - 1 && pm[k + 1] == d) joins = true;
    if (joins) {
      msize[g - 1] *= size[d];
    } else {
      msize[g] = size[d];
      ++g;
    }
    group[d] = g - 1;
  }
  int mperm[kMaxRank];
  int q = 0;
  for (int k = 0; k < n; ++k)
    if (k == 0 || group[pm[k]] != group[pm[k - 1]]) mperm[q++] = group[pm[k]];
  // the innermost dim on both sides: one element of it
  p->es = es;
  if (g > 0 && mperm[g - 1] == g - 1) {
    p->es *= static_cast<size_t>(msize[g - 1]);
    --g;
  }
  p->rank = g;
  for (int i = 0; i < g; ++i) p->size[i] = msize[i], p->perm[i] = mperm[i];
}

template <size_t ES>
inline void move(uint8_t* d, const uint8_t* s, size_t es) {
  if constexpr (ES == 0)
    std::memcpy(d, s, es);
  else
    std::memcpy(d, s, ES);
}

// One tile: y[j * ys + i] = x[i * xs + j] for i < ni, j < nj (element units of es bytes).
template <size_t ES>
void tile(const uint8_t* x, int64_t xs, uint8_t* y, int64_t ys, int64_t ni, int64_t nj, size_t es) {
  for (int64_t j = 0; j < nj; ++j) {
    uint8_t* yr = y + static_cast<size_t>(j * ys) * es;
    const uint8_t* xc = x + static_cast<size_t>(j) * es;
    for (int64_t i = 0; i < ni; ++i) move<ES>(yr + static_cast<size_t>(i) * es, xc + static_cast<size_t>(i * xs) * es, es);
  }
}

// A tile whose output rows are NI (2..4) elements long (an image's channels moved last):
// the row unrolled, the tile long (see transpose_nd).
template <size_t ES, int NI>
void tile_small(const uint8_t* x, int64_t xs, uint8_t* y, int64_t ys, int64_t nj) {
  for (int64_t j = 0; j < nj; ++j)
    for (int i = 0; i < NI; ++i)
      move<ES>(y + static_cast<size_t>(j * ys + i) * ES, x + static_cast<size_t>(i * xs + j) * ES, ES);
}

struct Job {
  const uint8_t* x;
  uint8_t* y;
  size_t es;
  int outer_rank;
  int64_t osize[kMaxRank], ox[kMaxRank], oy[kMaxRank];  // the other dims: sizes, x / y strides
  int64_t ni, nj, xs_i, ys_j;  // i: the output's innermost dim (x stride xs_i); j: the input's (y stride ys_j)
  int64_t ti, tj;              // tiles along i and j
  int64_t tile_j;              // elements of a tile along j (kTile along i)
};

void run(void* ctx, int64_t t) {
  const Job& jb = *static_cast<const Job*>(ctx);
  const int64_t tiles = jb.ti * jb.tj;
  int64_t o = t / tiles, r = t % tiles;
  const int64_t i0 = r / jb.tj * kTile, j0 = r % jb.tj * jb.tile_j;
  int64_t xo = 0, yo = 0;
  for (int d = jb.outer_rank - 1; d >= 0; --d) {
    const int64_t c = o % jb.osize[d];
    o /= jb.osize[d];
    xo += c * jb.ox[d], yo += c * jb.oy[d];
  }
  xo += i0 * jb.xs_i + j0, yo += j0 * jb.ys_j + i0;
  const int64_t ni = std::min(kTile, jb.ni - i0), nj = std::min(jb.tile_j, jb.nj - j0);
  const uint8_t* x = jb.x + static_cast<size_t>(xo) * jb.es;
  uint8_t* y = jb.y + static_cast<size_t>(yo) * jb.es;
  if (jb.es == 4 && ni >= 2 && ni <= 4) {
    if (ni == 2) return tile_small<4, 2>(x, jb.xs_i, y, jb.ys_j, nj);
    if (ni == 3) return tile_small<4, 3>(x, jb.xs_i, y, jb.ys_j, nj);
    return tile_small<4, 4>(x, jb.xs_i, y, jb.ys_j, nj);
  }
  switch (jb.es) {
    case 1: tile<1>(x, jb.xs_i, y, jb.ys_j, ni, nj, 1); break;
    case 2: tile<2>(x, jb.xs_i, y, jb.ys_j, ni, nj, 2); break;
    case 4: tile<4>(x, jb.xs_i, y, jb.ys_j, ni, nj, 4); break;
    case 8: tile<8>(x, jb.xs_i, y, jb.ys_j, ni, nj, 8); break;
    default: tile<0>(x, jb.xs_i, y, jb.ys_j, ni, nj, jb.es);
  }
}

}  // namespace

void transpose_nd_ref(const void* x, const int64_t* shape, const int* perm, int rank, size_t es, void* y) {
  int64_t xstride[kMaxRank], total = 1;
  for (int d = rank - 1; d >= 0; --d) xstride[d] = total, total *= shape[d];
  int64_t idx[kMaxRank] = {};
  const auto* xs = static_cast<const uint8_t*>(x);
  auto* ys = static_cast<uint8_t*>(y);
  for (int64_t e = 0; e < total; ++e) {
    int64_t off = 0;
    for (int k = 0; k < rank; ++k) off += idx[k] * xstride[perm[k]];
    std::memcpy(ys + static_cast<size_t>(e) * es, xs + static_cast<size_t>(off) * es, es);
    for (int k = rank - 1; k >= 0; --k) {
      if (++idx[k] < shape[perm[k]]) break;
      idx[k] = 0;
    }
  }
}

void transpose_nd(int threads, const void* x, const int64_t* shape, const int* perm, int rank, size_t es, void* y) {
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= shape[d];
  if (total == 0) return;
  Plan p;
  simplify(shape, perm, rank, es, &p);
  if (p.rank <= 1) {  // nothing moves relative to anything else
    std::memcpy(y, x, static_cast<size_t>(total) * es);
    return;
  }
  // strides (elements of p.es) on both sides
  int64_t xs[kMaxRank], ys_out[kMaxRank], ys[kMaxRank], a = 1;
  for (int d = p.rank - 1; d >= 0; --d) xs[d] = a, a *= p.size[d];
  a = 1;
  for (int k = p.rank - 1; k >= 0; --k) ys_out[k] = a, a *= p.size[p.perm[k]];
  for (int k = 0; k < p.rank; ++k) ys[p.perm[k]] = ys_out[k];  // y stride of input dim
  const int di = p.perm[p.rank - 1], dj = p.rank - 1;  // output-innermost, input-innermost (di != dj)
  Job jb;
  jb.x = static_cast<const uint8_t*>(x);
  jb.y = static_cast<uint8_t*>(y);
  jb.es = p.es;
  jb.outer_rank = 0;
  for (int d = 0; d < p.rank; ++d)
    if (d != di && d != dj) jb.osize[jb.outer_rank] = p.size[d], jb.ox[jb.outer_rank] = xs[d], jb.oy[jb.outer_rank++] = ys[d];
  jb.ni = p.size[di], jb.nj = p.size[dj], jb.xs_i = xs[di], jb.ys_j = ys[dj];
  // short output rows (ni < kTile): tiles longer along j, about kTile x kTile elements each
  jb.tile_j = jb.ni < kTile ? kTile * kTile / std::max<int64_t>(1, jb.ni) : kTile;
  jb.ti = (jb.ni + kTile - 1) / kTile, jb.tj = (jb.nj + jb.tile_j - 1) / jb.tile_j;
  int64_t outer = 1;
  for (int d = 0; d < jb.outer_rank; ++d) outer *= jb.osize[d];
  const bool big = static_cast<double>(total) * static_cast<double>(es) >= 256.0 * 1024;
  linalg::claim_parallel_for(big ? std::max(0, threads - 1) : 0, outer * jb.ti * jb.tj, run, &jb);
}

}  // namespace pte::shape
