// aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
// aten::_unsafe_view.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
//   out = self reshaped to `size` (one entry may be -1: inferred), elements in row-major
//   logical order.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

static bool reshape_out(KernelContext& ctx, EValue** args, const char* op) {
  Tensor *in, *out;
  const int64_t* size;
  size_t n;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "size", size, n) ||
      !arg_tensor(ctx, args[2], "out", out))
    return false;
  if (n > static_cast<size_t>(kMaxDims)) return ctx.fail("%s: %zu dims is more than %d", op, n, kMaxDims);
  int64_t shape[kMaxDims];
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < n; ++i) {
    shape[i] = size[i];
    if (size[i] == -1) {
      if (infer >= 0) return ctx.fail("%s: only one dimension can be inferred (-1)", op);
      infer = static_cast<int>(i);
    } else if (size[i] < 0) {
      return ctx.fail("%s: invalid size %lld", op, static_cast<long long>(size[i]));
    } else {
      known *= size[i];
    }
  }
  const int64_t numel = in->numel();
  char b1[160], b2[160];
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      return ctx.fail("%s: shape %s is invalid for input of size %lld", op, shape_string(size, (int32_t)n, b1, sizeof b1),
                      static_cast<long long>(numel));
    shape[infer] = numel / known;
  } else if (known != numel) {
    return ctx.fail("%s: shape %s is invalid for input of %s (%lld elements)", op, shape_string(size, (int32_t)n, b1, sizeof b1),
                    shape_string(in->sizes, in->dim, b2, sizeof b2), static_cast<long long>(numel));
  }
  if (!resize_output(ctx, *out, shape, static_cast<int32_t>(n))) return false;
  return copy_reshape(ctx, *out, *in);
}

bool view_copy_out(KernelContext& ctx, EValue** args) { return reshape_out(ctx, args, "view_copy"); }
bool unsafe_view_out(KernelContext& ctx, EValue** args) { return reshape_out(ctx, args, "_unsafe_view"); }

}  // namespace pte
