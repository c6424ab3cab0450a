// aten::eye.out(SymInt n, *, Tensor(a!) out)
// aten::eye.m_out(SymInt n, SymInt m, *, Tensor(a!) out)
//
// out is resized to [n, m] (m = n for eye.out), ones on the main diagonal, zeros
// elsewhere, written through out's strides.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

bool eye_common(KernelContext& ctx, const char* op, const EValue* nv, const EValue* mv, const EValue* outv) {
  if (!expect_tag(ctx, nv, Tag::Int, "n") || (mv && !expect_tag(ctx, mv, Tag::Int, "m")) ||
      !expect_tag(ctx, outv, Tag::Tensor, "out"))
    return false;
  const int64_t n = nv->i, m = mv ? mv->i : n;
  if (n < 0 || m < 0)
    return ctx.fail("%s: n and m must be non-negative, got %lld and %lld", op, static_cast<long long>(n),
                    static_cast<long long>(m));
  Tensor& out = *outv->t;
  const int64_t sizes[2] = {n, m};
  if (!resize_output(ctx, out, sizes, 2)) return false;
  bool ok = visit_any_dtype(out.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    O* y = out.ptr<O>();
    const int64_t total = n * m;
    for (int64_t i = 0; i < total; ++i) y[i] = convert<O>(0);
    const int64_t k = n < m ? n : m;
    for (int64_t i = 0; i < k; ++i) y[i * out.strides[0] + i * out.strides[1]] = convert<O>(1);
  });
  if (!ok) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  return true;
}

}  // namespace

bool eye_out(KernelContext& ctx, EValue** args) { return eye_common(ctx, "eye.out", args[0], nullptr, args[1]); }
bool eye_m_out(KernelContext& ctx, EValue** args) { return eye_common(ctx, "eye.m_out", args[0], args[1], args[2]); }

}  // namespace pte
