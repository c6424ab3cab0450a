// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
// aten::sum.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
//
// dim None or [] reduces every dim. The input is cast to the out dtype element by
// element (torch semantics for `dtype`), then accumulated in double (floating out)
// or int64 (integral / bool out).
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// ---- f32 input: the hot path (RMSNorm-style sums and means over the last dim) ----

// The reduced dims are a contiguous row (or nothing to vectorise over): one
// multi-accumulator pass per output, outputs spread over the thread pool.
void sum_f32_rows(KernelContext& ctx, const ReducePlan& p, const float* x, Tensor& out, double divisor) {
  int64_t len = 0, s = 0;
  inner_row(p.inner, &len, &s);
  parallel_for_each(ctx, p.outer, p.outer.numel * len, [&](int64_t a, int64_t b, int64_t) {
    store_f64(out, b, sum_row_f64(x + a, len, s) / divisor);
  });
}

// The innermost kept dim is contiguous in the input (e.g. a sum over dim 0 or a
// mean over the sequence of [B, S, D]): accumulate tiles of consecutive outputs
// row by row, which walks the input in memory order. `load` converts m consecutive
// input elements from an offset to double (f32 fast path or any dtype).
constexpr int64_t kTile = 64;

template <class Load>
void sum_columns(const ReducePlan& p, Tensor& out, double divisor, Load&& load) {
  DimIter pre = p.outer;  // the kept dims but the innermost
  const int last = pre.n - 1;
  const int64_t L = pre.size[last], ob = pre.sb[last];
  pre.numel /= L;
  pre.n = last;
  for_each(pre, 0, 0, [&](int64_t a, int64_t b) {
    for (int64_t j0 = 0; j0 < L; j0 += kTile) {
      const int64_t m = L - j0 < kTile ? L - j0 : kTile;
      double acc[kTile] = {};
      for_each(p.inner, a + j0, 0, [&](int64_t ia, int64_t) { load(ia, m, acc); });
      for (int64_t j = 0; j < m; ++j) store_f64(out, b + (j0 + j) * ob, acc[j] / divisor);
    }
  });
}

// ---- any dtype: rows converted to double (or int64) in chunks --------------------

// Same sums as sum_row_f64 (four accumulators for a contiguous row, one otherwise),
// reading the row through load_row.
double sum_row_any(DType dt, const void* x, int64_t off, int64_t n, int64_t s) {
  double buf[kChunk];
  double acc[4] = {0, 0, 0, 0};
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t m = n - i0 < kChunk ? n - i0 : kChunk;
    load_row(dt, x, off + i0 * s, m, s, buf);
    int64_t i = 0;
    if (s == 1)
      for (; i + 4 <= m; i += 4) {
        acc[0] += buf[i];
        acc[1] += buf[i + 1];
        acc[2] += buf[i + 2];
        acc[3] += buf[i + 3];
      }
    for (; i < m; ++i) acc[0] += buf[i];
  }
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

void sum_float_out(KernelContext& ctx, const ReducePlan& p, const Tensor& in, Tensor& out, double divisor) {
  int64_t len = 0, s = 0;
  const bool row = inner_row(p.inner, &len, &s);
  const bool kept_contig = p.outer.n > 0 && p.outer.sa[p.outer.n - 1] == 1 && p.outer.numel > 0;
  const bool f32 = in.dtype == DType::Float;
  const void* x = in.data;
  const DType dt = in.dtype;
  if (row && (s == 1 || !kept_contig)) {
    if (f32) return sum_f32_rows(ctx, p, in.ptr<float>(), out, divisor);
    parallel_for_each(ctx, p.outer, p.outer.numel * len, [&](int64_t a, int64_t b, int64_t) {
      store_f64(out, b, sum_row_any(dt, x, a, len, s) / divisor);
    });
  } else if (kept_contig) {
    if (f32) {
      const float* xf = in.ptr<float>();
      sum_columns(p, out, divisor, [&](int64_t ia, int64_t m, double* acc) {
        const float* q = xf + ia;
        for (int64_t j = 0; j < m; ++j) acc[j] += static_cast<double>(q[j]);
      });
    } else {
      sum_columns(p, out, divisor, [&](int64_t ia, int64_t m, double* acc) {
        double buf[kTile];
        load_row(dt, x, ia, m, 1, buf);
        for (int64_t j = 0; j < m; ++j) acc[j] += buf[j];
      });
    }
  } else {
    for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
      double acc = 0;
      for_chunks<double>(dt, x, p.inner, a, [&](const double* buf, int64_t m, int64_t) {
        for (int64_t i = 0; i < m; ++i) acc += buf[i];
      });
      store_f64(out, b, acc / divisor);
    });
  }
}

void sum_int_out(const ReducePlan& p, const Tensor& in, Tensor& out) {
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    uint64_t acc = 0;  // unsigned: wraps like torch's int64 sum instead of overflowing
    for_chunks<int64_t>(in.dtype, in.data, p.inner, a, [&](const int64_t* buf, int64_t m, int64_t) {
      for (int64_t i = 0; i < m; ++i) acc += static_cast<uint64_t>(buf[i]);
    });
    store_i64(out, b, static_cast<int64_t>(acc));
  });
}

}  // namespace

bool sum_reduce(KernelContext& ctx, const char* op, const ReducePlan& p, const Tensor& in, Tensor& out,
                double divisor) {
  if (!is_any_dtype(out.dtype)) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  if (!is_any_dtype(in.dtype)) return ctx.fail("%s: unsupported input dtype %s", op, dtype_name(in.dtype));
  if (is_float_dtype(out.dtype))
    sum_float_out(ctx, p, in, out, divisor);
  else
    sum_int_out(p, in, out);
  return true;
}

static bool sum_common(KernelContext& ctx, const char* op, const Tensor& in, const EValue* dim, bool keepdim,
                       const EValue* dtype, Tensor& out) {
  if (!check_dtype_arg(ctx, op, dtype, out)) return false;
  if (!is_any_dtype(out.dtype)) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  if (is_float_dtype(in.dtype) && !is_float_dtype(out.dtype) && (!dtype || dtype->is_none()))
    return ctx.fail("%s: floating input %s needs a floating out, got %s", op, dtype_name(in.dtype),
                    dtype_name(out.dtype));
  bool mask[kMaxDims];
  if (!parse_dim_mask(ctx, op, dim, in.dim, true, mask)) return false;
  ReducePlan p;
  if (!plan_reduce(ctx, in, mask, keepdim, out, p)) return false;
  return sum_reduce(ctx, op, p, in, out, 1.0);
}

bool sum_intlist_out(KernelContext& ctx, EValue** args) {
  const char* op = "sum.IntList_out";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Bool, "keepdim") ||
      !expect_tag(ctx, args[4], Tag::Tensor, "out"))
    return false;
  return sum_common(ctx, op, *args[0]->t, args[1], args[2]->b, args[3], *args[4]->t);
}

bool sum_out(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Tensor, "out")) return false;
  return sum_common(ctx, "sum.out", *args[0]->t, nullptr, false, args[1], *args[2]->t);
}

}  // namespace pte
