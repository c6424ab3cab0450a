#include "ops/reduce/reduce_util.h"

namespace pte {

void store_f64(const Tensor& t, int64_t off, double v) {
  visit_any_dtype(t.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    static_cast<O*>(t.data)[off] = convert<O>(v);
  });
}

void store_i64(const Tensor& t, int64_t off, int64_t v) {
  visit_any_dtype(t.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    static_cast<O*>(t.data)[off] = convert<O>(v);
  });
}

double load_f64(const Tensor& t, int64_t off) {
  double r = 0;
  visit_any_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    r = convert<double>(static_cast<const T*>(t.data)[off]);
  });
  return r;
}

int64_t load_i64(const Tensor& t, int64_t off) {
  int64_t r = 0;
  visit_any_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    r = convert<int64_t>(static_cast<const T*>(t.data)[off]);
  });
  return r;
}

namespace {

template <class C>
void load_row_t(DType dt, const void* base, int64_t off, int64_t n, int64_t s, C* dst) {
  visit_any_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(base) + off;
    for (int64_t i = 0; i < n; ++i) dst[i] = convert<C>(x[i * s]);
  });
}

// Input (stream a, b = false) or output (b = true) offsets of indices [begin, begin + n) of it.
void offsets(const DimIter& it, bool b, int64_t begin, int64_t n, int64_t* off) {
  for_each_range(it, begin, begin + n, [&](int64_t oa, int64_t ob, int64_t k) { off[k - begin] = b ? ob : oa; });
}

template <class C>
void gather_t(DType dt, const void* base, const DimIter& it, int64_t a0, int64_t begin, int64_t n, C* dst) {
  if (it.n <= 1) {
    const int64_t s = it.n ? it.sa[0] : 1;
    load_row(dt, base, a0 + begin * s, n, s, dst);
    return;
  }
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t m = n - i0 < kChunk ? n - i0 : kChunk;
    int64_t off[kChunk];
    offsets(it, false, begin + i0, m, off);
    visit_any_dtype(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* x = static_cast<const T*>(base) + a0;
      for (int64_t i = 0; i < m; ++i) dst[i0 + i] = convert<C>(x[off[i]]);
    });
  }
}

template <class C>
void store_row_t(const Tensor& t, int64_t off, int64_t n, int64_t s, const C* src) {
  visit_any_dtype(t.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    O* y = static_cast<O*>(t.data) + off;
    for (int64_t i = 0; i < n; ++i) y[i * s] = convert<O>(src[i]);
  });
}

template <class C>
void scatter_t(const Tensor& t, const DimIter& it, int64_t b0, int64_t begin, int64_t n, const C* src) {
  if (it.n <= 1) {
    const int64_t s = it.n ? it.sb[0] : 1;
    store_row(t, b0 + begin * s, n, s, src);
    return;
  }
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t m = n - i0 < kChunk ? n - i0 : kChunk;
    int64_t off[kChunk];
    offsets(it, true, begin + i0, m, off);
    visit_any_dtype(t.dtype, [&](auto tag) {
      using O = typename decltype(tag)::type;
      O* y = static_cast<O*>(t.data) + b0;
      for (int64_t i = 0; i < m; ++i) y[off[i]] = convert<O>(src[i0 + i]);
    });
  }
}

}  // namespace

void load_row(DType dt, const void* base, int64_t off, int64_t n, int64_t s, double* dst) { load_row_t(dt, base, off, n, s, dst); }
void load_row(DType dt, const void* base, int64_t off, int64_t n, int64_t s, float* dst) { load_row_t(dt, base, off, n, s, dst); }
void load_row(DType dt, const void* base, int64_t off, int64_t n, int64_t s, int64_t* dst) { load_row_t(dt, base, off, n, s, dst); }
void gather(DType dt, const void* base, const DimIter& it, int64_t a0, int64_t begin, int64_t n, double* dst) {
  gather_t(dt, base, it, a0, begin, n, dst);
}
void gather(DType dt, const void* base, const DimIter& it, int64_t a0, int64_t begin, int64_t n, float* dst) {
  gather_t(dt, base, it, a0, begin, n, dst);
}
void gather(DType dt, const void* base, const DimIter& it, int64_t a0, int64_t begin, int64_t n, int64_t* dst) {
  gather_t(dt, base, it, a0, begin, n, dst);
}
void store_row(const Tensor& t, int64_t off, int64_t n, int64_t s, const double* src) { store_row_t(t, off, n, s, src); }
void store_row(const Tensor& t, int64_t off, int64_t n, int64_t s, const float* src) { store_row_t(t, off, n, s, src); }
void store_row(const Tensor& t, int64_t off, int64_t n, int64_t s, const int64_t* src) { store_row_t(t, off, n, s, src); }
void scatter(const Tensor& t, const DimIter& it, int64_t b0, int64_t begin, int64_t n, const double* src) {
  scatter_t(t, it, b0, begin, n, src);
}
void scatter(const Tensor& t, const DimIter& it, int64_t b0, int64_t begin, int64_t n, const float* src) {
  scatter_t(t, it, b0, begin, n, src);
}
void scatter(const Tensor& t, const DimIter& it, int64_t b0, int64_t begin, int64_t n, const int64_t* src) {
  scatter_t(t, it, b0, begin, n, src);
}

int64_t iter_offset(const DimIter& it, int64_t a0, int64_t k) {
  int64_t a = a0;
  for (int d = it.n - 1; d >= 0; --d) {
    a += (k % it.size[d]) * it.sa[d];
    k /= it.size[d];
  }
  return a;
}

namespace {

template <class C, bool IsMax>
int64_t arg_extreme_t(const Tensor& in, const DimIter& it, int64_t a0) {
  C buf[kChunk];
  C best{};
  int64_t idx = 0;
  for (int64_t i0 = 0; i0 < it.numel; i0 += kChunk) {
    const int64_t m = it.numel - i0 < kChunk ? it.numel - i0 : kChunk;
    gather(in.dtype, in.data, it, a0, i0, m, buf);
    int64_t i = 0;
    if (i0 == 0) {
      best = buf[0];
      if (isnan_v(best)) return 0;
      i = 1;
    }
    for (; i < m; ++i) {
      const C v = buf[i];
      if (isnan_v(v)) return i0 + i;
      if (IsMax ? v > best : v < best) {
        best = v;
        idx = i0 + i;
      }
    }
  }
  return idx;
}

}  // namespace

int64_t arg_extreme(const Tensor& in, const DimIter& it, int64_t a0, bool is_max) {
  if (is_float_dtype(in.dtype))
    return is_max ? arg_extreme_t<double, true>(in, it, a0) : arg_extreme_t<double, false>(in, it, a0);
  return is_max ? arg_extreme_t<int64_t, true>(in, it, a0) : arg_extreme_t<int64_t, false>(in, it, a0);
}

void copy_element(const Tensor& in, int64_t src, const Tensor& out, int64_t dst) {
  const size_t es = dtype_size(in.dtype);
  std::memcpy(static_cast<char*>(out.data) + dst * es, static_cast<const char*>(in.data) + src * es, es);
}

bool is_nan_at(const Tensor& t, int64_t off) { return is_float_dtype(t.dtype) && std::isnan(load_f64(t, off)); }

bool check_dtype_arg(KernelContext& ctx, const char* op, const EValue* dtype_arg, const Tensor& out) {
  if (!dtype_arg || dtype_arg->is_none()) return true;
  if (dtype_arg->tag != Tag::Int) return ctx.fail("%s: dtype must be a ScalarType (Int) or None, got %s", op,
                                                  tag_name(dtype_arg->tag));
  if (static_cast<int64_t>(out.dtype) != dtype_arg->i)
    return ctx.fail("%s: dtype argument %lld does not match out dtype %s", op, static_cast<long long>(dtype_arg->i),
                    dtype_name(out.dtype));
  return true;
}

void DimIter::simplify() {
  int m = 0;
  for (int d = 0; d < n; ++d) {
    if (size[d] == 1) continue;
    if (m > 0 && sa[m - 1] == sa[d] * size[d] && sb[m - 1] == sb[d] * size[d]) {
      size[m - 1] *= size[d];
      sa[m - 1] = sa[d];
      sb[m - 1] = sb[d];
      continue;
    }
    size[m] = size[d];
    sa[m] = sa[d];
    sb[m] = sb[d];
    ++m;
  }
  n = m;
}

static bool mark_dim(KernelContext& ctx, const char* op, int64_t d, int32_t rank, bool* mask) {
  int64_t nd = d;
  if (!normalize_dim(nd, rank))
    return ctx.fail("%s: dim %lld out of range for a %d-d tensor", op, static_cast<long long>(d), rank);
  if (rank == 0) return true;  // a 0-d tensor has nothing to reduce
  if (mask[nd]) return ctx.fail("%s: dim %lld appears more than once in the dim list", op, static_cast<long long>(d));
  mask[nd] = true;
  return true;
}

bool parse_dim_mask(KernelContext& ctx, const char* op, const EValue* arg, int32_t rank, bool empty_is_all,
                    bool* mask) {
  for (int i = 0; i < kMaxDims; ++i) mask[i] = false;
  if (!arg || arg->is_none()) {
    all_dims_mask(rank, mask);
    return true;
  }
  if (arg->tag == Tag::Int) return mark_dim(ctx, op, arg->i, rank, mask);
  if (arg->tag != Tag::IntList) return ctx.fail("%s: dim must be an int list, int or None, got %s", op, tag_name(arg->tag));
  size_t n = 0;
  const int64_t* dims = arg->int_list(&n);
  if (n == 0) {
    if (empty_is_all) all_dims_mask(rank, mask);
    return true;
  }
  for (size_t k = 0; k < n; ++k)
    if (!mark_dim(ctx, op, dims[k], rank, mask)) return false;
  return true;
}

bool single_dim_mask(KernelContext& ctx, const char* op, int64_t d, int32_t rank, bool* mask, int64_t* norm) {
  for (int i = 0; i < kMaxDims; ++i) mask[i] = false;
  int64_t nd = d;
  if (!normalize_dim(nd, rank))
    return ctx.fail("%s: dim %lld out of range for a %d-d tensor", op, static_cast<long long>(d), rank);
  if (rank > 0) mask[nd] = true;
  if (norm) *norm = nd;
  return true;
}

void reduced_shape(const Tensor& in, const bool* mask, bool keepdim, int64_t* sizes, int32_t* dim) {
  int32_t k = 0;
  for (int d = 0; d < in.dim; ++d) {
    if (!mask[d])
      sizes[k++] = in.sizes[d];
    else if (keepdim)
      sizes[k++] = 1;
  }
  *dim = k;
}

bool plan_reduce(KernelContext& ctx, const Tensor& in, const bool* mask, bool keepdim, Tensor& out,
                 ReducePlan& p) {
  for (int i = 0; i < kMaxDims; ++i) p.mask[i] = mask[i];
  reduced_shape(in, mask, keepdim, p.out_sizes, &p.out_dim);
  if (!resize_output(ctx, out, p.out_sizes, p.out_dim)) return false;
  p.outer = DimIter();
  p.inner = DimIter();
  int od = 0;
  for (int d = 0; d < in.dim; ++d) {
    if (mask[d]) {
      p.inner.push(in.sizes[d], in.strides[d], 0);
      if (keepdim) ++od;
    } else {
      p.outer.push(in.sizes[d], in.strides[d], out.strides[od]);
      ++od;
    }
  }
  p.outer.simplify();
  p.inner.simplify();
  return true;
}

bool plan_same_shape(KernelContext& ctx, const Tensor& in, const bool* mask, Tensor& out, ReducePlan& p) {
  for (int i = 0; i < kMaxDims; ++i) p.mask[i] = mask[i];
  reduced_shape(in, mask, true, p.out_sizes, &p.out_dim);
  if (!resize_output_like(ctx, out, in)) return false;
  p.outer = DimIter();
  p.inner = DimIter();
  for (int d = 0; d < in.dim; ++d) {
    if (mask[d])
      p.inner.push(in.sizes[d], in.strides[d], out.strides[d]);
    else
      p.outer.push(in.sizes[d], in.strides[d], out.strides[d]);
  }
  p.outer.simplify();
  p.inner.simplify();
  return true;
}

}  // namespace pte

#include "ops/linalg/claim_pool.h"

namespace pte {

// Below this many elements touched a kernel stays on the calling thread (see
// elementwise.cpp: a worker wake-up is expensive on a busy machine).
constexpr int64_t kParallelMinWork = 1 << 18;

void parallel_chunks(KernelContext& ctx, int64_t n, int64_t work, void (*task)(void*, size_t), void* job,
                     int64_t* chunk) {
  if (n <= 0) return;
  // on the claim pool, as elementwise.cpp's parallel_for (why: there)
  const int64_t threads = ctx.claim_threads;
  if (threads <= 1 || n < 2 || work < kParallelMinWork) {
    *chunk = n;
    task(job, 0);
    return;
  }
  // a few chunks per thread for balance, but not smaller than ~kParallelMinWork/4 of work
  int64_t chunks = threads * 4;
  const int64_t max_chunks = work / (kParallelMinWork / 4) > 0 ? work / (kParallelMinWork / 4) : 1;
  if (chunks > max_chunks) chunks = max_chunks;
  if (chunks > n) chunks = n;
  *chunk = (n + chunks - 1) / chunks;
  const int64_t count = (n + *chunk - 1) / *chunk;
  linalg::claim_parallel_for(static_cast<int>(threads - 1), count, task, job);
}

}  // namespace pte
