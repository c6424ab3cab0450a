// aten::abs.out on a complex tensor: out = |self| (hypot of the real and imaginary parts),
// complex64 -> float32, complex128 -> float64, as ATen. Reached from abs_out
// (ops/elementwise/unary_same.cpp) when the input is complex.
#include <cmath>
#include <complex>

#include "ops/spectral/spectral.h"
#include "ops/util.h"

namespace pte {

namespace {
template <class R>
void run(const Tensor& in, Tensor& out) {
  const std::complex<R>* s = in.ptr<const std::complex<R>>();
  R* d = out.ptr<R>();
  const bool contiguous = in.contiguous_order() && out.contiguous_order();
  for (int64_t i = 0, n = in.numel(); i < n; ++i) {
    const std::complex<R>& v = s[contiguous ? i : strided_offset(in, i)];
    d[contiguous ? i : strided_offset(out, i)] = std::hypot(v.real(), v.imag());
  }
}
}  // namespace

bool is_complex(DType t) { return t == DType::ComplexFloat || t == DType::ComplexDouble || t == DType::ComplexHalf; }

bool abs_complex_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Tensor, "out")) return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[1]->t;
  DType want = in.dtype == DType::ComplexFloat ? DType::Float : in.dtype == DType::ComplexDouble ? DType::Double : in.dtype;
  if (want == in.dtype) return ctx.fail("abs: %s input is not supported", dtype_name(in.dtype));
  if (out.dtype != want) return ctx.fail("abs: out is %s, expected %s for a %s input", dtype_name(out.dtype), dtype_name(want), dtype_name(in.dtype));
  if (!resize_output_like(ctx, out, in)) return false;
  if (want == DType::Float) run<float>(in, out);
  else run<double>(in, out);
  return true;
}

}  // namespace pte
