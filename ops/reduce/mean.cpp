// aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
// aten::mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
//
// mean = sum / count; the out dtype must be floating (an integral input needs
// dtype=float*, as in torch). An empty reduction gives NaN.
//
// The sum is accumulated in the out dtype's accumulation type (float for float,
// half and bfloat16 out; double for double out), element by element in index
// order, then divided by the count in that type: the official runtime's portable
// kernel does exactly this, and programs whose later ops quantize activations
// (8da4w: per-row int8) only give the official results when the mean is bit-equal.
#include <algorithm>

#include "ops/isa.h"
#include "ops/reduce/mean_rows.h"
#include "ops/reduce/reduce_util.h"

namespace pte {

static bool mean_common(KernelContext& ctx, const char* op, const Tensor& in, const EValue* dim, bool keepdim,
                        const EValue* dtype, Tensor& out) {
  if (!check_dtype_arg(ctx, op, dtype, out)) return false;
  if (!is_float_dtype(out.dtype))
    return ctx.fail("%s: out dtype must be floating, got %s (input %s)", op, dtype_name(out.dtype),
                    dtype_name(in.dtype));
  bool mask[kMaxDims];
  if (!parse_dim_mask(ctx, op, dim, in.dim, true, mask)) return false;
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, keepdim, out, p)) return false;
  if (out.dtype == DType::Double) return sum_reduce(ctx, op, p, in, out, static_cast<double>(p.inner.numel));
  const float count = static_cast<float>(p.inner.numel);
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported input dtype %s", op, dtype_name(in.dtype));
  int64_t len = 0, s = 0;
#if defined(__x86_64__)
  int64_t rows = 0, rs = 0, os = 0;
  if (in.dtype == DType::Float && out.dtype == DType::Float && inner_row(p.inner, &len, &s) && s == 1 &&
      inner_row(p.outer, &rows, &rs, &os) && rows >= 16 && isa::cpu().avx512f) {
    // contiguous f32 rows (RMSNorm over a prefill): 16 rows a pass, one per lane (mean_rows.h)
    struct Job {
      const float* x;
      float* y;
      int64_t rows, rs, os, len;
      float count;
      int64_t chunk;
    } job{in.ptr<float>(), out.ptr<float>(), rows, rs, os, len, count, 0};
    parallel_chunks(
        ctx, (rows + 15) / 16, rows * len,
        [](void* q, size_t i) {
          const Job& j = *static_cast<const Job*>(q);
          const int64_t r0 = static_cast<int64_t>(i) * j.chunk * 16, r1 = std::min(j.rows, r0 + j.chunk * 16);
          mean_rows_f32_avx512(j.x + r0 * j.rs, r1 - r0, j.rs, j.len, j.y + r0 * j.os, j.os, j.count);
        },
        &job, &job.chunk);
    return true;
  }
#endif
  if (in.dtype == DType::Float && inner_row(p.inner, &len, &s)) {  // f32 rows (RMSNorm): read in place
    const float* x = in.ptr<float>();
    parallel_for_each(ctx, p.outer, p.outer.numel * len, [&](int64_t a, int64_t b, int64_t) {
      float acc = 0.0f;
      for (int64_t i = 0; i < len; ++i) acc += x[a + i * s];
      store_f64(out, b, acc / count);
    });
    return true;
  }
  parallel_for_each(ctx, p.outer, p.outer.numel * p.inner.numel, [&](int64_t a, int64_t b, int64_t) {
    float acc = 0.0f;
    for_chunks<float>(in.dtype, in.data, p.inner, a, [&](const float* buf, int64_t m, int64_t) {
      for (int64_t i = 0; i < m; ++i) acc += buf[i];
    });
    store_f64(out, b, acc / count);
  });
  return true;
}

bool mean_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Bool, "keepdim") ||
      !expect_tag(ctx, args[4], Tag::Tensor, "out"))
    return false;
  return mean_common(ctx, "mean.out", *args[0]->t, args[1], args[2]->b, args[3], *args[4]->t);
}

bool mean_dtype_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Tensor, "out")) return false;
  return mean_common(ctx, "mean.dtype_out", *args[0]->t, nullptr, false, args[1], *args[2]->t);
}

}  // namespace pte
