// pte-run elementwise kernels: the shared engine.
//
// Every elementwise kernel follows the same four steps:
//   1. read its arguments and find the result type of its inputs (torch.result_type
//      rules: dim tensors > zero-dim tensors > Scalars, by category),
//   2. broadcast the input shapes and resize `out` to the result,
//   3. pick a compute type C (float for f32/f16/bf16, double for f64, int64 for the
//      integers and bool), and
//   4. call map<C>(...) with a small functor holding the per-element math.
//
// map() walks the output in its own physical order (its dim_order), with every input
// read through its strides (0 where it is broadcast), after merging dimensions that
// are contiguous for all operands: a contiguous op becomes one flat loop. Each row is
// processed in chunks: an input whose storage type is C and whose row is dense is
// read in place, others are converted into a small stack buffer first (one function
// pointer call per chunk, never per element). Same for the output.
// Nothing here allocates.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <utility>

#include "ops/util.h"

namespace pte::ew {

constexpr DType kNoDType = static_cast<DType>(-1);

// ---- dtype classes, promotion ---------------------------------------------------

bool is_floating(DType t);  // Float, Double, Half, BFloat16
bool is_integral(DType t);  // UInt8, Int8, Int16, Int32, Int64 (not Bool)
bool is_known(DType t);     // one of the ten dtypes the kernels compute with
// torch.promote_types over the ten dtypes; kNoDType when either is not one of them.
DType promote_types(DType a, DType b);
// torch.can_cast: no float -> integral, no non-bool -> bool.
bool can_cast(DType from, DType to);

// torch.result_type over tensors and Scalars. Zero-dim tensors count only when their
// category (bool < integral < floating) is higher than the dim tensors'; Scalars only
// when higher than all tensors, as int64 / float32 / bool.
class ResultType {
 public:
  void add(const Tensor& t);
  void add_scalar(const EValue& s);  // Int, Double or Bool
  DType get() const;

 private:
  DType dim_ = kNoDType, zero_ = kNoDType, wrapped_ = kNoDType;
};

// The dtype a C++ storage type corresponds to.
template <class T> constexpr DType storage_dtype();
template <> constexpr DType storage_dtype<float>() { return DType::Float; }
template <> constexpr DType storage_dtype<double>() { return DType::Double; }
template <> constexpr DType storage_dtype<int64_t>() { return DType::Int64; }
template <> constexpr DType storage_dtype<int32_t>() { return DType::Int32; }
template <> constexpr DType storage_dtype<int16_t>() { return DType::Int16; }
template <> constexpr DType storage_dtype<int8_t>() { return DType::Int8; }
template <> constexpr DType storage_dtype<uint8_t>() { return DType::UInt8; }
template <> constexpr DType storage_dtype<bool>() { return DType::Bool; }
template <> constexpr DType storage_dtype<Half>() { return DType::Half; }
template <> constexpr DType storage_dtype<BFloat16>() { return DType::BFloat16; }

// Calls f(C{}) with C the compute type of `common`: float (f32, f16, bf16), double,
// or int64 (integers and bool). Fails for any other dtype.
template <class F>
bool with_compute(KernelContext& ctx, DType common, F&& f) {
  switch (common) {
    case DType::Double: return f(double{});
    case DType::Float:
    case DType::Half:
    case DType::BFloat16: return f(float{});
    case DType::UInt8:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::Bool: return f(int64_t{});
    default: return ctx.fail("unsupported dtype %s", dtype_name(common));
  }
}

// A Scalar argument (Int, Double or Bool EValue) as a C.
template <class C>
inline C scalar_as(const EValue& v) {
  if (v.tag == Tag::Double) return convert<C>(v.d);
  if (v.tag == Tag::Bool) return convert<C>(v.b);
  return convert<C>(v.i);
}
// Writes a Scalar argument as one element of dtype `t` at `dst` (Int scalars keep all
// 64 bits). False for an unknown dtype.
bool write_scalar(const EValue& v, DType t, void* dst);

// ---- integer helpers (wrapping, no UB) -------------------------------------------

inline int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
inline int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

template <class C> inline C add_(C a, C b) { if constexpr (std::is_same_v<C, int64_t>) return wrap_add(a, b); else return a + b; }
template <class C> inline C sub_(C a, C b) { if constexpr (std::is_same_v<C, int64_t>) return wrap_sub(a, b); else return a - b; }
template <class C> inline C mul_(C a, C b) { if constexpr (std::is_same_v<C, int64_t>) return wrap_mul(a, b); else return a * b; }

// ---- operands -------------------------------------------------------------------

// An input of map(): a tensor, a view of one (glu's halves) or a single Scalar value.
struct Operand {
  const void* data = nullptr;
  DType dtype = DType::Float;
  int32_t dim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
};

inline Operand operand(const Tensor& t) {
  Operand o;
  o.data = t.data;
  o.dtype = t.dtype;
  o.dim = t.dim;
  for (int i = 0; i < t.dim; ++i) {
    o.sizes[i] = t.sizes[i];
    o.strides[i] = t.strides[i];
  }
  return o;
}

// A zero-dim operand reading the value at `v` (which must outlive the map() call).
template <class T>
inline Operand scalar_operand(const T* v) {
  Operand o;
  o.data = v;
  o.dtype = storage_dtype<T>();
  return o;
}

// ---- argument helpers -------------------------------------------------------------

// The tensor of argument `v`, or null after failing the context with a message.
Tensor* tensor_arg(KernelContext& ctx, EValue* v, const char* name);
// True when v is an Int, Double or Bool (a Scalar); otherwise fails the context.
bool scalar_arg(KernelContext& ctx, const EValue* v, const char* name);
// "[2,3,4]" into buf.
const char* shape_str(char* buf, size_t n, const int64_t* sizes, int32_t dim);
// Broadcast shape of n tensors (numpy rules); fails the context when incompatible.
bool broadcast_all(KernelContext& ctx, const Tensor* const* ts, int n, int64_t* out, int32_t* out_dim);
// True when `t` broadcasts to exactly the shape (sizes, dim).
bool broadcasts_to(const Tensor& t, const int64_t* sizes, int32_t dim);
// Fails unless the result type `from` can be written into `out` (torch.can_cast).
bool check_cast(KernelContext& ctx, DType from, const Tensor& out);

// ---- iteration plan ---------------------------------------------------------------

constexpr int kMaxOperands = 4;  // out + up to three inputs

struct Plan {
  int nops = 0;  // operand 0 is the output
  int32_t ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxOperands][kMaxDims] = {};  // in elements, 0 where broadcast
};

// Iterates `out`'s shape in its physical order; inputs broadcast to it (callers have
// checked that they do). Drops size-1 dims and merges dims contiguous for all operands.
void make_plan(Plan& p, const Tensor& out, const Operand* in, int nin);

// Calls f(offsets, n) for each row segment of elements [begin, end) in plan order;
// offsets[k] is operand k's element offset of the segment's first element and the
// segment continues with stride plan.strides[k][ndim-1].
template <class F>
void for_each_row(const Plan& p, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  const int last = p.ndim - 1;
  const int64_t inner = p.sizes[last];
  int64_t coord[kMaxDims] = {};
  int64_t row = begin / inner, col = begin % inner;
  for (int d = last - 1; d >= 0; --d) {
    coord[d] = row % p.sizes[d];
    row /= p.sizes[d];
  }
  int64_t base[kMaxOperands] = {}, off[kMaxOperands];
  for (int k = 0; k < p.nops; ++k)
    for (int d = 0; d < last; ++d) base[k] += coord[d] * p.strides[k][d];
  while (begin < end) {
    int64_t n = std::min(inner - col, end - begin);
    for (int k = 0; k < p.nops; ++k) off[k] = base[k] + col * p.strides[k][last];
    f(off, n);
    begin += n;
    col = 0;
    // next row: odometer over the outer dims
    for (int d = last - 1; d >= 0; --d) {
      for (int k = 0; k < p.nops; ++k) base[k] += p.strides[k][d];
      if (++coord[d] < p.sizes[d]) break;
      for (int k = 0; k < p.nops; ++k) base[k] -= coord[d] * p.strides[k][d];
      coord[d] = 0;
    }
  }
}

// Runs fn(arg, begin, end) over [0, n), split over ctx.claim_threads (the claim pool) when n
// is large (2^18 or more), each range's ends at multiples of `unit` (or n): whole rows, or
// whole vector runs so that a kernel's tail falls where one call would put it. Returns the
// number of tasks (1: ran on the calling thread).
int64_t parallel_for(KernelContext& ctx, int64_t n, void* arg, void (*fn)(void*, int64_t, int64_t), int64_t unit = 1);

// ---- dtype conversion rows ----------------------------------------------------------

template <class C> using LoadFn = void (*)(const void* src, int64_t stride, int64_t n, C* dst);
template <class R> using StoreFn = void (*)(const R* src, void* dst, int64_t stride, int64_t n);

template <class S, class C>
void load_row(const void* src, int64_t stride, int64_t n, C* dst) {
  const S* s = static_cast<const S*>(src);
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) dst[i] = convert<C>(s[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = convert<C>(s[i * stride]);
  }
}

template <class R, class S>
void store_row(const R* src, void* dst, int64_t stride, int64_t n) {
  S* d = static_cast<S*>(dst);
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) d[i] = convert<S>(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i * stride] = convert<S>(src[i]);
  }
}

#define PTE_EW_STORAGE_TYPES(X) \
  X(Float, float)               \
  X(Double, double)             \
  X(Half, ::pte::Half)          \
  X(BFloat16, ::pte::BFloat16)  \
  X(UInt8, uint8_t)             \
  X(Int8, int8_t)               \
  X(Int16, int16_t)             \
  X(Int32, int32_t)             \
  X(Int64, int64_t)             \
  X(Bool, bool)

template <class C>
LoadFn<C> loader(DType t) {
  switch (t) {
#define PTE_EW_LOAD_CASE(DT, S) \
  case DType::DT: return &load_row<S, C>;
    PTE_EW_STORAGE_TYPES(PTE_EW_LOAD_CASE)
#undef PTE_EW_LOAD_CASE
    default: return nullptr;
  }
}

template <class R>
StoreFn<R> storer(DType t) {
  switch (t) {
#define PTE_EW_STORE_CASE(DT, S) \
  case DType::DT: return &store_row<R, S>;
    PTE_EW_STORAGE_TYPES(PTE_EW_STORE_CASE)
#undef PTE_EW_STORE_CASE
    default: return nullptr;
  }
}

// ---- map ---------------------------------------------------------------------------

constexpr int64_t kChunk = 256;

template <int N, class Op, class C>
using result_of_t = std::conditional_t<
    N == 1, std::invoke_result<Op&, C>,
    std::conditional_t<N == 2, std::invoke_result<Op&, C, C>, std::invoke_result<Op&, C, C, C>>>;

// o[i] = op(p0[i*s0], p1[i*s1], ...) for i < n, with s in {0, 1}; the common
// dense cases are written out so the compiler can vectorise them.
template <int N, class R, class C, class Op>
inline void apply_row(Op& op, R* o, const C* const* p, const int64_t* s, int64_t n) {
  if constexpr (N == 1) {
    const C* a = p[0];
    if (s[0]) {
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i]);
    } else {
      R v = op(a[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    }
  } else if constexpr (N == 2) {
    const C* a = p[0];
    const C* b = p[1];
    if (s[0] && s[1]) {
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], b[i]);
    } else if (s[0]) {
      const C bv = b[0];
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], bv);
    } else if (s[1]) {
      const C av = a[0];
      for (int64_t i = 0; i < n; ++i) o[i] = op(av, b[i]);
    } else {
      R v = op(a[0], b[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    }
  } else {
    const C* a = p[0];
    const C* b = p[1];
    const C* c = p[2];
    const int64_t sa = s[0], sb = s[1], sc = s[2];
    for (int64_t i = 0; i < n; ++i) o[i] = op(a[i * sa], b[i * sb], c[i * sc]);
  }
}

// The per-op part of map(): apply_row for one Op behind a function pointer, so that
// the chunking, loading and storing below (MapJob) exist once per (N, C, R) and not
// once per op.
template <int N, class R, class C>
using RowFn = void (*)(void* op, R* o, const C* const* p, const int64_t* s, int64_t n);

template <int N, class R, class C, class Op>
void apply_row_fn(void* op, R* o, const C* const* p, const int64_t* s, int64_t n) {
  apply_row<N, R, C>(*static_cast<Op*>(op), o, p, s, n);
}

template <int N, class C, class R>
struct MapJob {
  const Plan* plan;
  void* op;
  RowFn<N, R, C> row;
  const char* in_base[N];
  size_t in_size[N];
  bool in_direct[N];  // storage type is C
  LoadFn<C> load[N];
  char* out_base;
  size_t out_size;
  bool out_direct;  // storage type is R
  StoreFn<R> store;

  static void run(void* self, int64_t begin, int64_t end) { static_cast<MapJob*>(self)->range(begin, end); }

  void range(int64_t begin, int64_t end) {
    alignas(64) C buf[N][kChunk];
    alignas(64) R obuf[kChunk];
    const int last = plan->ndim - 1;
    for_each_row(*plan, begin, end, [&](const int64_t* off, int64_t n) {
      for (int64_t c0 = 0; c0 < n; c0 += kChunk) {
        const int64_t m = std::min(kChunk, n - c0);
        const C* p[N];
        int64_t step[N];
        for (int j = 0; j < N; ++j) {
          const int64_t s = plan->strides[j + 1][last];
          const char* src = in_base[j] + static_cast<size_t>(off[j + 1] + c0 * s) * in_size[j];
          if (s == 0) {
            step[j] = 0;
            if (in_direct[j]) {
              p[j] = reinterpret_cast<const C*>(src);
            } else {
              load[j](src, 0, 1, buf[j]);
              p[j] = buf[j];
            }
          } else if (s == 1 && in_direct[j]) {
            step[j] = 1;
            p[j] = reinterpret_cast<const C*>(src);
          } else {
            step[j] = 1;
            load[j](src, s, m, buf[j]);
            p[j] = buf[j];
          }
        }
        const int64_t so = plan->strides[0][last];
        char* dst = out_base + static_cast<size_t>(off[0] + c0 * so) * out_size;
        R* o = (so == 1 && out_direct) ? reinterpret_cast<R*>(dst) : obuf;
        row(op, o, p, step, m);
        if (o == obuf) store(obuf, dst, so, m);
      }
    });
  }
};

// map() without the op: runs `row` over out's plan (defined once per N, C, R; kept
// out of line so that every op shares the one copy).
template <int N, class C, class R>
__attribute__((noinline)) bool map_rows(KernelContext& ctx, Tensor& out, const Operand* in, void* op, RowFn<N, R, C> row) {
  Plan plan;
  make_plan(plan, out, in, N);
  if (plan.numel == 0) return true;
  if (!out.data) return ctx.fail("output tensor has no memory");
  MapJob<N, C, R> job;
  job.plan = &plan;
  job.op = op;
  job.row = row;
  for (int j = 0; j < N; ++j) {
    if (!in[j].data) return ctx.fail("input %d has no data", j);
    job.in_base[j] = static_cast<const char*>(in[j].data);
    job.in_size[j] = dtype_size(in[j].dtype);
    job.in_direct[j] = in[j].dtype == storage_dtype<C>();
    job.load[j] = loader<C>(in[j].dtype);
    if (!job.load[j]) return ctx.fail("unsupported input dtype %s", dtype_name(in[j].dtype));
  }
  job.out_base = static_cast<char*>(out.data);
  job.out_size = dtype_size(out.dtype);
  job.out_direct = out.dtype == storage_dtype<R>();
  job.store = storer<R>(out.dtype);
  if (!job.store) return ctx.fail("unsupported output dtype %s", dtype_name(out.dtype));
  parallel_for(ctx, plan.numel, &job, &MapJob<N, C, R>::run);
  return true;
}

// out[...] = op(in[0][...], ..., in[N-1][...]) over out's shape, inputs loaded as C,
// results (type R = op's return type) converted to out's dtype. `out` must already
// have its final shape and every input must broadcast to it.
template <class C, int N, class Op>
bool map(KernelContext& ctx, Tensor& out, const Operand (&in)[N], Op& op) {
  using R = typename result_of_t<N, Op, C>::type;
  static_assert(N >= 1 && N <= 3, "map takes one to three inputs");
  return map_rows<N, C, R>(ctx, out, in, const_cast<void*>(static_cast<const void*>(&op)),
                           &apply_row_fn<N, R, C, Op>);
}

// Copies `src` (broadcast to out's shape) into out, converting the dtype; a raw
// element copy when the dtypes match. `out` must already have its final shape.
bool copy_into(KernelContext& ctx, Tensor& out, const Operand& src);

// ---- Scalars in the result dtype ------------------------------------------------------

// Storage for one Scalar argument turned into a zero-dim operand.
struct ScalarBox {
  alignas(8) unsigned char bytes[8] = {};
};

// The Scalar `v` as a zero-dim operand of dtype `t` (torch casts a wrapped number to
// the common dtype before computing). False for an unknown dtype.
inline bool scalar_operand_as(const EValue& v, DType t, ScalarBox& box, Operand& o) {
  if (!write_scalar(v, t, box.bytes)) return false;
  o = Operand();
  o.data = box.bytes;
  o.dtype = t;
  return true;
}

// The Scalar `v` rounded through dtype `t`, as a C.
template <class C>
inline C scalar_in(const EValue& v, DType t) {
  ScalarBox box;
  if (!write_scalar(v, t, box.bytes)) return scalar_as<C>(v);
  C c;
  loader<C>(t)(box.bytes, 1, 1, &c);
  return c;
}

// One element (index 0) of tensor `t` as a C; `t` must have data and a known dtype.
template <class C>
inline C first_element(const Tensor& t) {
  C c;
  loader<C>(t.dtype)(t.data, 1, 1, &c);
  return c;
}

// Element 0 of tensor `t` (data and a known dtype) as a Scalar: Double for floating
// dtypes, Bool for bool, Int otherwise.
inline EValue element_scalar(const Tensor& t) {
  EValue s;
  if (is_floating(t.dtype)) {
    s.tag = Tag::Double;
    s.d = first_element<double>(t);
  } else if (t.dtype == DType::Bool) {
    s.tag = Tag::Bool;
    s.b = first_element<bool>(t);
  } else {
    s.tag = Tag::Int;
    s.i = first_element<int64_t>(t);
  }
  return s;
}

// torch's alpha_check: a Bool alpha needs a Bool result, a floating alpha a floating one.
bool check_alpha(KernelContext& ctx, DType common, const EValue* alpha);

// Fails unless `v` is None or an Int naming a memory format (contiguous, preserve,
// channels_last, channels_last_3d). The kernels write `out` in its own dim order.
bool check_memory_format(KernelContext& ctx, const EValue* v);

// ---- common kernel shapes --------------------------------------------------------------

// Reads a (self: Tensor, other: Tensor) pair, broadcasts them, resizes `out`, and
// sets `a`, `b` and the result type.
bool setup_binary(KernelContext& ctx, EValue* self, EValue* other, EValue* out_arg, Tensor*& out, Operand& a,
                  Operand& b, DType& common);
// Reads (self: Tensor, other: Scalar), resizes `out` like self, sets `a`, the result
// type (the Scalar takes part as a wrapped number) and `b`, the Scalar as a zero-dim
// operand of the result dtype (stored in `box`).
bool setup_scalar(KernelContext& ctx, EValue* self, EValue* other, EValue* out_arg, Tensor*& out, Operand& a,
                  Operand& b, DType& common, ScalarBox& box);
// Reads (self: Tensor), resizes `out` like self and sets `a`.
bool setup_unary(KernelContext& ctx, EValue* self, EValue* out_arg, Tensor*& out, Operand& a);

// ---- load-time steps (KernelPrepareFn, ops/kernel.h) ---------------------------------

// A binary op's arguments at load: self a tensor, other a tensor (a Scalar when
// `scalar_other`), out a tensor, and `alpha` (null: none) a Scalar valid for their result
// type. Returns the result type of (self, other), or kNoDType after failing the context.
// Shapes are not checked (they may change); whether out can hold the result is left to
// the caller (some ops compute in another type).
DType prepare_binary(KernelContext& ctx, EValue** args, int out_index, bool scalar_other, const EValue* alpha);
// True when every argument is a Float tensor.
inline bool all_f32(std::initializer_list<const EValue*> vs) {
  for (const EValue* v : vs)
    if (v->tag != Tag::Tensor || v->t->dtype != DType::Float) return false;
  return true;
}
// True for a Scalar that changes nothing as an alpha: Int 1 or Double 1.0.
inline bool is_unit(const EValue& v) { return (v.tag == Tag::Int && v.i == 1) || (v.tag == Tag::Double && v.d == 1.0); }

// The specialised body of a binary op whose prepare found self, other and out all Float
// tensors: broadcast, resize out, map in float. Argument kinds are not checked again.
template <class Op>
bool binary_f32(KernelContext& ctx, EValue** args, int out_index, Op& op) {
  Tensor& out = *args[out_index]->t;
  const Tensor* ts[2] = {args[0]->t, args[1]->t};
  int64_t sizes[kMaxDims];
  int32_t dim;
  if (!broadcast_all(ctx, ts, 2, sizes, &dim) || !resize_output(ctx, out, sizes, dim)) return false;
  const Operand in[2] = {operand(*ts[0]), operand(*ts[1])};
  return map<float>(ctx, out, in, op);
}
// The same with other a Scalar (an Int, Double or Bool EValue), rounded to float as torch
// does for a wrapped number in a float computation.
template <class Op>
bool binary_scalar_f32(KernelContext& ctx, EValue** args, int out_index, Op& op) {
  Tensor& out = *args[out_index]->t;
  const Tensor& x = *args[0]->t;
  if (!resize_output_like(ctx, out, x)) return false;
  const float s = scalar_as<float>(*args[1]);
  const Operand in[2] = {operand(x), scalar_operand(&s)};
  return map<float>(ctx, out, in, op);
}

// self (Tensor) -> out of the same shape, computed in C = float (double for f64
// inputs or outputs); integer and bool inputs are promoted to float. `out` must be
// floating.
template <class Op>
bool unary_float(KernelContext& ctx, EValue* self, EValue* out_arg, Op op) {
  Tensor* out;
  Operand a;
  if (!setup_unary(ctx, self, out_arg, out, a)) return false;
  if (!is_floating(out->dtype))
    return ctx.fail("result type %s can't be cast to the desired output type %s",
                    dtype_name(is_floating(a.dtype) ? a.dtype : DType::Float), dtype_name(out->dtype));
  Operand in[1] = {a};
  if (a.dtype == DType::Double || out->dtype == DType::Double) return map<double>(ctx, *out, in, op);
  return map<float>(ctx, *out, in, op);
}

// unary_float's load-time step: self and out tensors, self of a known dtype, out
// floating; all-Float arguments get unary_float_f32<Op> (nothing checked again).
bool prepare_unary_float(KernelContext& ctx, EValue** args);
// unary_activation's: self floating, out able to hold it.
bool prepare_unary_activation(KernelContext& ctx, EValue** args);
template <class Op>
bool unary_float_f32(KernelContext& ctx, EValue** args) {
  Tensor& out = *args[1]->t;
  const Tensor& x = *args[0]->t;
  if (!resize_output_like(ctx, out, x)) return false;
  const Operand in[1] = {operand(x)};
  Op op;
  return map<float>(ctx, out, in, op);
}

// self (Tensor) -> out of the same shape and category, computed in self's compute
// type.
template <class Op>
bool unary_same(KernelContext& ctx, EValue* self, EValue* out_arg, Op op) {
  Tensor* out;
  Operand a;
  if (!setup_unary(ctx, self, out_arg, out, a)) return false;
  if (!check_cast(ctx, a.dtype, *out)) return false;
  Operand in[1] = {a};
  return with_compute(ctx, a.dtype, [&](auto c) { return map<decltype(c)>(ctx, *out, in, op); });
}

// Activations defined for floating inputs only (gelu, silu, elu, ...).
template <class Op>
bool unary_activation(KernelContext& ctx, EValue* self, EValue* out_arg, Op op) {
  Tensor* out;
  Operand a;
  if (!setup_unary(ctx, self, out_arg, out, a)) return false;
  if (!is_floating(a.dtype)) return ctx.fail("input dtype %s is not supported (floating dtypes only)", dtype_name(a.dtype));
  if (!check_cast(ctx, a.dtype, *out)) return false;
  Operand in[1] = {a};
  if (a.dtype == DType::Double) return map<double>(ctx, *out, in, op);
  return map<float>(ctx, *out, in, op);
}

// ---- shared instantiations --------------------------------------------------------------
// The engine instances every op uses are compiled once, in elementwise.cpp; other
// (arity, compute, result) combinations are instantiated where they are used.

#define PTE_EW_MAP_COMBOS(X)                                                                              \
  X(1, float, float) X(1, double, double) X(1, int64_t, int64_t) X(1, bool, bool) X(1, float, double)      \
  X(1, double, float) X(1, float, bool) X(1, double, bool) X(1, int64_t, bool) X(2, float, float)          \
  X(2, double, double) X(2, int64_t, int64_t) X(2, bool, bool) X(2, float, bool) X(2, double, bool)        \
  X(2, int64_t, bool) X(3, float, float) X(3, double, double) X(3, int64_t, int64_t)
#define PTE_EW_EXTERN_MAP(N, C, R) \
  extern template bool map_rows<N, C, R>(KernelContext&, Tensor&, const Operand*, void*, RowFn<N, R, C>);
PTE_EW_MAP_COMBOS(PTE_EW_EXTERN_MAP)
#undef PTE_EW_EXTERN_MAP

extern template LoadFn<float> loader<float>(DType);
extern template LoadFn<double> loader<double>(DType);
extern template LoadFn<int64_t> loader<int64_t>(DType);
extern template LoadFn<bool> loader<bool>(DType);
extern template StoreFn<float> storer<float>(DType);
extern template StoreFn<double> storer<double>(DType);
extern template StoreFn<int64_t> storer<int64_t>(DType);
extern template StoreFn<bool> storer<bool>(DType);

}  // namespace pte::ew
