// aten::masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
// aten::masked_fill.Tensor_out(Tensor self, Tensor mask, Tensor value, *, Tensor(a!) out)
//
// out = mask ? value : self, with self and the bool mask broadcast together; value (a
// Scalar, or a zero-dim tensor) is cast to self's dtype.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct MaskedFill {
  C value;
  C operator()(C a, C m) const { return m != C(0) ? value : a; }
};

// Checks self and mask, resizes out; value is read by the caller.
bool masked_setup(KernelContext& ctx, EValue** args, Tensor*& x, Tensor*& out, ew::Operand (&in)[2]) {
  x = ew::tensor_arg(ctx, args[0], "self");
  Tensor* mask = x ? ew::tensor_arg(ctx, args[1], "mask") : nullptr;
  out = mask ? ew::tensor_arg(ctx, args[3], "out") : nullptr;
  if (!out) return false;
  if (mask->dtype != DType::Bool)
    return ctx.fail("masked_fill only supports boolean masks, got mask with dtype %s", dtype_name(mask->dtype));
  if (!ew::is_known(x->dtype)) return ctx.fail("unsupported dtype %s", dtype_name(x->dtype));
  const Tensor* ts[2] = {x, mask};
  int64_t sizes[kMaxDims];
  int32_t dim;
  if (!ew::broadcast_all(ctx, ts, 2, sizes, &dim) || !resize_output(ctx, *out, sizes, dim)) return false;
  if (!ew::check_cast(ctx, x->dtype, *out)) return false;
  in[0] = ew::operand(*x);
  in[1] = ew::operand(*mask);
  return true;
}

}  // namespace

// args: self, mask, value (Scalar), out, return
bool masked_fill_scalar_out(KernelContext& ctx, EValue** args) {
  Tensor *x, *out;
  ew::Operand in[2];
  if (!masked_setup(ctx, args, x, out, in) || !ew::scalar_arg(ctx, args[2], "value")) return false;
  return ew::with_compute(ctx, x->dtype, [&](auto c) {
    using C = decltype(c);
    MaskedFill<C> op{ew::scalar_in<C>(*args[2], x->dtype)};
    return ew::map<C>(ctx, *out, in, op);
  });
}

// args: self, mask, value (zero-dim Tensor), out, return
bool masked_fill_tensor_out(KernelContext& ctx, EValue** args) {
  Tensor *x, *out;
  ew::Operand in[2];
  if (!masked_setup(ctx, args, x, out, in)) return false;
  Tensor* v = ew::tensor_arg(ctx, args[2], "value");
  if (!v) return false;
  if (v->dim != 0 || !v->data || !ew::is_known(v->dtype))
    return ctx.fail("masked_fill only supports a 0-dimensional value tensor, got one with %d dimension(s)", v->dim);
  const EValue value = ew::element_scalar(*v);
  return ew::with_compute(ctx, x->dtype, [&](auto c) {
    using C = decltype(c);
    MaskedFill<C> op{ew::scalar_in<C>(value, x->dtype)};
    return ew::map<C>(ctx, *out, in, op);
  });
}

}  // namespace pte
