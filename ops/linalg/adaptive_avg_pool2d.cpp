// aten::_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out) -> Tensor(a!)
// Input (N,C,H,W) or (C,H,W), any dim order. Output cell (oh, ow) averages rows
// [floor(oh*H/OH), ceil((oh+1)*H/OH)) and the same for columns.
#include "ops/linalg/linalg_util.h"
#include "ops/util.h"

namespace pte {

namespace {

inline int64_t start_index(int64_t o, int64_t osz, int64_t isz) { return (o * isz) / osz; }
inline int64_t end_index(int64_t o, int64_t osz, int64_t isz) { return ((o + 1) * isz + osz - 1) / osz; }

template <class T>
void adaptive_avg_plane(const linalg::View4& in, const T* x, const linalg::View4& ov, T* y) {
  using A = linalg::Acc<T>;
  for (int64_t n = 0; n < in.n; ++n)
    for (int64_t c = 0; c < in.c; ++c) {
      const T* xp = x + n * in.sn + c * in.sc;
      for (int64_t oh = 0; oh < ov.h; ++oh) {
        const int64_t ih0 = start_index(oh, ov.h, in.h), ih1 = end_index(oh, ov.h, in.h);
        for (int64_t ow = 0; ow < ov.w; ++ow) {
          const int64_t iw0 = start_index(ow, ov.w, in.w), iw1 = end_index(ow, ov.w, in.w);
          A sum = 0;
          for (int64_t ih = ih0; ih < ih1; ++ih)
            for (int64_t iw = iw0; iw < iw1; ++iw) sum += convert<A>(xp[ih * in.sh + iw * in.sw]);
          y[n * ov.sn + c * ov.sc + oh * ov.sh + ow * ov.sw] = convert<T>(sum / static_cast<A>((ih1 - ih0) * (iw1 - iw0)));
        }
      }
    }
}

}  // namespace

bool adaptive_avg_pool2d_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Tensor, "out")) return false;
  const Tensor& x = *args[0]->t;
  Tensor& y = *args[2]->t;
  int64_t os[2];
  if (!linalg::read_int_list(ctx, args[1], "adaptive_avg_pool2d output_size", os, 2, true)) return false;
  if (x.dim != 3 && x.dim != 4) return ctx.fail("adaptive_avg_pool2d: expected a 3-D or 4-D input, got %d-D", x.dim);
  if (y.dtype != x.dtype)
    return ctx.fail("adaptive_avg_pool2d: out dtype %s differs from input %s", dtype_name(y.dtype), dtype_name(x.dtype));
  if (os[0] < 1 || os[1] < 1) return ctx.fail("adaptive_avg_pool2d: output size must be positive");
  if (x.sizes[x.dim - 1] == 0 || x.sizes[x.dim - 2] == 0) return ctx.fail("adaptive_avg_pool2d: empty input plane");
  int64_t sizes[4];
  for (int i = 0; i < x.dim; ++i) sizes[i] = x.sizes[i];
  sizes[x.dim - 2] = os[0];
  sizes[x.dim - 1] = os[1];
  if (!resize_output(ctx, y, sizes, x.dim)) return false;
  const linalg::View4 in = linalg::view4(x), ov = linalg::view4(y);
  switch (x.dtype) {
    PTE_FLOAT_CASES(adaptive_avg_plane<T>(in, x.ptr<T>(), ov, y.ptr<T>()))
    PTE_CASE(Int64, int64_t, adaptive_avg_plane<T>(in, x.ptr<T>(), ov, y.ptr<T>()))
    default:
      return ctx.fail("adaptive_avg_pool2d: unsupported dtype %s", dtype_name(x.dtype));
  }
  return true;
}

}  // namespace pte
