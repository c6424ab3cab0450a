// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) -> Tensor(a!)
// out[..., N] = input[..., K] @ weight[N, K]^T (+ bias[N]); input has any rank >= 1.
// The weight is read transposed in place (no copy); M = prod(input.shape[:-1]).
#include "ops/linalg/linalg_util.h"
#include "ops/linalg/matmul.h"
#include "ops/util.h"

namespace pte {

namespace {

// Row stride when dims [0, nlead) of t collapse into one row index (size-1 dims
// are free); false otherwise.
bool collapse_rows(const Tensor& t, int nlead, int64_t* rs) {
  int64_t expect = -1;  // stride the next outer dim must have
  *rs = 0;
  for (int d = nlead - 1; d >= 0; --d) {
    if (t.sizes[d] == 1) continue;
    if (expect < 0)
      *rs = t.strides[d];
    else if (t.strides[d] != expect)
      return false;
    expect = t.strides[d] * t.sizes[d];
  }
  return true;
}

// Argument kinds, ranks and dtypes (input, weight, out, and bias when present).
bool linear_check(KernelContext& ctx, EValue** args) {
  const Tensor* bias = nullptr;
  if (!linalg::optional_tensor(ctx, args[2], "bias", &bias)) return false;
  static const int with_bias[4] = {0, 1, 3, 2}, without[3] = {0, 1, 3};
  static const char* const names[4] = {"input", "weight", "out", "bias"};
  return linalg::prepare_matmul(ctx, args, bias ? with_bias : without, names, bias ? 4 : 3, -1, 2, "linear");
}

// After linear_check (per call, or once at load).
bool linear_checked_out(KernelContext& ctx, EValue** args) {
  const Tensor* bias = args[2]->tag == Tag::Tensor ? args[2]->t : nullptr;
  const Tensor& x = *args[0]->t;
  const Tensor& w = *args[1]->t;
  Tensor& out = *args[3]->t;
  const int64_t K = x.sizes[x.dim - 1], N = w.sizes[0];
  if (w.sizes[1] != K)
    return ctx.fail("linear: input features %lld do not match weight [%lld,%lld]", (long long)K, (long long)w.sizes[0],
                    (long long)w.sizes[1]);
  if (bias && !(bias->numel() == N || bias->numel() == 1) )
    return ctx.fail("linear: bias has %lld elements, expected %lld", (long long)bias->numel(), (long long)N);
  int64_t sizes[kMaxDims];
  for (int i = 0; i < x.dim - 1; ++i) sizes[i] = x.sizes[i];
  sizes[x.dim - 1] = N;
  if (!resize_output(ctx, out, sizes, x.dim)) return false;

  const int nlead = x.dim - 1;
  int64_t M = 1;
  for (int i = 0; i < nlead; ++i) M *= x.sizes[i];
  linalg::MatmulDesc d;
  d.N = N, d.K = K;
  d.b = w.data, d.b_rs = w.strides[1], d.b_cs = w.strides[0];
  if (bias) {
    d.bias = bias->data;
    d.bias_cs = bias->numel() == 1 ? 0 : bias->strides[bias->dim - 1];
  }
  d.a = x.data, d.a_cs = x.strides[x.dim - 1];
  d.c = out.data, d.c_cs = out.strides[out.dim - 1];
  int64_t xrs, ors;
  if (collapse_rows(x, nlead, &xrs) && collapse_rows(out, nlead, &ors)) {
    d.M = M, d.a_rs = xrs, d.c_rs = ors;
    return linalg::run_matmul(ctx, out.dtype, d, "linear");
  }
  if (nlead == 2) {  // e.g. a permuted [B, S, K] input: batch over dim 0
    d.batch = x.sizes[0], d.M = x.sizes[1];
    d.a_bs = x.strides[0], d.a_rs = x.strides[1];
    d.c_bs = out.strides[0], d.c_rs = out.strides[1];
    return linalg::run_matmul(ctx, out.dtype, d, "linear");
  }
  // Any other layout: one row at a time.
  const size_t esize = dtype_size(out.dtype);
  d.M = 1;
  for (int64_t r = 0; r < M; ++r) {
    int64_t xo = 0, oo = 0, rem = r;
    for (int dd = nlead - 1; dd >= 0; --dd) {
      int64_t c = rem % x.sizes[dd];
      rem /= x.sizes[dd];
      xo += c * x.strides[dd];
      oo += c * out.strides[dd];
    }
    d.a = static_cast<const uint8_t*>(x.data) + xo * esize;
    d.c = static_cast<uint8_t*>(out.data) + oo * esize;
    if (!linalg::run_matmul(ctx, out.dtype, d, "linear")) return false;
  }
  return true;
}

}  // namespace

bool linear_out(KernelContext& ctx, EValue** args) { return linear_check(ctx, args) && linear_checked_out(ctx, args); }

// load-time step: kinds, ranks and dtypes once; then only shapes are checked per call
KernelFn linear_out_prepare(KernelContext& ctx, EValue** args) { return linear_check(ctx, args) ? linear_checked_out : nullptr; }

}  // namespace pte
