// aten::adaptive_max_pool2d.out(Tensor self, int[2] output_size, *, Tensor(a!) out,
//     Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
// Windows as in adaptive average pooling; the max (NaN propagates) and its flat
// h*W + w index in the input plane.
#include <limits>

#include "ops/linalg/linalg_util.h"
#include "ops/util.h"

namespace pte {

namespace {

inline int64_t start_index(int64_t o, int64_t osz, int64_t isz) { return (o * isz) / osz; }
inline int64_t end_index(int64_t o, int64_t osz, int64_t isz) { return ((o + 1) * isz + osz - 1) / osz; }

template <class T>
void adaptive_max_plane(const linalg::View4& in, const T* x, const linalg::View4& ov, T* y, const linalg::View4& iv,
                        int64_t* idx) {
  using A = linalg::Acc<T>;
  for (int64_t n = 0; n < in.n; ++n)
    for (int64_t c = 0; c < in.c; ++c) {
      const T* xp = x + n * in.sn + c * in.sc;
      for (int64_t oh = 0; oh < ov.h; ++oh) {
        const int64_t ih0 = start_index(oh, ov.h, in.h), ih1 = end_index(oh, ov.h, in.h);
        for (int64_t ow = 0; ow < ov.w; ++ow) {
          const int64_t iw0 = start_index(ow, ov.w, in.w), iw1 = end_index(ow, ov.w, in.w);
          A best = std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                        : std::numeric_limits<A>::lowest();
          int64_t best_i = ih0 * in.w + iw0;
          for (int64_t ih = ih0; ih < ih1; ++ih)
            for (int64_t iw = iw0; iw < iw1; ++iw) {
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

bool adaptive_max_pool2d_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Tensor, "out") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "indices"))
    return false;
  const Tensor& x = *args[0]->t;
  Tensor& y = *args[2]->t;
  Tensor& ind = *args[3]->t;
  int64_t os[2];
  if (!linalg::read_int_list(ctx, args[1], "adaptive_max_pool2d output_size", os, 2, true)) return false;
  if (x.dim != 3 && x.dim != 4) return ctx.fail("adaptive_max_pool2d: expected a 3-D or 4-D input, got %d-D", x.dim);
  if (y.dtype != x.dtype || ind.dtype != DType::Int64)
    return ctx.fail("adaptive_max_pool2d: out must be %s and indices int64", dtype_name(x.dtype));
  if (os[0] < 1 || os[1] < 1) return ctx.fail("adaptive_max_pool2d: output size must be positive");
  if (x.sizes[x.dim - 1] == 0 || x.sizes[x.dim - 2] == 0) return ctx.fail("adaptive_max_pool2d: empty input plane");
  int64_t sizes[4];
  for (int i = 0; i < x.dim; ++i) sizes[i] = x.sizes[i];
  sizes[x.dim - 2] = os[0];
  sizes[x.dim - 1] = os[1];
  if (!resize_output(ctx, y, sizes, x.dim) || !resize_output(ctx, ind, sizes, x.dim)) return false;
  const linalg::View4 in = linalg::view4(x), ov = linalg::view4(y), iv = linalg::view4(ind);
  switch (x.dtype) {
    PTE_FLOAT_CASES(adaptive_max_plane<T>(in, x.ptr<T>(), ov, y.ptr<T>(), iv, ind.ptr<int64_t>()))
    PTE_INT_CASES(adaptive_max_plane<T>(in, x.ptr<T>(), ov, y.ptr<T>(), iv, ind.ptr<int64_t>()))
    default:
      return ctx.fail("adaptive_max_pool2d: unsupported dtype %s", dtype_name(x.dtype));
  }
  return true;
}

}  // namespace pte
