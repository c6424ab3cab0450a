// pte-run: safe softmax rows (see safe_softmax_rows.h).
#include "ops/prim/safe_softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/linalg/claim_pool.h"
#include "ops/util.h"

namespace pte {

bool safe_softmax_rows(KernelContext& ctx, EValue** args) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[2], Tag::Tensor, "softmax") ||
      !expect_tag(ctx, args[3], Tag::Tensor, "out"))
    return false;
  const Tensor& x = *args[0]->t;
  const Tensor& s = *args[2]->t;
  Tensor& out = *args[3]->t;
  if (x.dtype != DType::Float || s.dtype != DType::Float || out.dtype != DType::Float)
    return ctx.fail("safe softmax: expected fp32 tensors");
  if (x.dim != s.dim || x.dim < 1) return ctx.fail("safe softmax: input and softmax ranks differ");
  for (int d = 0; d < x.dim; ++d)
    if (x.sizes[d] != s.sizes[d]) return ctx.fail("safe softmax: input and softmax shapes differ at dim %d", d);
  if (!x.contiguous_order() || !s.contiguous_order()) return ctx.fail("safe softmax: expected contiguous tensors");
  if (!resize_output_like(ctx, out, s)) return false;
  const int64_t cols = s.sizes[s.dim - 1];
  const int64_t rows = cols > 0 ? s.numel() / cols : 0;
  struct Job {
    const float *x, *s;
    float* out;
    int64_t cols, rows, per;
  } job{static_cast<const float*>(x.data), static_cast<const float*>(s.data), static_cast<float*>(out.data), cols, rows,
        0};
  // a row of x is checked before that row of out is written (out may be x's memory)
  auto run = [](void* p, int64_t t) {
    const Job& j = *static_cast<const Job*>(p);
    const float ninf = -INFINITY;
    const int64_t r1 = std::min(j.rows, (t + 1) * j.per);
    for (int64_t r = t * j.per; r < r1; ++r) {
      const float* xr = j.x + r * j.cols;
      int64_t k = 0;
      while (k < j.cols && xr[k] == ninf) ++k;  // usually stops at the first element
      float* orow = j.out + r * j.cols;
      if (k == j.cols)
        std::memset(orow, 0, static_cast<size_t>(j.cols) * sizeof(float));
      else if (orow != j.s + r * j.cols)
        std::memcpy(orow, j.s + r * j.cols, static_cast<size_t>(j.cols) * sizeof(float));
    }
  };
  // copies of a few MB and more gain from a second core's bandwidth
  const bool big = static_cast<double>(rows) * static_cast<double>(cols) >= 262144.0;
  const int helpers = big ? std::max(0, ctx.claim_threads - 1) : 0;
  job.per = std::max<int64_t>(1, rows / (4 * (helpers + 1)));
  if (rows > 0) linalg::claim_parallel_for(helpers, (rows + job.per - 1) / job.per, run, &job);
  return true;
}

}  // namespace pte
