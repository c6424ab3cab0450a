// aten::glu.out(Tensor self, int dim=-1, *, Tensor(a!) out)
//
// Splits self in two halves a, b along dim (its size must be even) and writes
// a * sigmoid(b); out has half the size along dim. Floating dtypes.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

struct Glu {
  template <class C>
  C operator()(C a, C b) const {
    C s;
    if (b >= C(0)) {
      s = C(1) / (C(1) + std::exp(-b));
    } else {
      const C e = std::exp(b);
      s = e / (C(1) + e);
    }
    return a * s;
  }
};

}  // namespace

// args: self, dim, out, return
bool glu_out(KernelContext& ctx, EValue** args) {
  Tensor* x = ew::tensor_arg(ctx, args[0], "self");
  if (!x || !expect_tag(ctx, args[1], Tag::Int, "dim")) return false;
  Tensor* out = ew::tensor_arg(ctx, args[2], "out");
  if (!out) return false;
  if (x->dim == 0) return ctx.fail("glu does not support scalars because halving size must be even");
  int64_t d = args[1]->i;
  if (!normalize_dim(d, x->dim)) return ctx.fail("dim %lld out of range for a %d-d tensor", static_cast<long long>(args[1]->i), x->dim);
  if (x->sizes[d] % 2 != 0)
    return ctx.fail("halving dimension must be even, but dimension %lld is size %lld", static_cast<long long>(d),
                    static_cast<long long>(x->sizes[d]));
  if (!ew::is_floating(x->dtype)) return ctx.fail("glu supports floating dtypes only, got %s", dtype_name(x->dtype));
  if (!ew::check_cast(ctx, x->dtype, *out)) return false;
  int64_t sizes[kMaxDims];
  for (int i = 0; i < x->dim; ++i) sizes[i] = x->sizes[i];
  const int64_t half = x->sizes[d] / 2;
  sizes[d] = half;
  if (!resize_output(ctx, *out, sizes, x->dim)) return false;
  ew::Operand a = ew::operand(*x), b = ew::operand(*x);
  a.sizes[d] = half;
  b.sizes[d] = half;
  if (x->data) b.data = static_cast<const char*>(x->data) + static_cast<size_t>(half * x->strides[d]) * dtype_size(x->dtype);
  const ew::Operand in[2] = {a, b};
  Glu op;
  if (x->dtype == DType::Double) return ew::map<double>(ctx, *out, in, op);
  return ew::map<float>(ctx, *out, in, op);
}

}  // namespace pte
