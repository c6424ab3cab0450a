// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
// aten::sum.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
//
// dim None or [] reduces every dim. The input is cast to the out dtype element by
// element (torch semantics for `dtype`), then accumulated in double (floating out)
// or int64 (integral / bool out).
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

// The reduced dims are a contiguous row (or nothing to vectorise over): one
// multi-accumulator pass per output, outputs spread over the thread pool.
template <class T>
void sum_float_rows(KernelContext& ctx, const ReducePlan& p, const T* x, Tensor& out, double divisor) {
  int64_t len = 0, s = 0;
  inner_row(p.inner, &len, &s);
  parallel_for_each(ctx, p.outer, p.outer.numel * len, [&](int64_t a, int64_t b, int64_t) {
    store_as(out, b, sum_row_f64(x + a, len, s) / divisor);
  });
}

// The innermost kept dim is contiguous in the input (e.g. a sum over dim 0 or a
// mean over the sequence of [B, S, D]): accumulate tiles of consecutive outputs
// row by row, which walks the input in memory order.
template <class T>
void sum_float_columns(const ReducePlan& p, const T* x, Tensor& out, double divisor) {
  constexpr int64_t kTile = 64;
  DimIter pre = p.outer;  // the kept dims but the innermost
  const int last = pre.n - 1;
  const int64_t L = pre.size[last], ob = pre.sb[last];
  pre.numel /= L;
  pre.n = last;
  for_each(pre, 0, 0, [&](int64_t a, int64_t b) {
    for (int64_t j0 = 0; j0 < L; j0 += kTile) {
      const int64_t m = L - j0 < kTile ? L - j0 : kTile;
      double acc[kTile] = {};
      for_each(p.inner, a + j0, 0, [&](int64_t ia, int64_t) {
        const T* q = x + ia;
        for (int64_t j = 0; j < m; ++j) acc[j] += convert<double>(q[j]);
      });
      for (int64_t j = 0; j < m; ++j) store_as(out, b + (j0 + j) * ob, acc[j] / divisor);
    }
  });
}

template <class T>
void sum_float(KernelContext& ctx, const ReducePlan& p, const Tensor& in, Tensor& out, double divisor) {
  const T* x = in.ptr<T>();
  int64_t len = 0, s = 0;
  const bool row = inner_row(p.inner, &len, &s);
  const bool kept_contig = p.outer.n > 0 && p.outer.sa[p.outer.n - 1] == 1 && p.outer.numel > 0;
  if (row && (s == 1 || !kept_contig)) {
    sum_float_rows<T>(ctx, p, x, out, divisor);
  } else if (kept_contig) {
    sum_float_columns<T>(p, x, out, divisor);
  } else {
    for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
      double acc = 0;
      for_each(p.inner, a, 0, [&](int64_t ia, int64_t) { acc += convert<double>(x[ia]); });
      store_as(out, b, acc / divisor);
    });
  }
}

template <class T>
void sum_int(const ReducePlan& p, const Tensor& in, Tensor& out) {
  const T* x = in.ptr<T>();
  for_each(p.outer, 0, 0, [&](int64_t a, int64_t b) {
    uint64_t acc = 0;  // unsigned: wraps like torch's int64 sum instead of overflowing
    for_each(p.inner, a, 0, [&](int64_t ia, int64_t) { acc += static_cast<uint64_t>(convert<int64_t>(x[ia])); });
    store_as(out, b, static_cast<int64_t>(acc));
  });
}

}  // namespace

bool sum_reduce(KernelContext& ctx, const char* op, const ReducePlan& p, const Tensor& in, Tensor& out,
                double divisor) {
  if (!is_any_dtype(out.dtype)) return ctx.fail("%s: unsupported out dtype %s", op, dtype_name(out.dtype));
  bool float_out = is_float_dtype(out.dtype);
  bool ok = visit_any_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (float_out)
      sum_float<T>(ctx, p, in, out, divisor);
    else
      sum_int<T>(p, in, out);
  });
  if (!ok) return ctx.fail("%s: unsupported input dtype %s", op, dtype_name(in.dtype));
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
