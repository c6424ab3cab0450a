// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
// out[M,N] = self[M,K] @ mat2[K,N]; all three share one dtype.
// mm_last_row_out: the same checks and output shape, but only row M-1 is computed
// (the loader substitutes it for the logits of a decoder when asked, see
// Program::MethodOptions::last_row_of_output_only).
#include "ops/linalg/linalg_util.h"
#include "ops/linalg/matmul.h"
#include "ops/util.h"

namespace pte {

namespace {

const int kArgs[3] = {0, 1, 2};
const char* const kNames[3] = {"self", "mat2", "out"};

// After the argument kinds, ranks and dtypes are checked (by mm_rows or at load).
bool mm_body(KernelContext& ctx, EValue** args, bool last_row_only) {
  const Tensor& a = *args[0]->t;
  const Tensor& b = *args[1]->t;
  Tensor& out = *args[2]->t;
  if (a.sizes[1] != b.sizes[0])
    return ctx.fail("mm: shapes [%lld,%lld] and [%lld,%lld] cannot be multiplied", (long long)a.sizes[0],
                    (long long)a.sizes[1], (long long)b.sizes[0], (long long)b.sizes[1]);
  const int64_t sizes[2] = {a.sizes[0], b.sizes[1]};
  if (!resize_output(ctx, out, sizes, 2)) return false;
  linalg::MatmulDesc d;
  d.M = a.sizes[0], d.N = b.sizes[1], d.K = a.sizes[1];
  d.a = a.data, d.a_rs = a.strides[0], d.a_cs = a.strides[1];
  d.b = b.data, d.b_rs = b.strides[0], d.b_cs = b.strides[1];
  d.c = out.data, d.c_rs = out.strides[0], d.c_cs = out.strides[1];
  if (last_row_only && d.M > 1) {
    const size_t es = dtype_size(a.dtype);
    d.a = static_cast<const uint8_t*>(a.data) + (d.M - 1) * d.a_rs * es;
    d.c = static_cast<uint8_t*>(out.data) + (d.M - 1) * d.c_rs * es;
    d.M = 1;
  }
  return linalg::run_matmul(ctx, a.dtype, d, "mm");
}

bool mm_rows(KernelContext& ctx, EValue** args, bool last_row_only) {
  if (!linalg::prepare_matmul(ctx, args, kArgs, kNames, 3, 2, 2, "mm")) return false;
  return mm_body(ctx, args, last_row_only);
}

bool mm_checked_out(KernelContext& ctx, EValue** args) { return mm_body(ctx, args, false); }

}  // namespace

// load-time step: kinds, ranks and dtypes once; then only shapes are checked per call
KernelFn mm_out_prepare(KernelContext& ctx, EValue** args) {
  return linalg::prepare_matmul(ctx, args, kArgs, kNames, 3, 2, 2, "mm") ? mm_checked_out : nullptr;
}

bool mm_out(KernelContext& ctx, EValue** args) { return mm_rows(ctx, args, false); }

bool mm_last_row_out(KernelContext& ctx, EValue** args) { return mm_rows(ctx, args, true); }

}  // namespace pte
