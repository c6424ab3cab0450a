// aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//     Tensor(a!) out) -> Tensor(a!)
// Input (N,C,H,W) or (C,H,W), any dim order. Per window (torch's CPU kernel):
//   window clipped to [-pad, in + pad) gives pool_size, then clipped to the input;
//   divisor = divisor_override, else pool_size (count_include_pad) or the clipped area.
// Integers divide with truncation, as torch does for int64.
#include <algorithm>

#include "ops/linalg/linalg_util.h"
#include "ops/util.h"

namespace pte {

namespace {

template <class T>
void avg_pool_plane(const linalg::View4& in, const T* x, const linalg::View4& ov, T* y, const int64_t* k,
                    const int64_t* s, const int64_t* p, bool count_include_pad, int64_t divisor_override) {
  using A = linalg::Acc<T>;
  for (int64_t n = 0; n < in.n; ++n)
    for (int64_t c = 0; c < in.c; ++c) {
      const T* xp = x + n * in.sn + c * in.sc;
      for (int64_t oh = 0; oh < ov.h; ++oh)
        for (int64_t ow = 0; ow < ov.w; ++ow) {
          int64_t ih0 = oh * s[0] - p[0], iw0 = ow * s[1] - p[1];
          int64_t ih1 = std::min(ih0 + k[0], in.h + p[0]), iw1 = std::min(iw0 + k[1], in.w + p[1]);
          const int64_t pool_size = (ih1 - ih0) * (iw1 - iw0);
          ih0 = std::max<int64_t>(ih0, 0), iw0 = std::max<int64_t>(iw0, 0);
          ih1 = std::min(ih1, in.h), iw1 = std::min(iw1, in.w);
          T* yo = y + n * ov.sn + c * ov.sc + oh * ov.sh + ow * ov.sw;
          if (ih0 >= ih1 || iw0 >= iw1) {
            *yo = convert<T>(A(0));
            continue;
          }
          A sum = 0;
          for (int64_t ih = ih0; ih < ih1; ++ih)
            for (int64_t iw = iw0; iw < iw1; ++iw) sum += convert<A>(xp[ih * in.sh + iw * in.sw]);
          const int64_t div = divisor_override ? divisor_override
                              : count_include_pad ? pool_size
                                                  : (ih1 - ih0) * (iw1 - iw0);
          *yo = convert<T>(sum / static_cast<A>(div));
        }
    }
}

}  // namespace

bool avg_pool2d_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[7], Tag::Tensor, "out") ||
      !expect_tag(ctx, args[4], Tag::Bool, "ceil_mode") || !expect_tag(ctx, args[5], Tag::Bool, "count_include_pad"))
    return false;
  const Tensor& x = *args[0]->t;
  Tensor& y = *args[7]->t;
  int64_t k[2], s[2], p[2];
  const int64_t zero[2] = {0, 0};
  if (!linalg::read_int_list(ctx, args[1], "avg_pool2d kernel_size", k, 2, true) ||
      !linalg::read_int_list(ctx, args[2], "avg_pool2d stride", s, 2, true, k) ||
      !linalg::read_int_list(ctx, args[3], "avg_pool2d padding", p, 2, true, zero))
    return false;
  int64_t divisor = 0;
  if (args[6]->tag == Tag::Int) {
    divisor = args[6]->i;
    if (divisor == 0) return ctx.fail("avg_pool2d: divisor_override must not be zero");
  } else if (args[6]->tag != Tag::None) {
    return ctx.fail("avg_pool2d: divisor_override must be an int or None, got %s", tag_name(args[6]->tag));
  }
  if (x.dim != 3 && x.dim != 4) return ctx.fail("avg_pool2d: expected a 3-D or 4-D input, got %d-D", x.dim);
  if (y.dtype != x.dtype) return ctx.fail("avg_pool2d: out dtype %s differs from input %s", dtype_name(y.dtype), dtype_name(x.dtype));
  for (int i = 0; i < 2; ++i) {
    if (k[i] < 1 || s[i] < 1 || p[i] < 0)
      return ctx.fail("avg_pool2d: kernel and stride must be positive and padding non-negative");
    if (p[i] > k[i] / 2)
      return ctx.fail("avg_pool2d: padding %lld should be at most half of kernel size %lld", (long long)p[i], (long long)k[i]);
  }
  const linalg::View4 in = linalg::view4(x);
  const bool ceil_mode = args[4]->b;
  const int64_t oh = linalg::pool_out_size(in.h, k[0], p[0], s[0], 1, ceil_mode);
  const int64_t ow = linalg::pool_out_size(in.w, k[1], p[1], s[1], 1, ceil_mode);
  if (oh < 1 || ow < 1)
    return ctx.fail("avg_pool2d: input %lldx%lld is too small for the window", (long long)in.h, (long long)in.w);
  int64_t sizes[4];
  for (int i = 0; i < x.dim; ++i) sizes[i] = x.sizes[i];
  sizes[x.dim - 2] = oh;
  sizes[x.dim - 1] = ow;
  if (!resize_output(ctx, y, sizes, x.dim)) return false;
  const linalg::View4 ov = linalg::view4(y);
  const bool cip = args[5]->b;
  switch (x.dtype) {
    PTE_FLOAT_CASES(avg_pool_plane<T>(in, x.ptr<T>(), ov, y.ptr<T>(), k, s, p, cip, divisor))
    PTE_INT_CASES(avg_pool_plane<T>(in, x.ptr<T>(), ov, y.ptr<T>(), k, s, p, cip, divisor))
    default:
      return ctx.fail("avg_pool2d: unsupported dtype %s", dtype_name(x.dtype));
  }
  return true;
}

}  // namespace pte
