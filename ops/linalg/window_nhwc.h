// pte-run linalg: the window geometry shared by the NHWC kernels that slide one window per
// channel over an image (depthwise convolution, max pooling): the parameters, the taps of a
// window that fall inside the image, and the split of output rows over the claim pool.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ops/linalg/claim_pool.h"

namespace pte::linalg {

struct WindowNhwc {
  int64_t N = 0, H = 0, W = 0, C = 0;  // input (and output channels)
  int64_t OH = 0, OW = 0;              // output rows and columns (the caller's arithmetic)
  int64_t KH = 1, KW = 1;
  int64_t sh = 1, sw = 1, pad_top = 0, pad_left = 0, dh = 1, dw = 1;
  float out_min = -__builtin_inff(), out_max = __builtin_inff();
};

namespace detail {
// Taps of one window that fall inside the input: the first k with start + k * d >= 0, and
// one past the last k with start + k * d < size (k0 == k1 when none).
inline void dw_tap_range(int64_t start, int64_t d, int64_t k, int64_t size, int64_t* k0, int64_t* k1) {
  const int64_t first = start >= 0 ? 0 : (-start + d - 1) / d;
  *k0 = first < k ? first : k;
  const int64_t last = size - 1 - start;  // start + k * d <= last
  *k1 = last < 0 ? 0 : (last / d + 1 < k ? last / d + 1 : k);
  if (*k1 < *k0) *k1 = *k0;
}

// The window of output pixel (row r of the flattened N x OH rows, column ow): x, the input
// offset of its tap (0, 0) (negative in the padding: the in-image taps bring it in range),
// and its in-image taps [kh0, kh1) x [kw0, kw1).
struct PixelWindow {
  int64_t x, kh0, kh1, kw0, kw1;
};
inline PixelWindow pixel_window(const WindowNhwc& p, int64_t r, int64_t ow) {
  const int64_t n = r / p.OH, ih0 = r % p.OH * p.sh - p.pad_top, iw0 = ow * p.sw - p.pad_left;
  PixelWindow w;
  w.x = ((n * p.H + ih0) * p.W + iw0) * p.C;
  dw_tap_range(ih0, p.dh, p.KH, p.H, &w.kh0, &w.kh1);
  dw_tap_range(iw0, p.dw, p.KW, p.W, &w.kw0, &w.kw1);
  return w;
}

// f(r0, r1) over output rows [0, rows) on the calling thread and up to threads - 1 claim-pool
// helpers, about four row tiles a thread; one thread below 1e5 multiply-adds or compares
// (work): MobileNetV2's 14 x 14 x 384 depthwise layer 0.10 -> 0.06 ms.
template <class F>
void window_rows_parallel(int threads, int64_t rows, double work, const F& f) {
  const int helpers = work >= 1.0e5 ? std::max(0, threads - 1) : 0;
  const int64_t per = std::max<int64_t>(1, rows / (4 * (helpers + 1)));
  struct Ctx {
    const F* f;
    int64_t per, rows;
  } ctx{&f, per, rows};
  auto run = [](void* c, int64_t t) {
    const Ctx& k = *static_cast<const Ctx*>(c);
    const int64_t r0 = t * k.per;
    (*k.f)(r0, std::min(k.rows, r0 + k.per));
  };
  claim_parallel_for(helpers, (rows + per - 1) / per, run, &ctx);
}
}  // namespace detail

}  // namespace pte::linalg
