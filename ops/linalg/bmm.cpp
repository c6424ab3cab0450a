// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
// out[B,M,N] = self[B,M,K] @ mat2[B,K,N], one product per batch entry.
#include "ops/linalg/linalg_util.h"
#include "ops/linalg/matmul.h"
#include "ops/util.h"

namespace pte {

namespace {

const int kArgs[3] = {0, 1, 2};
const char* const kNames[3] = {"self", "mat2", "out"};

// After the argument kinds, ranks and dtypes are checked (by bmm_out or at load).
bool bmm_checked_out(KernelContext& ctx, EValue** args) {
  const Tensor& a = *args[0]->t;
  const Tensor& b = *args[1]->t;
  Tensor& out = *args[2]->t;
  if (a.sizes[0] != b.sizes[0] || a.sizes[2] != b.sizes[1])
    return ctx.fail("bmm: shapes [%lld,%lld,%lld] and [%lld,%lld,%lld] cannot be multiplied", (long long)a.sizes[0],
                    (long long)a.sizes[1], (long long)a.sizes[2], (long long)b.sizes[0], (long long)b.sizes[1],
                    (long long)b.sizes[2]);
  const int64_t sizes[3] = {a.sizes[0], a.sizes[1], b.sizes[2]};
  if (!resize_output(ctx, out, sizes, 3)) return false;
  linalg::MatmulDesc d;
  d.batch = a.sizes[0], d.M = a.sizes[1], d.N = b.sizes[2], d.K = a.sizes[2];
  d.a = a.data, d.a_bs = a.strides[0], d.a_rs = a.strides[1], d.a_cs = a.strides[2];
  d.b = b.data, d.b_bs = b.strides[0], d.b_rs = b.strides[1], d.b_cs = b.strides[2];
  d.c = out.data, d.c_bs = out.strides[0], d.c_rs = out.strides[1], d.c_cs = out.strides[2];
  return linalg::run_matmul(ctx, a.dtype, d, "bmm");
}

}  // namespace

bool bmm_out(KernelContext& ctx, EValue** args) {
  if (!linalg::prepare_matmul(ctx, args, kArgs, kNames, 3, 3, 3, "bmm")) return false;
  return bmm_checked_out(ctx, args);
}

// load-time step: kinds, ranks and dtypes once; then only shapes are checked per call
KernelFn bmm_out_prepare(KernelContext& ctx, EValue** args) {
  return linalg::prepare_matmul(ctx, args, kArgs, kNames, 3, 3, 3, "bmm") ? bmm_checked_out : nullptr;
}

}  // namespace pte
