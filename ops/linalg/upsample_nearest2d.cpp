// aten::upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors,
//     *, Tensor(a!) out) -> Tensor(a!)
// aten::upsample_nearest2d.out(Tensor self, SymInt[2] output_size, float? scales_h=None,
//     float? scales_w=None, *, Tensor(a!) out) -> Tensor(a!)
// Source index as torch computes it: identity when sizes match, o/2 for exact 2x,
// else min(floor(o * scale), in - 1) with scale = 1/scale_factor (given) or in/out, in float.
#include <algorithm>
#include <cmath>

#include "ops/linalg/linalg_util.h"
#include "ops/linalg/upsample.h"
#include "ops/util.h"

namespace pte {

namespace {

inline int64_t nearest_src(int64_t o, int64_t isz, int64_t osz, bool has_scale, double scale) {
  if (osz == isz) return o;
  if (osz == 2 * isz) return o >> 1;
  const float sc = has_scale && scale > 0 ? static_cast<float>(1.0 / scale) : static_cast<float>(isz) / osz;
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * sc)), isz - 1);
}

template <class T>
void nearest_planes(const Tensor& x, Tensor& y, const linalg::UpsampleSize& s) {
  const linalg::View4 in = linalg::view4(x), ov = linalg::view4(y);
  const T* xp = x.ptr<T>();
  T* yp = y.ptr<T>();
  for (int64_t n = 0; n < ov.n; ++n)
    for (int64_t oh = 0; oh < ov.h; ++oh) {
      const int64_t ih = nearest_src(oh, in.h, ov.h, s.has_scale_h, s.scale_h);
      for (int64_t ow = 0; ow < ov.w; ++ow) {
        const int64_t iw = nearest_src(ow, in.w, ov.w, s.has_scale_w, s.scale_w);
        const T* src = xp + n * in.sn + ih * in.sh + iw * in.sw;
        T* dst = yp + n * ov.sn + oh * ov.sh + ow * ov.sw;
        for (int64_t c = 0; c < ov.c; ++c) dst[c * ov.sc] = src[c * in.sc];
      }
    }
}

bool nearest_run(KernelContext& ctx, const Tensor& x, Tensor& y, const linalg::UpsampleSize& s) {
  if (y.dtype != x.dtype)
    return ctx.fail("upsample_nearest2d: out dtype %s differs from input %s", dtype_name(y.dtype), dtype_name(x.dtype));
  const int64_t sizes[4] = {x.sizes[0], x.sizes[1], s.oh, s.ow};
  if (!resize_output(ctx, y, sizes, 4)) return false;
  switch (x.dtype) {
    PTE_FLOAT_CASES(nearest_planes<T>(x, y, s))
    PTE_INT_CASES(nearest_planes<T>(x, y, s))
    PTE_BOOL_CASES(nearest_planes<T>(x, y, s))
    default:
      return ctx.fail("upsample_nearest2d: unsupported dtype %s", dtype_name(x.dtype));
  }
  return true;
}

}  // namespace

bool upsample_nearest2d_vec_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[3], Tag::Tensor, "out")) return false;
  linalg::UpsampleSize s;
  if (!linalg::upsample_size_vec(ctx, "upsample_nearest2d", *args[0]->t, args[1], args[2], &s)) return false;
  return nearest_run(ctx, *args[0]->t, *args[3]->t, s);
}

bool upsample_nearest2d_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[4], Tag::Tensor, "out")) return false;
  linalg::UpsampleSize s;
  if (!linalg::upsample_size_out(ctx, "upsample_nearest2d", *args[0]->t, args[1], args[2], args[3], &s)) return false;
  return nearest_run(ctx, *args[0]->t, *args[4]->t, s);
}

}  // namespace pte
