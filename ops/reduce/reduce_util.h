// pte-run kernels in ops/reduce: shared machinery for reductions, row-wise
// normalisations and creation ops.
//
// A reduction walks its input as two nested index spaces: the kept ("outer") dims,
// one step per output element, and the reduced ("inner") dims. Each space is a
// DimIter: sizes plus two element-stride streams (a = input, b = output), in logical
// (row-major) order, with size-1 dims dropped and neighbours that are contiguous in
// both streams merged. After that a contiguous input reduced over its last dims is a
// single unit-stride loop, and channels-last means over H,W are one strided loop.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/util.h"

namespace pte {

// ---- dtype helpers -----------------------------------------------------------

template <class T>
struct TypeTag {
  using type = T;
};

// The type arithmetic is done in: float for the 16-bit floats, T otherwise.
template <class T> struct compute_type { using type = T; };
template <> struct compute_type<Half> { using type = float; };
template <> struct compute_type<BFloat16> { using type = float; };
template <class T> using compute_t = typename compute_type<T>::type;

template <class T>
constexpr bool is_floating_v =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

inline bool is_float_dtype(DType t) {
  return t == DType::Float || t == DType::Double || t == DType::Half || t == DType::BFloat16;
}
inline bool is_int_dtype(DType t) {  // integral, bool excluded
  return t == DType::UInt8 || t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64;
}
inline bool is_real_dtype(DType t) { return is_float_dtype(t) || is_int_dtype(t); }
inline bool is_any_dtype(DType t) { return is_real_dtype(t) || t == DType::Bool; }

// visit_*_dtype(dt, f) calls f(TypeTag<T>{}) with T the element type of dt and
// returns true, or returns false when dt is not in the family.
template <class F>
inline bool visit_float_dtype(DType dt, F&& f) {
  switch (dt) {
    case DType::Float: f(TypeTag<float>{}); return true;
    case DType::Double: f(TypeTag<double>{}); return true;
    case DType::Half: f(TypeTag<Half>{}); return true;
    case DType::BFloat16: f(TypeTag<BFloat16>{}); return true;
    default: return false;
  }
}
template <class F>
inline bool visit_int_dtype(DType dt, F&& f) {
  switch (dt) {
    case DType::UInt8: f(TypeTag<uint8_t>{}); return true;
    case DType::Int8: f(TypeTag<int8_t>{}); return true;
    case DType::Int16: f(TypeTag<int16_t>{}); return true;
    case DType::Int32: f(TypeTag<int32_t>{}); return true;
    case DType::Int64: f(TypeTag<int64_t>{}); return true;
    default: return false;
  }
}
template <class F>
inline bool visit_real_dtype(DType dt, F&& f) {
  return visit_float_dtype(dt, f) || visit_int_dtype(dt, f);
}
template <class F>
inline bool visit_any_dtype(DType dt, F&& f) {
  if (dt == DType::Bool) { f(TypeTag<bool>{}); return true; }
  return visit_real_dtype(dt, f);
}

// Element `off` of t (t's dtype satisfying is_any_dtype) written from a double or an
// int64, converted as torch converts; defined once in reduce_util.cpp so that the
// dtype switch is not inlined into every kernel loop.
void store_f64(const Tensor& t, int64_t off, double v);
void store_i64(const Tensor& t, int64_t off, int64_t v);

// Writes v (any arithmetic type, Half or BFloat16) to element `off` of t, converted
// to t's dtype as torch converts. t's dtype must satisfy is_any_dtype. Floating
// values go through double and integral ones through int64, which changes no result
// (both widenings are exact).
template <class V>
inline void store_as(const Tensor& t, int64_t off, V v) {
  if constexpr (is_floating_v<V>) {
    store_f64(t, off, convert<double>(v));
  } else if constexpr (std::is_same_v<V, bool> || (std::is_integral_v<V> && (std::is_signed_v<V> || sizeof(V) < 8))) {
    store_i64(t, off, static_cast<int64_t>(v));
  } else {
    visit_any_dtype(t.dtype, [&](auto tag) {
      using O = typename decltype(tag)::type;
      static_cast<O*>(t.data)[off] = convert<O>(v);
    });
  }
}

// Reads element `off` of t (any dtype satisfying is_any_dtype) as double.
double load_f64(const Tensor& t, int64_t off);
// Reads element `off` of t (any dtype satisfying is_any_dtype) as int64 (floats truncate).
int64_t load_i64(const Tensor& t, int64_t off);

// Offset of logical element k of t (fast when t has the identity dim order).
inline int64_t linear_offset(const Tensor& t, int64_t k) {
  return t.contiguous_order() ? k : strided_offset(t, k);
}

// Checks an optional `ScalarType? dtype` argument against the out tensor.
bool check_dtype_arg(KernelContext& ctx, const char* op, const EValue* dtype_arg, const Tensor& out);

// ---- index spaces --------------------------------------------------------------

struct DimIter {
  int n = 0;
  int64_t numel = 1;
  int64_t size[kMaxDims] = {};
  int64_t sa[kMaxDims] = {};  // stride of stream a (input)
  int64_t sb[kMaxDims] = {};  // stride of stream b (output)

  void push(int64_t sz, int64_t a, int64_t b) {
    size[n] = sz;
    sa[n] = a;
    sb[n] = b;
    ++n;
    numel *= sz;
  }
  // Drops size-1 dims and merges neighbours contiguous in both streams. Keeps the
  // logical order (needed by arg-reductions and cumulative ops).
  void simplify();
};

// Calls f(a, b) for every index of `it` in logical order, a and b being the element
// offsets of the two streams (starting at a0 and b0).
template <class F>
inline void for_each(const DimIter& it, int64_t a0, int64_t b0, F&& f) {
  if (it.numel == 0) return;
  if (it.n == 0) {
    f(a0, b0);
    return;
  }
  const int last = it.n - 1;
  const int64_t len = it.size[last], sa = it.sa[last], sb = it.sb[last];
  int64_t idx[kMaxDims] = {};
  int64_t a = a0, b = b0;
  for (;;) {
    for (int64_t i = 0; i < len; ++i) f(a + i * sa, b + i * sb);
    int d = last - 1;
    for (; d >= 0; --d) {
      a += it.sa[d];
      b += it.sb[d];
      if (++idx[d] < it.size[d]) break;
      a -= it.sa[d] * it.size[d];
      b -= it.sb[d] * it.size[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// ---- reduction plans -------------------------------------------------------------

struct ReducePlan {
  bool mask[kMaxDims] = {};      // reduced input dims
  int32_t out_dim = 0;
  int64_t out_sizes[kMaxDims] = {};
  DimIter outer;                 // kept dims: a = input stride, b = output stride
  DimIter inner;                 // reduced dims: a = input stride, b = output stride (same-shape plans) or 0
};

// Parses a dim argument (None, Int or IntList) into `mask` over a rank-`rank` tensor
// (a 0-dim tensor accepts dim 0 / -1 and reduces nothing). None means all dims; an
// empty list means all dims when `empty_is_all`, none otherwise. Fails on a dim out
// of range or repeated.
bool parse_dim_mask(KernelContext& ctx, const char* op, const EValue* arg, int32_t rank, bool empty_is_all,
                    bool* mask);
// Mask with the single dim `d` (normalised; fails when out of range).
bool single_dim_mask(KernelContext& ctx, const char* op, int64_t d, int32_t rank, bool* mask, int64_t* norm = nullptr);
inline void all_dims_mask(int32_t rank, bool* mask) {
  for (int i = 0; i < kMaxDims; ++i) mask[i] = i < rank;
}

// The shape of `in` reduced over mask.
void reduced_shape(const Tensor& in, const bool* mask, bool keepdim, int64_t* sizes, int32_t* dim);

// Plan for reducing `in` over `mask` into `out` (resized to the reduced shape).
bool plan_reduce(KernelContext& ctx, const Tensor& in, const bool* mask, bool keepdim, Tensor& out,
                 ReducePlan& p);
// Plan for a row-wise op whose `out` has the shape of `in` (resized to it): the inner
// space walks the masked dims of both, the outer space the rest.
bool plan_same_shape(KernelContext& ctx, const Tensor& in, const bool* mask, Tensor& out, ReducePlan& p);

// ---- accumulation ------------------------------------------------------------------

// Accumulator of a sum or product: double for floating outputs, int64 for integral
// and bool ones (torch casts the input to the output dtype, then accumulates).
template <class T>
inline double as_acc_f(T v) { return convert<double>(v); }
template <class T>
inline int64_t as_acc_i(T v) { return convert<int64_t>(v); }

// Sum of n elements of x with stride s, in double, with several independent
// accumulators for a contiguous row.
template <class T>
inline double sum_row_f64(const T* x, int64_t n, int64_t s) {
  if (s == 1) {
    double acc[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      acc[0] += convert<double>(x[i]);
      acc[1] += convert<double>(x[i + 1]);
      acc[2] += convert<double>(x[i + 2]);
      acc[3] += convert<double>(x[i + 3]);
    }
    for (; i < n; ++i) acc[0] += convert<double>(x[i]);
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }
  double acc = 0;
  for (int64_t i = 0; i < n; ++i) acc += convert<double>(x[i * s]);
  return acc;
}

// Sum of (x - mean)^2 over n elements of x with stride s, in double, with several
// independent accumulators.
template <class T>
inline double sq_dev_row_f64(const T* x, int64_t n, int64_t s, double mean) {
  double acc[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < 4; ++k) {
      double d = convert<double>(x[(i + k) * s]) - mean;
      acc[k] += d * d;
    }
  }
  for (; i < n; ++i) {
    double d = convert<double>(x[i * s]) - mean;
    acc[0] += d * d;
  }
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

}  // namespace pte

namespace pte {

// The inner space as one strided row when it has at most one dim.
inline bool inner_row(const DimIter& it, int64_t* len, int64_t* stride_a, int64_t* stride_b = nullptr) {
  if (it.n > 1) return false;
  *len = it.n ? it.size[0] : it.numel;
  *stride_a = it.n ? it.sa[0] : 1;
  if (stride_b) *stride_b = it.n ? it.sb[0] : 1;
  return true;
}

// Sums `in` over the plan into `out` (already resized), dividing every result by
// `divisor` (1 for sum, the reduced count for mean). Floating outputs accumulate in
// double, integral and bool ones in int64 (wrapping). Defined in sum.cpp.
bool sum_reduce(KernelContext& ctx, const char* op, const ReducePlan& p, const Tensor& in, Tensor& out,
                double divisor);

}  // namespace pte

namespace pte {

template <class C>
inline bool isnan_v(C v) {
  if constexpr (std::is_floating_point_v<C>)
    return std::isnan(v);
  else
    return false;
}

// True when v replaces `best` in a max (IsMax) or min scan that keeps the first of
// equal values and lets the first NaN win (torch's max/min/argmax semantics).
template <bool IsMax, class C>
inline bool better(C v, C best) {
  if (isnan_v(best)) return false;
  if (isnan_v(v)) return true;
  if constexpr (IsMax)
    return v > best;
  else
    return v < best;
}

}  // namespace pte

namespace pte {

// Calls f(a, b, k) for the indices k in [begin, end) of `it` (logical order), a and b
// being the stream offsets of index k.
template <class F>
inline void for_each_range(const DimIter& it, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  if (it.n == 0) {
    f(int64_t{0}, int64_t{0}, int64_t{0});
    return;
  }
  int64_t idx[kMaxDims];
  int64_t a = 0, b = 0, rem = begin;
  for (int d = it.n - 1; d >= 0; --d) {
    idx[d] = rem % it.size[d];
    rem /= it.size[d];
    a += idx[d] * it.sa[d];
    b += idx[d] * it.sb[d];
  }
  for (int64_t k = begin; k < end; ++k) {
    f(a, b, k);
    for (int d = it.n - 1; d >= 0; --d) {
      a += it.sa[d];
      b += it.sb[d];
      if (++idx[d] < it.size[d]) break;
      a -= it.sa[d] * it.size[d];
      b -= it.sb[d] * it.size[d];
      idx[d] = 0;
    }
  }
}

// Runs f(a, b, k) for every index k of `it`, split into chunks over ctx.threadpool
// when there is one and `work` (elements touched in all) is large enough to pay for
// it; serially otherwise. f must only write what index k owns.
void parallel_chunks(KernelContext& ctx, int64_t n, int64_t work, void (*task)(void*, size_t), void* job,
                     int64_t* chunk);

template <class F>
struct OuterJob {
  const DimIter* it;
  F* f;
  int64_t chunk;
};

template <class F>
void outer_job_task(void* p, size_t i) {
  auto* j = static_cast<OuterJob<F>*>(p);
  const int64_t begin = static_cast<int64_t>(i) * j->chunk;
  const int64_t end = begin + j->chunk < j->it->numel ? begin + j->chunk : j->it->numel;
  for_each_range(*j->it, begin, end, *j->f);
}

template <class F>
inline void parallel_for_each(KernelContext& ctx, const DimIter& it, int64_t work, F&& f) {
  using Fn = std::remove_reference_t<F>;
  OuterJob<Fn> job{&it, &f, 0};
  parallel_chunks(ctx, it.numel, work, &outer_job_task<Fn>, &job, &job.chunk);
}

}  // namespace pte

namespace pte {

// Max (IsMax) or min of n >= 1 elements of x with stride s; a NaN anywhere gives
// NaN. Branch-free over the row so the compiler can vectorise it.
template <bool IsMax, class T>
inline compute_t<T> minmax_row(const T* x, int64_t n, int64_t s) {
  using C = compute_t<T>;
  C best = static_cast<C>(x[0]);
  if constexpr (std::is_floating_point_v<C>) {
    bool nan = false;
    for (int64_t i = 0; i < n; ++i) {
      C v = static_cast<C>(x[i * s]);
      nan |= v != v;
      if constexpr (IsMax)
        best = v > best ? v : best;
      else
        best = v < best ? v : best;
    }
    return nan ? std::numeric_limits<C>::quiet_NaN() : best;
  } else {
    for (int64_t i = 1; i < n; ++i) {
      C v = static_cast<C>(x[i * s]);
      if constexpr (IsMax)
        best = v > best ? v : best;
      else
        best = v < best ? v : best;
    }
    return best;
  }
}

// Index of the first max (IsMax) or min of n >= 1 elements of x with stride s; the
// first NaN wins.
template <bool IsMax, class T>
inline int64_t arg_row(const T* x, int64_t n, int64_t s) {
  using C = compute_t<T>;
  C best = static_cast<C>(x[0]);
  if (isnan_v(best)) return 0;
  int64_t idx = 0;
  for (int64_t i = 1; i < n; ++i) {
    C v = static_cast<C>(x[i * s]);
    if (isnan_v(v)) return i;
    if (IsMax ? v > best : v < best) {
      best = v;
      idx = i;
    }
  }
  return idx;
}

}  // namespace pte

namespace pte {

// ---- conversion at the edges -------------------------------------------------------
// Kernels that are not on a hot path compute in few types (double for floating
// results, int64 for integral ones, float where torch accumulates in float) and
// convert rows of their input into a small stack buffer of that type with these
// functions: the dtype switch runs once per chunk, and the kernel's loop exists once
// per compute type instead of once per input dtype x output dtype.

constexpr int64_t kChunk = 256;  // elements converted per call (a multiple of 4)

// dst[i] = convert<C>(x[off + i * s]) for i < n, x being `base` read as dtype dt
// (is_any_dtype), C = double, float or int64_t.
void load_row(DType dt, const void* base, int64_t off, int64_t n, int64_t s, double* dst);
void load_row(DType dt, const void* base, int64_t off, int64_t n, int64_t s, float* dst);
void load_row(DType dt, const void* base, int64_t off, int64_t n, int64_t s, int64_t* dst);

// Converts the elements of indices [begin, begin + n) of stream a of `it` (offset by
// a0) like load_row; one strided load_row when `it` has at most one dim.
void gather(DType dt, const void* base, const DimIter& it, int64_t a0, int64_t begin, int64_t n, double* dst);
void gather(DType dt, const void* base, const DimIter& it, int64_t a0, int64_t begin, int64_t n, float* dst);
void gather(DType dt, const void* base, const DimIter& it, int64_t a0, int64_t begin, int64_t n, int64_t* dst);

// Writes src[i] to element off + i * s of t for i < n, converted to t's dtype.
void store_row(const Tensor& t, int64_t off, int64_t n, int64_t s, const double* src);
void store_row(const Tensor& t, int64_t off, int64_t n, int64_t s, const float* src);
void store_row(const Tensor& t, int64_t off, int64_t n, int64_t s, const int64_t* src);
// Same for indices [begin, begin + n) of stream b of `it` (offset by b0).
void scatter(const Tensor& t, const DimIter& it, int64_t b0, int64_t begin, int64_t n, const double* src);
void scatter(const Tensor& t, const DimIter& it, int64_t b0, int64_t begin, int64_t n, const float* src);
void scatter(const Tensor& t, const DimIter& it, int64_t b0, int64_t begin, int64_t n, const int64_t* src);

// Calls f(buf, m, i) for consecutive chunks of the space `it` walked from input
// offset a0: buf holds elements [i, i + m) converted to C.
template <class C, class F>
inline void for_chunks(DType dt, const void* base, const DimIter& it, int64_t a0, F&& f) {
  C buf[kChunk];
  for (int64_t i = 0; i < it.numel; i += kChunk) {
    const int64_t m = it.numel - i < kChunk ? it.numel - i : kChunk;
    gather(dt, base, it, a0, i, m, buf);
    f(static_cast<const C*>(buf), m, i);
  }
}

}  // namespace pte

namespace pte {

// Offset (stream a, from a0) of logical index k of `it`.
int64_t iter_offset(const DimIter& it, int64_t a0, int64_t k);
// Logical index, in the space `it` walked from input offset a0 (it.numel >= 1), of
// the first maximum (is_max) or minimum of `in`; the first NaN wins (torch's
// max/min/argmax semantics). Compares in double (floating dtypes) or int64.
int64_t arg_extreme(const Tensor& in, const DimIter& it, int64_t a0, bool is_max);
// out[dst] = in[src] (same dtype), bytes copied.
void copy_element(const Tensor& in, int64_t src, const Tensor& out, int64_t dst);
// True when element `off` of t is a floating NaN.
bool is_nan_at(const Tensor& t, int64_t off);

}  // namespace pte

namespace pte {

// Sum of term(x) over the reduced space of one row, in double, with four
// accumulators when `multi` (the order sum_row_f64 / sq_dev_row_f64 use) or one.
template <class F>
double row_sum(const DimIter& inner, const Tensor& in, int64_t ra, bool multi, F&& term) {
  double acc[4] = {0, 0, 0, 0};
  for_chunks<double>(in.dtype, in.data, inner, ra, [&](const double* buf, int64_t m, int64_t) {
    int64_t i = 0;
    if (multi)
      for (; i + 4 <= m; i += 4)
        for (int k = 0; k < 4; ++k) acc[k] += term(buf[i + k]);
    for (; i < m; ++i) acc[0] += term(buf[i]);
  });
  return multi ? (acc[0] + acc[1]) + (acc[2] + acc[3]) : acc[0];
}

}  // namespace pte
