// pte-run kernels in ops/shape: shared helpers.
//
// Nearly every shape op is "copy a strided window of the input into a strided window
// of the output". A View describes such a window (sizes, element strides that may be
// zero (broadcast) or negative (flip), and a start offset), and walk2() visits two
// same-shaped views together, one innermost run at a time: dims of size 1 are dropped,
// the dims are put in the first view's memory order (so writes are sequential), and
// dims that are contiguous in both views are merged, so a contiguous copy becomes one
// memcpy. No divisions, no allocation.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <type_traits>
#include <utility>

#include "ops/util.h"

namespace pte::shape {

// Helpers private to ops/shape (kernels themselves live in namespace pte).

// Room for views with more dims than a tensor (repeat, pixel_shuffle split dims in two).
constexpr int kMaxViewDims = 2 * kMaxDims;

struct View {
  int32_t dim = 0;
  int64_t sizes[kMaxViewDims];
  int64_t strides[kMaxViewDims];
  int64_t offset = 0;
};

// The tensor's own logical dims, strides and offset 0.
View view_of(const Tensor& t);
// t broadcast to `sizes` (numpy rules, t aligned to the right): stride 0 where t has
// size 1 or no dim. The caller has checked that t broadcasts.
View broadcast_view(const Tensor& t, const int64_t* sizes, int32_t dim);
// A row-major view of `dim` sizes over memory starting at `offset`.
View contiguous_view(const int64_t* sizes, int32_t dim, int64_t offset = 0);

// Visits N views of the same dim and sizes together, run by run:
//   fn(off, n, step) covers elements off[v] + k*step[v] of view v, for k < n.
// fn may return bool: false stops the walk (walk_views then returns false).
// With logical_order the runs come in row-major order of the logical index (needed when
// the visit order matters: masked_select, nonzero, scatter); otherwise in the first
// view's memory order.
template <class Fn>
inline bool walk_call(Fn& fn, const int64_t* off, int64_t n, const int64_t* step) {
  if constexpr (std::is_same_v<decltype(fn(off, n, step)), bool>) {
    return fn(off, n, step);
  } else {
    fn(off, n, step);
    return true;
  }
}

// Canonical dims of N same-shaped views: size-1 dims dropped, (unless logical_order)
// sorted by view 0's |stride| (largest first), and neighbours merged where every view
// chains. Returns the number of dims, or -1 when the views are empty.
template <int N>
inline int canonical_dims(const View* const* v, bool logical_order, int64_t* sz, int64_t (*st)[N]) {
  const View& a = *v[0];
  int n = 0;
  for (int d = 0; d < a.dim; ++d) {
    if (a.sizes[d] == 0) return -1;
    if (a.sizes[d] == 1) continue;
    sz[n] = a.sizes[d];
    for (int j = 0; j < N; ++j) st[n][j] = v[j]->strides[d];
    ++n;
  }
  if (!logical_order) {  // stable insertion sort by |stride of view 0|, largest first
    for (int i = 1; i < n; ++i)
      for (int k = i; k > 0 && std::llabs(st[k - 1][0]) < std::llabs(st[k][0]); --k) {
        std::swap(sz[k], sz[k - 1]);
        for (int j = 0; j < N; ++j) std::swap(st[k][j], st[k - 1][j]);
      }
  }
  int m = 0;  // merge an inner dim into the outer one when every view chains
  for (int i = 0; i < n; ++i) {
    bool chain = m > 0;
    for (int j = 0; chain && j < N; ++j) chain = st[m - 1][j] == st[i][j] * sz[i];
    if (chain) {
      sz[m - 1] *= sz[i];
      for (int j = 0; j < N; ++j) st[m - 1][j] = st[i][j];
    } else {
      sz[m] = sz[i];
      for (int j = 0; j < N; ++j) st[m][j] = st[i][j];
      ++m;
    }
  }
  return m;
}

template <int N, class Fn>
inline bool walk_views(const View* const* v, Fn&& fn, bool logical_order = false) {
  int64_t sz[kMaxViewDims], st[kMaxViewDims][N];
  const int n = canonical_dims<N>(v, logical_order, sz, st);
  if (n < 0) return true;
  int64_t off[N], step[N];
  for (int j = 0; j < N; ++j) {
    off[j] = v[j]->offset;
    step[j] = n ? st[n - 1][j] : 1;
  }
  if (n == 0) return walk_call(fn, off, 1, step);
  const int64_t inner = sz[n - 1];
  int64_t idx[kMaxViewDims] = {0};
  for (;;) {
    if (!walk_call(fn, off, inner, step)) return false;
    int d = n - 2;
    for (; d >= 0; --d) {
      for (int j = 0; j < N; ++j) off[j] += st[d][j];
      if (++idx[d] < sz[d]) break;
      for (int j = 0; j < N; ++j) off[j] -= st[d][j] * sz[d];
      idx[d] = 0;
    }
    if (d < 0) return true;
  }
}

// Two views: fn(a_off, b_off, n, a_step, b_step) (void, or bool to stop early).
template <class Fn>
inline bool walk2(const View& a, const View& b, Fn&& fn, bool logical_order = false) {
  const View* v[2] = {&a, &b};
  return walk_views<2>(v, [&](const int64_t* o, int64_t n, const int64_t* s) { return fn(o[0], o[1], n, s[0], s[1]); },
                       logical_order);
}

// Three views: fn(a_off, b_off, c_off, n, a_step, b_step, c_step).
template <class Fn>
inline bool walk3(const View& a, const View& b, const View& c, Fn&& fn, bool logical_order = false) {
  const View* v[3] = {&a, &b, &c};
  return walk_views<3>(
      v, [&](const int64_t* o, int64_t n, const int64_t* s) { return fn(o[0], o[1], o[2], n, s[0], s[1], s[2]); },
      logical_order);
}

// Calls f(U{}) with U an unsigned integer of `size` bytes (1, 2, 4, 8); false otherwise.
template <class F>
inline bool dispatch_size(size_t size, F&& f) {
  switch (size) {
    case 1: f(uint8_t{}); return true;
    case 2: f(uint16_t{}); return true;
    case 4: f(uint32_t{}); return true;
    case 8: f(uint64_t{}); return true;
    default: return false;
  }
}

// Calls f(T{}) with T the C++ type of dtype `dt` (the ten standard dtypes); false otherwise.
template <class F>
inline bool dispatch_dtype(DType dt, F&& f) {
  switch (dt) {
    case DType::Float: f(float{}); return true;
    case DType::Double: f(double{}); return true;
    case DType::Half: f(Half{}); return true;
    case DType::BFloat16: f(BFloat16{}); return true;
    case DType::UInt8: f(uint8_t{}); return true;
    case DType::Int8: f(int8_t{}); return true;
    case DType::Int16: f(int16_t{}); return true;
    case DType::Int32: f(int32_t{}); return true;
    case DType::Int64: f(int64_t{}); return true;
    case DType::Bool: f(bool{}); return true;
    default: return false;
  }
}

// dst[dv] = src[sv] (same shape). Same dtype: a byte copy (any dtype, memcpy per
// contiguous run). Different dtypes: converted like torch (standard dtypes only).
bool copy_view(KernelContext& ctx, const Tensor& dst, const View& dv, const Tensor& src, const View& sv);
// dst = src for tensors of the same shape (each in its own dim order).
bool copy_tensor(KernelContext& ctx, const Tensor& dst, const Tensor& src);
// Copies src into dst in row-major logical order (same numel, any shapes): reshape.
bool copy_reshape(KernelContext& ctx, const Tensor& dst, const Tensor& src);
// Writes one element (the bytes in `elem`) to every element of dst[dv].
void fill_view(const Tensor& dst, const View& dv, const void* elem);
// A Scalar argument (Int, Double or Bool) as one element of dtype `dt`, into 8 bytes at `elem`.
bool scalar_to_element(KernelContext& ctx, const EValue* v, DType dt, void* elem, const char* arg);

// ---- argument helpers (each fails the context with the argument's name) ----
bool arg_tensor(KernelContext& ctx, EValue* v, const char* name, Tensor*& t);
bool arg_int(KernelContext& ctx, const EValue* v, const char* name, int64_t& out);
// None -> `present` false.
bool arg_opt_int(KernelContext& ctx, const EValue* v, const char* name, int64_t& out, bool& present);
bool arg_bool(KernelContext& ctx, const EValue* v, const char* name, bool& out);
bool arg_int_list(KernelContext& ctx, const EValue* v, const char* name, const int64_t*& data, size_t& n);
// Checks the dim (may be negative) against rank and normalises it.
bool arg_dim(KernelContext& ctx, const EValue* v, const char* name, int64_t rank, int64_t& dim);

// torch's slice bounds: negative start/end wrap once, then both are clamped to
// [0, size] with end >= start; returns the number of elements taken with `step` (> 0).
inline int64_t slice_length(int64_t size, int64_t& start, int64_t& end, int64_t step) {
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (start < 0) start = 0;
  if (start > size) start = size;
  if (end < start) end = start;
  if (end > size) end = size;
  return (end - start + step - 1) / step;
}

// ---- index tensors ----
inline bool is_index_dtype(DType t) { return t == DType::Int64 || t == DType::Int32; }
inline int64_t read_index(const Tensor& t, int64_t off) {
  return t.dtype == DType::Int64 ? static_cast<const int64_t*>(t.data)[off] : static_cast<const int32_t*>(t.data)[off];
}
// Wraps a negative index like torch; false when outside [-size, size).
inline bool wrap_index(int64_t& i, int64_t size) {
  if (i < 0) i += size;
  return i >= 0 && i < size;
}
// Fails with "<op>: index <i> is out of bounds for dimension <d> with size <size>".
bool fail_index(KernelContext& ctx, const char* op, int64_t i, int64_t d, int64_t size);
// "[2,3,4]" into buf (for messages).
const char* shape_string(const int64_t* sizes, int32_t dim, char* buf, size_t cap);

}  // namespace pte::shape
