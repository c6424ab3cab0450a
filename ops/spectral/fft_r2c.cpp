// aten::_fft_r2c.out(Tensor self, int[] dim, int normalization, bool onesided, *, Tensor(a!) out)
//   The forward DFT of a real tensor over the dims listed (torch.fft.rfftn / stft's
//   transform): the last listed dim is transformed from real input, keeping n/2 + 1 bins
//   when onesided (all n otherwise); every other listed dim then gets a complex forward
//   transform. normalization as ATen's fft_norm_mode: 0 none, 1 1/sqrt(n), 2 1/n, where
//   n is the product of the transformed sizes. float32 -> complex64, float64 -> complex128.
//   Scratch: one FFT plan and one line buffer at a time (any length; fft.h).
#include <cmath>
#include <complex>

#include "ops/spectral/fft.h"
#include "ops/util.h"

namespace pte {

namespace {

using spectral::cd;

// Element offset of line `line` (all dims but d, in order) of a tensor with sizes/strides.
int64_t line_offset(const Tensor& t, int d, int64_t line) {
  int64_t off = 0;
  for (int k = t.dim - 1; k >= 0; --k) {
    if (k == d) continue;
    off += (line % t.sizes[k]) * t.strides[k];
    line /= t.sizes[k];
  }
  return off;
}

template <class R>
bool run(KernelContext& ctx, const Tensor& in, Tensor& out, const int64_t* dims, size_t nd, int norm,
         bool /*onesided: already in out's sizes*/) {
  using C = std::complex<R>;
  const R* src = in.ptr<const R>();
  C* dst = out.ptr<C>();
  const int last = static_cast<int>(dims[nd - 1]);
  double total = 1;
  for (size_t k = 0; k < nd; ++k) total *= static_cast<double>(in.sizes[dims[k]]);
  if (out.numel() == 0) return true;
  size_t need = 0;  // one plan + one line at a time, reusing the same scratch
  for (size_t k = 0; k < nd; ++k) {
    int64_t n = in.sizes[dims[k]];
    size_t e = spectral::FftPlan::workspace_elems(n) + static_cast<size_t>(n);
    if (e > need) need = e;
  }
  cd* scratch = static_cast<cd*>(ctx.scratch(need * sizeof(cd), 64));
  if (!scratch) return ctx.fail("_fft_r2c: a transform of this length needs more scratch memory than the method has");
  // pass 1: real lines along `last`
  {
    const int64_t n = in.sizes[last], keep = out.sizes[last];
    const int64_t lines = in.numel() / n;
    size_t ws = spectral::FftPlan::workspace_elems(n);
    cd* work = scratch;
    spectral::FftPlan plan;
    plan.init(n, work);
    cd* x = work + ws;
    for (int64_t l = 0; l < lines; ++l) {
      const R* s = src + line_offset(in, last, l);
      for (int64_t j = 0; j < n; ++j) x[j] = cd(static_cast<double>(s[j * in.strides[last]]), 0.0);
      plan.forward(x);
      C* o = dst + line_offset(out, last, l);
      for (int64_t j = 0; j < keep; ++j) o[j * out.strides[last]] = C(static_cast<R>(x[j].real()), static_cast<R>(x[j].imag()));
    }
  }
  // pass 2: complex lines along the other listed dims, in place in `out`
  for (size_t k = 0; k + 1 < nd; ++k) {
    const int d = static_cast<int>(dims[k]);
    const int64_t n = out.sizes[d];
    const int64_t lines = out.numel() / n;
    size_t ws = spectral::FftPlan::workspace_elems(n);
    cd* work = scratch;
    spectral::FftPlan plan;
    plan.init(n, work);
    cd* x = work + ws;
    for (int64_t l = 0; l < lines; ++l) {
      C* o = dst + line_offset(out, d, l);
      for (int64_t j = 0; j < n; ++j) x[j] = cd(o[j * out.strides[d]].real(), o[j * out.strides[d]].imag());
      plan.forward(x);
      for (int64_t j = 0; j < n; ++j) o[j * out.strides[d]] = C(static_cast<R>(x[j].real()), static_cast<R>(x[j].imag()));
    }
  }
  if (norm != 0) {
    R scale = static_cast<R>(norm == 1 ? 1.0 / std::sqrt(total) : 1.0 / total);
    for (int64_t i = 0, n = out.numel(); i < n; ++i) dst[strided_offset(out, i)] *= scale;
  }
  return true;
}

}  // namespace

bool fft_r2c_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::IntList, "dim") ||
      !expect_tag(ctx, args[2], Tag::Int, "normalization") || !expect_tag(ctx, args[3], Tag::Bool, "onesided") ||
      !expect_tag(ctx, args[4], Tag::Tensor, "out"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& out = *args[4]->t;
  size_t nd = 0;
  const int64_t* raw = args[1]->int_list(&nd);
  const int64_t norm = args[2]->i;
  const bool onesided = args[3]->b;
  if (nd == 0 || nd > static_cast<size_t>(in.dim)) return ctx.fail("_fft_r2c: %zu dims for a %d-d input", nd, in.dim);
  if (norm < 0 || norm > 2) return ctx.fail("_fft_r2c: normalization %lld is not 0, 1 or 2", (long long)norm);
  int64_t dims[kMaxDims];
  bool seen[kMaxDims] = {};
  for (size_t k = 0; k < nd; ++k) {
    int64_t d = raw[k];
    if (!normalize_dim(d, in.dim) || in.dim == 0) return ctx.fail("_fft_r2c: dim %lld out of range for a %d-d input", (long long)raw[k], in.dim);
    if (seen[d]) return ctx.fail("_fft_r2c: dim %lld repeated", (long long)d);
    seen[d] = true;
    dims[k] = d;
  }
  DType want;
  if (in.dtype == DType::Float) want = DType::ComplexFloat;
  else if (in.dtype == DType::Double) want = DType::ComplexDouble;
  else return ctx.fail("_fft_r2c: input is %s, expected float32 or float64", dtype_name(in.dtype));
  if (out.dtype != want) return ctx.fail("_fft_r2c: out is %s, expected %s", dtype_name(out.dtype), dtype_name(want));
  for (size_t k = 0; k < nd; ++k)
    if (in.sizes[dims[k]] == 0) return ctx.fail("_fft_r2c: transform over an empty dim %lld", (long long)dims[k]);
  int64_t sizes[kMaxDims];
  for (int k = 0; k < in.dim; ++k) sizes[k] = in.sizes[k];
  const int last = static_cast<int>(dims[nd - 1]);
  if (onesided) sizes[last] = in.sizes[last] / 2 + 1;
  if (!resize_output(ctx, out, sizes, in.dim)) return false;
  if (in.dtype == DType::Float) return run<float>(ctx, in, out, dims, nd, static_cast<int>(norm), onesided);
  return run<double>(ctx, in, out, dims, nd, static_cast<int>(norm), onesided);
}

}  // namespace pte
