// aten::repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None, Tensor(a!) out)
//   out = [0]*repeats[0] ++ [1]*repeats[1] ++ ...: the index form that
//   x.repeat_interleave(r, dim) lowers to (followed by index_select). Its length is the
//   sum of repeats (data-dependent unless output_size is given).
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool repeat_interleave_tensor_out(KernelContext& ctx, EValue** args) {
  Tensor *rep, *out;
  int64_t output_size = -1;
  bool has_size;
  if (!arg_tensor(ctx, args[0], "repeats", rep) || !arg_opt_int(ctx, args[1], "output_size", output_size, has_size) ||
      !arg_tensor(ctx, args[2], "out", out))
    return false;
  if (!is_index_dtype(rep->dtype)) return ctx.fail("repeat_interleave: repeats must be int64 or int32, got %s", dtype_name(rep->dtype));
  if (rep->dim != 1) return ctx.fail("repeat_interleave: repeats must be a 1-d tensor, got %d dims", rep->dim);
  if (out->dtype != rep->dtype) return ctx.fail("repeat_interleave: out dtype must match repeats dtype");
  const int64_t n = rep->sizes[0], rs = rep->strides[0];
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = read_index(*rep, i * rs);
    if (r < 0) return ctx.fail("repeat_interleave: repeats can not be negative (repeats[%lld] = %lld)", static_cast<long long>(i), static_cast<long long>(r));
    total += r;
  }
  if (has_size && output_size != total)
    return ctx.fail("repeat_interleave: output_size %lld does not match the sum of repeats %lld", static_cast<long long>(output_size),
                    static_cast<long long>(total));
  if (!resize_output(ctx, *out, &total, 1)) return false;
  const int64_t os = out->strides[0];
  int64_t w = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = read_index(*rep, i * rs);
    for (int64_t k = 0; k < r; ++k, ++w) {
      if (out->dtype == DType::Int64) static_cast<int64_t*>(out->data)[w * os] = i;
      else static_cast<int32_t*>(out->data)[w * os] = static_cast<int32_t>(i);
    }
  }
  return true;
}

}  // namespace pte
