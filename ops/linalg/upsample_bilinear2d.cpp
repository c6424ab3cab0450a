// aten::upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
//     float[]? scale_factors, *, Tensor(a!) out) -> Tensor(a!)
// aten::upsample_bilinear2d.out(Tensor self, SymInt[2] output_size, bool align_corners,
//     float? scales_h=None, float? scales_w=None, *, Tensor(a!) out) -> Tensor(a!)
// torch's source-index rules: align_corners maps corners ((in-1)/(out-1)); otherwise
// half-pixel centres with scale 1/scale_factor (given) or in/out, clamped at 0.
// Weights in float (double for f64).
#include <algorithm>
#include <cmath>

#include "ops/linalg/linalg_util.h"
#include "ops/linalg/upsample.h"
#include "ops/util.h"

namespace pte {

namespace {

template <class A>
struct Tap {
  int64_t i0, i1;
  A l0, l1;
};

template <class A>
A pixel_scale(int64_t isz, int64_t osz, bool align, bool has_scale, double scale) {
  if (align) return osz > 1 ? static_cast<A>(isz - 1) / static_cast<A>(osz - 1) : A(0);
  return has_scale && scale > 0 ? static_cast<A>(1.0 / scale) : static_cast<A>(isz) / static_cast<A>(osz);
}

template <class A>
Tap<A> tap(A scale, int64_t o, int64_t isz, int64_t osz, bool align) {
  if (osz == isz) return {o, o, A(1), A(0)};
  A real = align ? scale * static_cast<A>(o) : scale * (static_cast<A>(o) + A(0.5)) - A(0.5);
  if (!align && real < A(0)) real = A(0);
  const int64_t i0 = std::min(static_cast<int64_t>(std::floor(real)), isz - 1);
  const A l1 = std::min(std::max(real - static_cast<A>(i0), A(0)), A(1));
  return {i0, i0 + (i0 < isz - 1 ? 1 : 0), A(1) - l1, l1};
}

template <class T>
void bilinear_planes(const Tensor& x, Tensor& y, const linalg::UpsampleSize& s, bool align) {
  using A = linalg::Acc<T>;
  const linalg::View4 in = linalg::view4(x), ov = linalg::view4(y);
  const T* xp = x.ptr<T>();
  T* yp = y.ptr<T>();
  const A sh = pixel_scale<A>(in.h, ov.h, align, s.has_scale_h, s.scale_h);
  const A sw = pixel_scale<A>(in.w, ov.w, align, s.has_scale_w, s.scale_w);
  for (int64_t n = 0; n < ov.n; ++n)
    for (int64_t oh = 0; oh < ov.h; ++oh) {
      const Tap<A> th = tap<A>(sh, oh, in.h, ov.h, align);
      for (int64_t ow = 0; ow < ov.w; ++ow) {
        const Tap<A> tw = tap<A>(sw, ow, in.w, ov.w, align);
        const T* base = xp + n * in.sn;
        const int64_t o00 = th.i0 * in.sh + tw.i0 * in.sw, o01 = th.i0 * in.sh + tw.i1 * in.sw;
        const int64_t o10 = th.i1 * in.sh + tw.i0 * in.sw, o11 = th.i1 * in.sh + tw.i1 * in.sw;
        T* dst = yp + n * ov.sn + oh * ov.sh + ow * ov.sw;
        for (int64_t c = 0; c < ov.c; ++c) {
          const T* p = base + c * in.sc;
          const A top = convert<A>(p[o00]) * tw.l0 + convert<A>(p[o01]) * tw.l1;
          const A bottom = convert<A>(p[o10]) * tw.l0 + convert<A>(p[o11]) * tw.l1;
          dst[c * ov.sc] = convert<T>(top * th.l0 + bottom * th.l1);
        }
      }
    }
}

bool bilinear_run(KernelContext& ctx, const Tensor& x, Tensor& y, const linalg::UpsampleSize& s, const EValue* align) {
  if (!expect_tag(ctx, align, Tag::Bool, "align_corners")) return false;
  if (y.dtype != x.dtype)
    return ctx.fail("upsample_bilinear2d: out dtype %s differs from input %s", dtype_name(y.dtype), dtype_name(x.dtype));
  const int64_t sizes[4] = {x.sizes[0], x.sizes[1], s.oh, s.ow};
  if (!resize_output(ctx, y, sizes, 4)) return false;
  switch (x.dtype) {
    PTE_FLOAT_CASES(bilinear_planes<T>(x, y, s, align->b))
    default:
      return ctx.fail("upsample_bilinear2d: unsupported dtype %s (floating point only)", dtype_name(x.dtype));
  }
  return true;
}

}  // namespace

bool upsample_bilinear2d_vec_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[4], Tag::Tensor, "out")) return false;
  linalg::UpsampleSize s;
  if (!linalg::upsample_size_vec(ctx, "upsample_bilinear2d", *args[0]->t, args[1], args[3], &s)) return false;
  return bilinear_run(ctx, *args[0]->t, *args[4]->t, s, args[2]);
}

bool upsample_bilinear2d_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[5], Tag::Tensor, "out")) return false;
  linalg::UpsampleSize s;
  if (!linalg::upsample_size_out(ctx, "upsample_bilinear2d", *args[0]->t, args[1], args[3], args[4], &s)) return false;
  return bilinear_run(ctx, *args[0]->t, *args[5]->t, s, args[2]);
}

}  // namespace pte
