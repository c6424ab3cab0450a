// aten::topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
//                   Tensor(a!) values, Tensor(b!) indices)
//
// The k largest (or smallest) elements of every row along dim, with their int64
// indices; values and indices have self's shape with dim resized to k. As ATen's CPU
// kernel, a NaN counts as larger than every number: with largest it comes first, with
// smallest last; -0.0 equals 0.0. The order among equal values is not specified by
// ATen (its CPU kernel uses std::partial_sort / nth_element); here equal values keep
// ascending index order, so the values always equal ATen's and the indices do except
// among ties. The result is always sorted (sorted=False allows any order). k = 0 gives
// empty outs; k > size fails. A 0-dim self is a row of one element (dim 0 or -1) and,
// as in ATen, gives 0-dim outs for k = 0 and k = 1. Integer dtypes compare exactly in
// int64, floating ones in double; Bool is refused (ATen has no Bool topk).
//
// Scalar reference: the row is loaded into a buffer of (value, index) pairs (on the
// stack for rows up to kStackRow, from the instruction's scratch memory above) and
// partially sorted. Its return slot (a TensorList of both outs) is not read.
#include <algorithm>

#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

constexpr int64_t kStackRow = 256;

template <class C>
struct Item {
  C v;
  int64_t i;
};

// "a comes before b": NaN largest, ties by ascending index (a strict total order).
template <class C>
struct Before {
  bool largest;
  bool operator()(const Item<C>& a, const Item<C>& b) const {
    const bool na = isnan_v(a.v), nb = isnan_v(b.v);
    if (na != nb) return largest ? na : nb;
    if (!na) {
      if (a.v > b.v) return largest;
      if (a.v < b.v) return !largest;
    }
    return a.i < b.i;
  }
};

struct TopkArgs {
  const Tensor* in;
  Tensor* values;
  Tensor* indices;
  int64_t k, dim;
  bool largest;
};

template <class C>
bool topk_run(KernelContext& ctx, const TopkArgs& a) {
  const Tensor& in = *a.in;
  const int rank = in.dim;
  const int64_t n = rank ? in.sizes[a.dim] : 1;
  const int64_t s_in = rank ? in.strides[a.dim] : 1;
  const int64_t s_v = rank ? a.values->strides[a.dim] : 1;
  const int64_t s_i = rank ? a.indices->strides[a.dim] : 1;
  const int64_t k = rank ? a.k : 1;  // 0-dim: the one element, even for k = 0 (ATen)
  int64_t outer = 1;
  for (int d = 0; d < rank; ++d)
    if (d != a.dim) outer *= in.sizes[d];
  if (outer == 0 || k == 0) return true;

  Item<C> stack_buf[kStackRow];
  Item<C>* row = stack_buf;
  if (n > kStackRow) {
    row = static_cast<Item<C>*>(ctx.scratch(static_cast<size_t>(n) * sizeof(Item<C>), 8));
    if (!row)
      return ctx.fail("topk.values: a row of %lld elements needs %lld bytes of scratch memory, which is not available",
                      static_cast<long long>(n), static_cast<long long>(n * sizeof(Item<C>)));
  }
  int64_t* idx_out = a.indices->ptr<int64_t>();
  int64_t pos[kMaxDims] = {};
  int64_t off_in = 0, off_v = 0, off_i = 0;
  const Before<C> before{a.largest};
  for (int64_t r = 0; r < outer; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      if constexpr (std::is_same_v<C, double>)
        row[j] = {load_f64(in, off_in + j * s_in), j};
      else
        row[j] = {load_i64(in, off_in + j * s_in), j};
    }
    std::partial_sort(row, row + k, row + n, before);
    for (int64_t j = 0; j < k; ++j) {
      copy_element(in, off_in + row[j].i * s_in, *a.values, off_v + j * s_v);
      idx_out[off_i + j * s_i] = row[j].i;
    }
    // next row: odometer over the dims other than a.dim
    for (int d = rank - 1; d >= 0; --d) {
      if (d == a.dim) continue;
      off_in += in.strides[d];
      off_v += a.values->strides[d];
      off_i += a.indices->strides[d];
      if (++pos[d] < in.sizes[d]) break;
      off_in -= in.strides[d] * in.sizes[d];
      off_v -= a.values->strides[d] * in.sizes[d];
      off_i -= a.indices->strides[d] * in.sizes[d];
      pos[d] = 0;
    }
  }
  return true;
}

}  // namespace

bool topk_values(KernelContext& ctx, EValue** args) {
  const char* op = "topk.values";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "self") || !expect_tag(ctx, args[1], Tag::Int, "k") ||
      !expect_tag(ctx, args[2], Tag::Int, "dim") || !expect_tag(ctx, args[3], Tag::Bool, "largest") ||
      !expect_tag(ctx, args[4], Tag::Bool, "sorted") || !expect_tag(ctx, args[5], Tag::Tensor, "values") ||
      !expect_tag(ctx, args[6], Tag::Tensor, "indices"))
    return false;
  const Tensor& in = *args[0]->t;
  Tensor& values = *args[5]->t;
  Tensor& indices = *args[6]->t;
  if (!is_real_dtype(in.dtype)) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(in.dtype));
  if (values.dtype != in.dtype)
    return ctx.fail("%s: values dtype %s must match input dtype %s", op, dtype_name(values.dtype),
                    dtype_name(in.dtype));
  if (indices.dtype != DType::Int64)
    return ctx.fail("%s: indices dtype must be int64, got %s", op, dtype_name(indices.dtype));
  int64_t dim = 0;
  bool mask[kMaxDims];
  if (!single_dim_mask(ctx, op, args[2]->i, in.dim, mask, &dim)) return false;
  const int64_t size = in.dim ? in.sizes[dim] : 1;
  const int64_t k = args[1]->i;
  if (k < 0 || k > size)
    return ctx.fail("%s: k = %lld is out of range for a dim of size %lld", op, static_cast<long long>(k),
                    static_cast<long long>(size));
  int64_t sizes[kMaxDims];
  for (int d = 0; d < in.dim; ++d) sizes[d] = d == dim ? k : in.sizes[d];
  if (!resize_output(ctx, values, sizes, in.dim) || !resize_output(ctx, indices, sizes, in.dim)) return false;
  TopkArgs a{&in, &values, &indices, k, dim, args[3]->b};
  return is_float_dtype(in.dtype) ? topk_run<double>(ctx, a) : topk_run<int64_t>(ctx, a);
}

}  // namespace pte
