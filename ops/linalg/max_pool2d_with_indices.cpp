// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//     int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//     Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
// Input (N,C,H,W) or (C,H,W), any dim order. indices (int64) are flat h*W + w offsets
// in each input plane, as torch returns them. NaN wins (propagates), like torch: the
// last NaN in the window gives the index.
#include <algorithm>
#include <limits>

#include "ops/linalg/linalg_util.h"
#include "ops/util.h"

namespace pte {

namespace {

template <class T>
void max_pool_plane(const linalg::View4& in, const T* x, const linalg::View4& ov, T* y, const linalg::View4& iv,
                    int64_t* idx, const int64_t* k, const int64_t* s, const int64_t* p, const int64_t* d) {
  using A = linalg::Acc<T>;
  for (int64_t n = 0; n < in.n; ++n)
    for (int64_t c = 0; c < in.c; ++c) {
      const T* xp = x + n * in.sn + c * in.sc;
      for (int64_t oh = 0; oh < ov.h; ++oh) {
        int64_t ih0 = oh * s[0] - p[0];
        const int64_t ih1 = std::min(ih0 + (k[0] - 1) * d[0] + 1, in.h);
        while (ih0 < 0) ih0 += d[0];
        for (int64_t ow = 0; ow < ov.w; ++ow) {
          int64_t iw0 = ow * s[1] - p[1];
          const int64_t iw1 = std::min(iw0 + (k[1] - 1) * d[1] + 1, in.w);
          while (iw0 < 0) iw0 += d[1];
          int64_t best_i = ih0 * in.w + iw0;
          A best = std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                        : std::numeric_limits<A>::lowest();
          for (int64_t ih = ih0; ih < ih1; ih += d[0])
            for (int64_t iw = iw0; iw < iw1; iw += d[1]) {
              const A v = convert<A>(xp[ih * in.sh + iw * in.sw]);
              if (v > best || v != v) {
                best = v;
                best_i = ih * in.w + iw;
              }
            }
          y[n * ov.sn + c * ov.sc + oh * ov.sh + ow * ov.sw] = convert<T>(best);
          idx[n * iv.sn + c * iv.sc + oh * iv.sh + ow * iv.sw] = best_i;
        }
      }
    }
}

}  // namespace

bool max_pool2d_with_indices_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[6], Tag::Tensor, "out") ||
      !expect_tag(ctx, args[7], Tag::Tensor, "indices") || !expect_tag(ctx, args[5], Tag::Bool, "ceil_mode"))
    return false;
  const Tensor& x = *args[0]->t;
  Tensor& y = *args[6]->t;
  Tensor& ind = *args[7]->t;
  int64_t k[2], s[2], p[2], d[2];
  const int64_t zero[2] = {0, 0}, one[2] = {1, 1};
  if (!linalg::read_int_list(ctx, args[1], "max_pool2d kernel_size", k, 2, true) ||
      !linalg::read_int_list(ctx, args[2], "max_pool2d stride", s, 2, true, k) ||
      !linalg::read_int_list(ctx, args[3], "max_pool2d padding", p, 2, true, zero) ||
      !linalg::read_int_list(ctx, args[4], "max_pool2d dilation", d, 2, true, one))
    return false;
  if (x.dim != 3 && x.dim != 4) return ctx.fail("max_pool2d: expected a 3-D or 4-D input, got %d-D", x.dim);
  if (y.dtype != x.dtype || ind.dtype != DType::Int64)
    return ctx.fail("max_pool2d: out must be %s and indices int64 (got %s, %s)", dtype_name(x.dtype), dtype_name(y.dtype),
                    dtype_name(ind.dtype));
  for (int i = 0; i < 2; ++i) {
    if (k[i] < 1 || s[i] < 1 || d[i] < 1 || p[i] < 0)
      return ctx.fail("max_pool2d: kernel, stride and dilation must be positive and padding non-negative");
    if (p[i] > ((k[i] - 1) * d[i] + 1) / 2)
      return ctx.fail("max_pool2d: padding %lld should be at most half of the effective kernel size %lld",
                      (long long)p[i], (long long)((k[i] - 1) * d[i] + 1));
  }
  const linalg::View4 in = linalg::view4(x);
  const bool ceil_mode = args[5]->b;
  const int64_t oh = linalg::pool_out_size(in.h, k[0], p[0], s[0], d[0], ceil_mode);
  const int64_t ow = linalg::pool_out_size(in.w, k[1], p[1], s[1], d[1], ceil_mode);
  if (oh < 1 || ow < 1)
    return ctx.fail("max_pool2d: input %lldx%lld is too small for the window (output %lldx%lld)", (long long)in.h,
                    (long long)in.w, (long long)oh, (long long)ow);
  int64_t sizes[4];
  for (int i = 0; i < x.dim; ++i) sizes[i] = x.sizes[i];
  sizes[x.dim - 2] = oh;
  sizes[x.dim - 1] = ow;
  if (!resize_output(ctx, y, sizes, x.dim) || !resize_output(ctx, ind, sizes, x.dim)) return false;
  const linalg::View4 ov = linalg::view4(y), iv = linalg::view4(ind);
  int64_t* idx = ind.ptr<int64_t>();
  switch (x.dtype) {
    PTE_FLOAT_CASES(max_pool_plane<T>(in, x.ptr<T>(), ov, y.ptr<T>(), iv, idx, k, s, p, d))
    PTE_INT_CASES(max_pool_plane<T>(in, x.ptr<T>(), ov, y.ptr<T>(), iv, idx, k, s, p, d))
    default:
      return ctx.fail("max_pool2d: unsupported dtype %s", dtype_name(x.dtype));
  }
  return true;
}

}  // namespace pte
