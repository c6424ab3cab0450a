// aten::as_strided_copy.out(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None,
//                           *, Tensor(a!) out)
//   out[i..] = storage[storage_offset + sum(i_k * stride_k)] where storage is self's memory
//   (in its physical order). Every element read must lie inside self.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool as_strided_copy_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  const int64_t *size, *stride;
  size_t ns, nt;
  int64_t offset = 0;
  bool has_offset;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "size", size, ns) ||
      !arg_int_list(ctx, args[2], "stride", stride, nt) ||
      !arg_opt_int(ctx, args[3], "storage_offset", offset, has_offset) || !arg_tensor(ctx, args[4], "out", out))
    return false;
  if (!has_offset) offset = 0;
  if (ns != nt) return ctx.fail("as_strided_copy: %zu sizes but %zu strides", ns, nt);
  if (ns > static_cast<size_t>(kMaxDims)) return ctx.fail("as_strided_copy: %zu dims is more than %d", ns, kMaxDims);
  if (offset < 0) return ctx.fail("as_strided_copy: storage_offset must be >= 0, got %lld", static_cast<long long>(offset));
  View sv;
  sv.dim = static_cast<int32_t>(ns);
  sv.offset = offset;
  int64_t numel = 1, last = offset;
  for (size_t k = 0; k < ns; ++k) {
    if (size[k] < 0) return ctx.fail("as_strided_copy: negative size %lld", static_cast<long long>(size[k]));
    if (stride[k] < 0) return ctx.fail("as_strided_copy: negative strides are not supported (%lld)", static_cast<long long>(stride[k]));
    sv.sizes[k] = size[k];
    sv.strides[k] = stride[k];
    numel *= size[k];
    if (size[k] > 0) last += (size[k] - 1) * stride[k];
  }
  if (numel > 0 && last >= in->numel())
    return ctx.fail("as_strided_copy: the view reaches element %lld but self has only %lld", static_cast<long long>(last),
                    static_cast<long long>(in->numel()));
  if (!resize_output(ctx, *out, sv.sizes, sv.dim)) return false;
  return copy_view(ctx, *out, view_of(*out), *in, sv);
}

}  // namespace pte
