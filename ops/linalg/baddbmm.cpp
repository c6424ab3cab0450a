// aten::baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1,
//                   Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
// out[B,M,N] = beta * self + alpha * (batch1[B,M,K] @ batch2[B,K,N]); self broadcasts.
#include "ops/linalg/matmul.h"
#include "ops/util.h"

namespace pte {

bool baddbmm_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Tensor, "batch1") ||
      !expect_tag(ctx, args[2], Tag::Tensor, "batch2") || !expect_tag(ctx, args[5], Tag::Tensor, "out"))
    return false;
  const Tensor& self = *args[0]->t;
  const Tensor& a = *args[1]->t;
  const Tensor& b = *args[2]->t;
  Tensor& out = *args[5]->t;
  if (a.dim != 3 || b.dim != 3) return ctx.fail("baddbmm: expected 3-D batch1/batch2, got %d-D and %d-D", a.dim, b.dim);
  if (a.sizes[0] != b.sizes[0] || a.sizes[2] != b.sizes[1])
    return ctx.fail("baddbmm: shapes [%lld,%lld,%lld] and [%lld,%lld,%lld] cannot be multiplied",
                    (long long)a.sizes[0], (long long)a.sizes[1], (long long)a.sizes[2], (long long)b.sizes[0],
                    (long long)b.sizes[1], (long long)b.sizes[2]);
  if (a.dtype != b.dtype || a.dtype != out.dtype || self.dtype != out.dtype)
    return ctx.fail("baddbmm: dtypes differ (self %s, batch1 %s, batch2 %s, out %s)", dtype_name(self.dtype),
                    dtype_name(a.dtype), dtype_name(b.dtype), dtype_name(out.dtype));
  linalg::MatmulDesc d;
  d.batch = a.sizes[0], d.M = a.sizes[1], d.N = b.sizes[2], d.K = a.sizes[2];
  if (!linalg::bias_strides(self, 3, d.batch, d.M, d.N, &d.bias_bs, &d.bias_rs, &d.bias_cs))
    return ctx.fail("baddbmm: self of rank %d does not broadcast to [%lld,%lld,%lld]", self.dim, (long long)d.batch,
                    (long long)d.M, (long long)d.N);
  const int64_t sizes[3] = {d.batch, d.M, d.N};
  if (!resize_output(ctx, out, sizes, 3)) return false;
  d.beta = args[3]->to_double();
  d.alpha = args[4]->to_double();
  d.bias = self.data;
  d.a = a.data, d.a_bs = a.strides[0], d.a_rs = a.strides[1], d.a_cs = a.strides[2];
  d.b = b.data, d.b_bs = b.strides[0], d.b_rs = b.strides[1], d.b_cs = b.strides[2];
  d.c = out.data, d.c_bs = out.strides[0], d.c_rs = out.strides[1], d.c_cs = out.strides[2];
  return linalg::run_matmul(ctx, out.dtype, d, "baddbmm");
}

}  // namespace pte
