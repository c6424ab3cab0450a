// aten::pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out)
//   [*, C*r*r, H, W] -> [*, C, H*r, W*r]: out[.., c, h*r+i, w*r+j] = self[.., c*r*r + i*r + j, h, w].
// aten::pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out)
//   the inverse: [*, C, H*r, W*r] -> [*, C*r*r, H, W].
// Both are one strided copy over a view with the channel and spatial dims split in two.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

// Views of the [*, C, r, r, H, W] "small" side (channels split) and the
// [*, C, H*r, W*r] "large" side, both indexed as (lead.., c, i, j, h, w).
static void shuffle_views(const Tensor& small, const Tensor& large, int64_t r, View& vs, View& vl) {
  const int lead = small.dim - 3;
  vs.dim = vl.dim = lead + 5;
  vs.offset = vl.offset = 0;
  for (int d = 0; d < lead; ++d) {
    vs.sizes[d] = vl.sizes[d] = small.sizes[d];
    vs.strides[d] = small.strides[d];
    vl.strides[d] = large.strides[d];
  }
  const int64_t C = large.sizes[lead], H = small.sizes[lead + 1], W = small.sizes[lead + 2];
  const int64_t sizes[5] = {C, r, r, H, W};
  const int64_t sc = small.strides[lead], sh = small.strides[lead + 1], sw = small.strides[lead + 2];
  const int64_t lc = large.strides[lead], lh = large.strides[lead + 1], lw = large.strides[lead + 2];
  const int64_t ss[5] = {sc * r * r, sc * r, sc, sh, sw};
  const int64_t ls[5] = {lc, lh, lw, lh * r, lw * r};
  for (int k = 0; k < 5; ++k) {
    vs.sizes[lead + k] = vl.sizes[lead + k] = sizes[k];
    vs.strides[lead + k] = ss[k];
    vl.strides[lead + k] = ls[k];
  }
}

static bool factor_arg(KernelContext& ctx, const EValue* v, const char* name, const Tensor& in, int64_t& r, const char* op) {
  if (!arg_int(ctx, v, name, r)) return false;
  if (r <= 0) return ctx.fail("%s: %s must be positive, got %lld", op, name, static_cast<long long>(r));
  if (in.dim < 3) return ctx.fail("%s: expects a tensor with at least 3 dims, got %d", op, in.dim);
  return true;
}

bool pixel_shuffle_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  int64_t r;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "out", out) ||
      !factor_arg(ctx, args[1], "upscale_factor", *in, r, "pixel_shuffle"))
    return false;
  const int c = in->dim - 3;
  if (in->sizes[c] % (r * r) != 0)
    return ctx.fail("pixel_shuffle: channels (%lld) must be divisible by upscale_factor^2 (%lld)",
                    static_cast<long long>(in->sizes[c]), static_cast<long long>(r * r));
  int64_t shape[kMaxDims];
  for (int d = 0; d < in->dim; ++d) shape[d] = in->sizes[d];
  shape[c] /= r * r;
  shape[c + 1] *= r;
  shape[c + 2] *= r;
  if (!resize_output(ctx, *out, shape, in->dim)) return false;
  View vs, vl;
  shuffle_views(*in, *out, r, vs, vl);
  return copy_view(ctx, *out, vl, *in, vs);
}

bool pixel_unshuffle_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  int64_t r;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "out", out) ||
      !factor_arg(ctx, args[1], "downscale_factor", *in, r, "pixel_unshuffle"))
    return false;
  const int c = in->dim - 3;
  if (in->sizes[c + 1] % r != 0 || in->sizes[c + 2] % r != 0)
    return ctx.fail("pixel_unshuffle: height (%lld) and width (%lld) must be divisible by downscale_factor (%lld)",
                    static_cast<long long>(in->sizes[c + 1]), static_cast<long long>(in->sizes[c + 2]),
                    static_cast<long long>(r));
  int64_t shape[kMaxDims];
  for (int d = 0; d < in->dim; ++d) shape[d] = in->sizes[d];
  shape[c] *= r * r;
  shape[c + 1] /= r;
  shape[c + 2] /= r;
  if (!resize_output(ctx, *out, shape, in->dim)) return false;
  View vs, vl;
  shuffle_views(*out, *in, r, vs, vl);
  return copy_view(ctx, *out, vs, *in, vl);
}

}  // namespace pte
