// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//                 Tensor(a!) out) -> Tensor(a!)
// out[M,N] = beta * self + alpha * (mat1[M,K] @ mat2[K,N]); self broadcasts to [M,N].
// beta == 0 ignores self entirely (NaN/inf in self do not propagate), as in torch.
#include "ops/linalg/matmul.h"
#include "ops/util.h"

namespace pte {

bool addmm_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Tensor, "mat1") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "mat2") || !expect_tag(ctx, args[5], Tag::Tensor, "out"))
    return false;
  const Tensor& self = *args[0]->t;
  const Tensor& a = *args[1]->t;
  const Tensor& b = *args[2]->t;
  Tensor& out = *args[5]->t;
  if (a.dim != 2 || b.dim != 2) return ctx.fail("addmm: expected 2-D mat1/mat2, got %d-D and %d-D", a.dim, b.dim);
  if (a.sizes[1] != b.sizes[0])
    return ctx.fail("addmm: shapes [%lld,%lld] and [%lld,%lld] cannot be multiplied", (long long)a.sizes[0],
                    (long long)a.sizes[1], (long long)b.sizes[0], (long long)b.sizes[1]);
  if (a.dtype != b.dtype || a.dtype != out.dtype || self.dtype != out.dtype)
    return ctx.fail("addmm: dtypes differ (self %s, mat1 %s, mat2 %s, out %s)", dtype_name(self.dtype),
                    dtype_name(a.dtype), dtype_name(b.dtype), dtype_name(out.dtype));
  linalg::MatmulDesc d;
  d.M = a.sizes[0], d.N = b.sizes[1], d.K = a.sizes[1];
  if (!linalg::bias_strides(self, 2, 1, d.M, d.N, &d.bias_bs, &d.bias_rs, &d.bias_cs))
    return ctx.fail("addmm: self of rank %d (last size %lld) does not broadcast to [%lld,%lld]", self.dim,
                    (long long)(self.dim ? self.sizes[self.dim - 1] : 1), (long long)d.M, (long long)d.N);
  const int64_t sizes[2] = {d.M, d.N};
  if (!resize_output(ctx, out, sizes, 2)) return false;
  d.beta = args[3]->to_double();
  d.alpha = args[4]->to_double();
  d.bias = self.data;
  d.a = a.data, d.a_rs = a.strides[0], d.a_cs = a.strides[1];
  d.b = b.data, d.b_rs = b.strides[0], d.b_cs = b.strides[1];
  d.c = out.data, d.c_rs = out.strides[0], d.c_cs = out.strides[1];
  return linalg::run_matmul(ctx, out.dtype, d, "addmm");
}

}  // namespace pte
