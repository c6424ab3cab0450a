#include "ops/linalg/upsample.h"

#include "ops/linalg/linalg_util.h"

namespace pte::linalg {

static bool check_input(KernelContext& ctx, const char* op, const Tensor& in) {
  if (in.dim != 4) return ctx.fail("%s: expected a 4-D (N,C,H,W) input, got %d-D", op, in.dim);
  if (in.sizes[2] < 1 || in.sizes[3] < 1) return ctx.fail("%s: empty input plane", op);
  return true;
}

bool upsample_size_vec(KernelContext& ctx, const char* op, const Tensor& in, const EValue* output_size,
                       const EValue* scale_factors, UpsampleSize* s) {
  if (!check_input(ctx, op, in)) return false;
  const bool has_size = output_size && output_size->tag == Tag::IntList;
  const bool has_scales = scale_factors && scale_factors->tag == Tag::DoubleList;
  if (has_size == has_scales) return ctx.fail("%s: give exactly one of output_size and scale_factors", op);
  if (has_size) {
    int64_t os[2];
    if (!read_int_list(ctx, output_size, op, os, 2, false)) return false;
    s->oh = os[0], s->ow = os[1];
  } else {
    if (scale_factors->dlist.size != 2) return ctx.fail("%s: expected 2 scale factors, got %zu", op, scale_factors->dlist.size);
    s->scale_h = scale_factors->dlist.data[0], s->scale_w = scale_factors->dlist.data[1];
    s->has_scale_h = s->has_scale_w = true;
    s->oh = static_cast<int64_t>(static_cast<double>(in.sizes[2]) * s->scale_h);
    s->ow = static_cast<int64_t>(static_cast<double>(in.sizes[3]) * s->scale_w);
  }
  if (s->oh < 1 || s->ow < 1) return ctx.fail("%s: output size %lldx%lld must be positive", op, (long long)s->oh, (long long)s->ow);
  return true;
}

bool upsample_size_out(KernelContext& ctx, const char* op, const Tensor& in, const EValue* output_size,
                       const EValue* scales_h, const EValue* scales_w, UpsampleSize* s) {
  if (!check_input(ctx, op, in)) return false;
  int64_t os[2];
  if (!read_int_list(ctx, output_size, op, os, 2, false)) return false;
  s->oh = os[0], s->ow = os[1];
  if (scales_h && scales_h->tag == Tag::Double) s->has_scale_h = true, s->scale_h = scales_h->d;
  if (scales_w && scales_w->tag == Tag::Double) s->has_scale_w = true, s->scale_w = scales_w->d;
  if (s->oh < 1 || s->ow < 1) return ctx.fail("%s: output size %lldx%lld must be positive", op, (long long)s->oh, (long long)s->ow);
  return true;
}

}  // namespace pte::linalg
