// pte-run elementwise kernels: the shared engine (see elementwise.h).
#include "ops/elementwise/elementwise.h"

#include "ops/linalg/claim_pool.h"
#include "ops/linalg/gemm_f16w.h"


#include <cstdio>

namespace pte::ew {

bool is_floating(DType t) {
  return t == DType::Float || t == DType::Double || t == DType::Half || t == DType::BFloat16;
}

bool is_integral(DType t) {
  return t == DType::UInt8 || t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64;
}

bool is_known(DType t) { return is_floating(t) || is_integral(t) || t == DType::Bool; }

DType promote_types(DType a, DType b) {
  if (!is_known(a) || !is_known(b)) return kNoDType;
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  const bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if (a == DType::Double || b == DType::Double) return DType::Double;
    return DType::Float;  // f16 with bf16, or either with f32
  }
  if (fa) return a;
  if (fb) return b;
  // two different integer types
  if (a == DType::UInt8 || b == DType::UInt8) {
    DType s = a == DType::UInt8 ? b : a;  // the signed one
    return s == DType::Int8 ? DType::Int16 : s;
  }
  return dtype_size(a) >= dtype_size(b) ? a : b;
}

bool can_cast(DType from, DType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

static DType promote_skip_none(DType a, DType b) {
  if (a == kNoDType) return b;
  if (b == kNoDType) return a;
  return promote_types(a, b);
}

void ResultType::add(const Tensor& t) {
  if (t.dim > 0)
    dim_ = promote_skip_none(dim_, t.dtype);
  else
    zero_ = promote_skip_none(zero_, t.dtype);
}

void ResultType::add_scalar(const EValue& s) {
  DType t = s.tag == Tag::Double ? DType::Float : s.tag == Tag::Bool ? DType::Bool : DType::Int64;
  wrapped_ = promote_skip_none(wrapped_, t);
}

// torch's combine_categories: the lower-priority result only counts when its
// category is higher.
static DType combine(DType higher, DType lower) {
  if (higher != kNoDType && is_floating(higher)) return higher;
  if (higher == DType::Bool || (lower != kNoDType && is_floating(lower))) return promote_skip_none(higher, lower);
  if (higher != kNoDType) return higher;
  return lower;
}

DType ResultType::get() const { return combine(dim_, combine(zero_, wrapped_)); }

bool write_scalar(const EValue& v, DType t, void* dst) {
  switch (t) {
#define PTE_EW_WRITE_CASE(DT, S)        \
  case DType::DT: {                     \
    S x = scalar_as<S>(v);              \
    std::memcpy(dst, &x, sizeof(S));    \
    return true;                        \
  }
    PTE_EW_STORAGE_TYPES(PTE_EW_WRITE_CASE)
#undef PTE_EW_WRITE_CASE
    default: return false;
  }
}

Tensor* tensor_arg(KernelContext& ctx, EValue* v, const char* name) {
  if (!expect_tag(ctx, v, Tag::Tensor, name)) return nullptr;
  if (!v->t) {
    ctx.fail("argument %s: null tensor", name);
    return nullptr;
  }
  return v->t;
}

bool scalar_arg(KernelContext& ctx, const EValue* v, const char* name) {
  if (v && (v->tag == Tag::Int || v->tag == Tag::Double || v->tag == Tag::Bool)) return true;
  return ctx.fail("argument %s: expected a Scalar (Int, Double or Bool), got %s", name, v ? tag_name(v->tag) : "nothing");
}

const char* shape_str(char* buf, size_t n, const int64_t* sizes, int32_t dim) {
  if (n == 0) return buf;
  size_t used = 0;
  auto put = [&](const char* fmt, long long x) {
    if (used + 1 >= n) return;
    int w = std::snprintf(buf + used, n - used, fmt, x);
    if (w > 0) used = std::min(n - 1, used + static_cast<size_t>(w));
  };
  buf[0] = 0;
  put("[%.0lld", 0);  // "[" (a zero-precision conversion of 0 prints nothing)
  for (int i = 0; i < dim; ++i) put(i ? ",%lld" : "%lld", static_cast<long long>(sizes[i]));
  put("]%.0lld", 0);
  return buf;
}

bool broadcast_all(KernelContext& ctx, const Tensor* const* ts, int n, int64_t* out, int32_t* out_dim) {
  int32_t nd = 0;
  for (int j = 0; j < n; ++j) nd = std::max(nd, ts[j]->dim);
  for (int k = 0; k < nd; ++k) {
    int64_t s = 1;
    for (int j = 0; j < n; ++j) {
      int id = ts[j]->dim - nd + k;
      int64_t sj = id >= 0 ? ts[j]->sizes[id] : 1;
      if (sj == 1) continue;
      if (s != 1 && s != sj) {
        char a[160], b[160];
        int other = 0;
        for (int i = 0; i < j; ++i) {
          int ii = ts[i]->dim - nd + k;
          if (ii >= 0 && ts[i]->sizes[ii] != 1) { other = i; break; }
        }
        return ctx.fail("shapes %s and %s are not broadcastable", shape_str(a, sizeof a, ts[other]->sizes, ts[other]->dim),
                        shape_str(b, sizeof b, ts[j]->sizes, ts[j]->dim));
      }
      s = sj;
    }
    out[k] = s;
  }
  *out_dim = nd;
  return true;
}

bool broadcasts_to(const Tensor& t, const int64_t* sizes, int32_t dim) {
  if (t.dim > dim) return false;
  for (int i = 0; i < t.dim; ++i) {
    int64_t s = t.sizes[i], o = sizes[dim - t.dim + i];
    if (s != 1 && s != o) return false;
  }
  return true;
}

bool check_cast(KernelContext& ctx, DType from, const Tensor& out) {
  if (can_cast(from, out.dtype)) return true;
  return ctx.fail("result type %s can't be cast to the desired output type %s", dtype_name(from), dtype_name(out.dtype));
}

void make_plan(Plan& p, const Tensor& out, const Operand* in, int nin) {
  p.nops = nin + 1;
  const int D = out.dim;
  int order[kMaxDims];
  uint32_t seen = 0;
  bool perm = true;
  for (int k = 0; k < D; ++k) {
    order[k] = out.dim_order[k];
    if (order[k] >= D || (seen >> order[k] & 1u)) perm = false;
    else seen |= 1u << order[k];
  }
  if (!perm)
    for (int k = 0; k < D; ++k) order[k] = k;
  p.numel = out.numel();
  int nd = 0;
  for (int k = 0; k < D; ++k) {
    const int d = order[k];
    const int64_t size = out.sizes[d];
    if (size == 1) continue;
    int64_t st[kMaxOperands];
    st[0] = out.strides[d];
    for (int j = 0; j < nin; ++j) {
      int id = in[j].dim - D + d;
      st[j + 1] = (id >= 0 && in[j].sizes[id] != 1) ? in[j].strides[id] : 0;
    }
    bool merge = nd > 0;
    for (int j = 0; merge && j < p.nops; ++j) merge = p.strides[j][nd - 1] == st[j] * size;
    if (merge) {
      p.sizes[nd - 1] *= size;
      for (int j = 0; j < p.nops; ++j) p.strides[j][nd - 1] = st[j];
    } else {
      p.sizes[nd] = size;
      for (int j = 0; j < p.nops; ++j) p.strides[j][nd] = st[j];
      ++nd;
    }
  }
  if (nd == 0) {
    nd = 1;
    p.sizes[0] = 1;
    for (int j = 0; j < p.nops; ++j) p.strides[j][0] = 0;
  }
  p.ndim = nd;
}

namespace {
struct ParallelTask {
  void* arg;
  void (*fn)(void*, int64_t, int64_t);
  int64_t n;
  int64_t tasks;
  int64_t unit;
  int64_t cut(int64_t x) const { return x >= n ? n : x / unit * unit; }  // (a task's ends: whole units)
};

void parallel_task(void* c, int64_t i) {
  const ParallelTask* t = static_cast<const ParallelTask*>(c);
  const int64_t b = t->cut(t->n * static_cast<int64_t>(i) / t->tasks);
  const int64_t e = t->cut(t->n * static_cast<int64_t>(i + 1) / t->tasks);
  if (e > b) t->fn(t->arg, b, e);
}
}  // namespace

int64_t parallel_for(KernelContext& ctx, int64_t n, void* arg, void (*fn)(void*, int64_t, int64_t), int64_t unit) {
  // Elements; below this threads cost more than they save. Waking a worker costs a
  // scheduler round trip (tens of microseconds idle, a whole time slice on a busy
  // machine), so only copies of a megabyte or more are split: LLM decode's KV-cache
  // sized operands (~150K elements) stay on the calling thread.
  constexpr int64_t kMinParallel = int64_t{1} << 18;
  constexpr int64_t kMinTask = int64_t{1} << 13;
  // The tasks go to the claim pool (ops/linalg/claim_pool.h) that the GEMMs and attention
  // use: one set of helper threads for every kernel. On pthreadpool, its worker went on
  // spinning after each elementwise op and took the core the next GEMM's helper needed
  // (SmolLM2 fp32, 512-token prefill on a 2-core VM: 1.3-1.5 s, 0.8-0.9 s without it).
  const int64_t threads = ctx.claim_threads;
  const int64_t tasks = threads <= 1 || n < kMinParallel || unit < 1 ? 1 : std::min<int64_t>(threads * 4, n / kMinTask);
  if (tasks < 2) {
    fn(arg, 0, n);
    return 1;
  }
  ParallelTask t{arg, fn, n, tasks, unit};
  linalg::claim_parallel_for(static_cast<int>(threads - 1), tasks, parallel_task, &t);
  return tasks;
}

// ---- copy_into --------------------------------------------------------------------------

namespace {
struct Identity {
  template <class C>
  C operator()(C x) const { return x; }
};

template <class E>
struct RawCopyJob {
  const Plan* plan;
  char* dst;
  const char* src;
  static void run(void* self, int64_t b, int64_t e) { static_cast<RawCopyJob*>(self)->range(b, e); }
  void range(int64_t begin, int64_t end) {
    const int last = plan->ndim - 1;
    const int64_t so = plan->strides[0][last], si = plan->strides[1][last];
    for_each_row(*plan, begin, end, [&](const int64_t* off, int64_t n) {
      E* d = reinterpret_cast<E*>(dst) + off[0];
      const E* s = reinterpret_cast<const E*>(src) + off[1];
      if (so == 1 && si == 1) {
        std::memmove(d, s, static_cast<size_t>(n) * sizeof(E));
      } else {
        for (int64_t i = 0; i < n; ++i) d[i * so] = s[i * si];
      }
    });
  }
};

template <class E>
void raw_copy(KernelContext& ctx, const Plan& plan, void* dst, const void* src) {
  RawCopyJob<E> job{&plan, static_cast<char*>(dst), static_cast<const char*>(src)};
  parallel_for(ctx, plan.numel, &job, &RawCopyJob<E>::run);
}

// fp16 <-> fp32 casts (an fp16 program's casts around its fp32 islands, whole KV caches
// among them): dense rows take the AVX-512F / F16C / NEON row conversions of ops/linalg/gemm_f16w.h
// (round to nearest even, as Half's), strided rows the scalar ones.
struct HalfCastJob {
  const Plan* plan;
  char* dst;
  const char* src;
  bool to_half;
  static void run(void* self, int64_t b, int64_t e) { static_cast<HalfCastJob*>(self)->range(b, e); }
  void range(int64_t begin, int64_t end) {
    const int last = plan->ndim - 1;
    const int64_t so = plan->strides[0][last], si = plan->strides[1][last];
    for_each_row(*plan, begin, end, [&](const int64_t* off, int64_t n) {
      if (to_half) {
        uint16_t* d = reinterpret_cast<uint16_t*>(dst) + off[0];
        const float* s = reinterpret_cast<const float*>(src) + off[1];
        if (so == 1 && si == 1) return linalg::convert_f32_to_f16(s, d, n);
        for (int64_t i = 0; i < n; ++i) d[i * so] = float_to_half_bits(s[i * si]);
      } else {
        float* d = reinterpret_cast<float*>(dst) + off[0];
        const uint16_t* s = reinterpret_cast<const uint16_t*>(src) + off[1];
        if (so == 1 && si == 1) return linalg::convert_f16_to_f32(s, d, n);
        for (int64_t i = 0; i < n; ++i) d[i * so] = half_bits_to_float(s[i * si]);
      }
    });
  }
};
}  // namespace

bool copy_into(KernelContext& ctx, Tensor& out, const Operand& src) {
  if (!is_known(out.dtype)) return ctx.fail("unsupported output dtype %s", dtype_name(out.dtype));
  if (!is_known(src.dtype)) return ctx.fail("unsupported input dtype %s", dtype_name(src.dtype));
  Operand in[1] = {src};
  Identity id;
  if (src.dtype == out.dtype) {
    Plan plan;
    make_plan(plan, out, in, 1);
    if (plan.numel == 0) return true;
    if (!out.data) return ctx.fail("output tensor has no memory");
    if (!src.data) return ctx.fail("input has no data");
    if (out.data == src.data && plan.strides[0][0] == plan.strides[1][0] && plan.ndim == 1) return true;  // in place
    switch (dtype_size(out.dtype)) {
      case 1: raw_copy<uint8_t>(ctx, plan, out.data, src.data); return true;
      case 2: raw_copy<uint16_t>(ctx, plan, out.data, src.data); return true;
      case 4: raw_copy<uint32_t>(ctx, plan, out.data, src.data); return true;
      case 8: raw_copy<uint64_t>(ctx, plan, out.data, src.data); return true;
      default: return ctx.fail("unsupported dtype %s", dtype_name(out.dtype));
    }
  }
  if ((src.dtype == DType::Half && out.dtype == DType::Float) || (src.dtype == DType::Float && out.dtype == DType::Half)) {
    Plan plan;
    make_plan(plan, out, in, 1);
    if (plan.numel == 0) return true;
    if (!out.data) return ctx.fail("output tensor has no memory");
    if (!src.data) return ctx.fail("input has no data");
    if (out.data != src.data) {  // (in place through another dtype: the general map below)
      HalfCastJob job{&plan, static_cast<char*>(out.data), static_cast<const char*>(src.data), out.dtype == DType::Half};
      parallel_for(ctx, plan.numel, &job, &HalfCastJob::run);
      return true;
    }
  }
  switch (out.dtype) {
    case DType::Double: return map<double>(ctx, out, in, id);
    case DType::Float:
    case DType::Half:
    case DType::BFloat16: return map<float>(ctx, out, in, id);
    case DType::Bool: return map<bool>(ctx, out, in, id);
    default: return map<int64_t>(ctx, out, in, id);
  }
}

bool check_alpha(KernelContext& ctx, DType common, const EValue* alpha) {
  if (!scalar_arg(ctx, alpha, "alpha")) return false;
  if (alpha->tag == Tag::Bool && common != DType::Bool) return ctx.fail("Boolean alpha only supported for Boolean results");
  if (alpha->tag == Tag::Double && !is_floating(common))
    return ctx.fail("for integral input tensors, argument alpha must not be a floating point number");
  return true;
}

bool check_memory_format(KernelContext& ctx, const EValue* v) {
  if (!v || v->tag == Tag::None) return true;
  if (v->tag != Tag::Int) return ctx.fail("argument memory_format: expected an Int or None, got %s", tag_name(v->tag));
  if (v->i < 0 || v->i > 3) return ctx.fail("unknown memory_format %lld", static_cast<long long>(v->i));
  return true;
}

// ---- setup helpers -------------------------------------------------------------------------

bool setup_binary(KernelContext& ctx, EValue* self, EValue* other, EValue* out_arg, Tensor*& out, Operand& a,
                  Operand& b, DType& common) {
  Tensor* x = tensor_arg(ctx, self, "self");
  Tensor* y = x ? tensor_arg(ctx, other, "other") : nullptr;
  out = y ? tensor_arg(ctx, out_arg, "out") : nullptr;
  if (!out) return false;
  const Tensor* ts[2] = {x, y};
  int64_t sizes[kMaxDims];
  int32_t dim;
  if (!broadcast_all(ctx, ts, 2, sizes, &dim)) return false;
  if (!resize_output(ctx, *out, sizes, dim)) return false;
  ResultType rt;
  rt.add(*x);
  rt.add(*y);
  common = rt.get();
  if (common == kNoDType)
    return ctx.fail("unsupported dtypes %s and %s", dtype_name(x->dtype), dtype_name(y->dtype));
  a = operand(*x);
  b = operand(*y);
  return true;
}

bool setup_scalar(KernelContext& ctx, EValue* self, EValue* other, EValue* out_arg, Tensor*& out, Operand& a,
                  Operand& b, DType& common, ScalarBox& box) {
  Tensor* x = tensor_arg(ctx, self, "self");
  if (!x || !scalar_arg(ctx, other, "other")) return false;
  out = tensor_arg(ctx, out_arg, "out");
  if (!out) return false;
  if (!resize_output_like(ctx, *out, *x)) return false;
  ResultType rt;
  rt.add(*x);
  rt.add_scalar(*other);
  common = rt.get();
  if (common == kNoDType) return ctx.fail("unsupported dtype %s", dtype_name(x->dtype));
  a = operand(*x);
  scalar_operand_as(*other, common, box, b);
  return true;
}

bool prepare_unary_float(KernelContext& ctx, EValue** args) {
  Tensor* x = tensor_arg(ctx, args[0], "self");
  Tensor* out = x ? tensor_arg(ctx, args[1], "out") : nullptr;
  if (!out) return false;
  if (!is_known(x->dtype)) return ctx.fail("unsupported dtype %s", dtype_name(x->dtype));
  if (!is_floating(out->dtype))
    return ctx.fail("result type %s can't be cast to the desired output type %s",
                    dtype_name(is_floating(x->dtype) ? x->dtype : DType::Float), dtype_name(out->dtype));
  return true;
}

bool prepare_unary_activation(KernelContext& ctx, EValue** args) {
  Tensor* x = tensor_arg(ctx, args[0], "self");
  Tensor* out = x ? tensor_arg(ctx, args[1], "out") : nullptr;
  if (!out) return false;
  if (!is_floating(x->dtype)) return ctx.fail("input dtype %s is not supported (floating dtypes only)", dtype_name(x->dtype));
  return check_cast(ctx, x->dtype, *out);
}

DType prepare_binary(KernelContext& ctx, EValue** args, int out_index, bool scalar_other, const EValue* alpha) {
  Tensor* x = tensor_arg(ctx, args[0], "self");
  if (!x || !tensor_arg(ctx, args[out_index], "out")) return kNoDType;
  ResultType rt;
  rt.add(*x);
  if (scalar_other) {
    if (!scalar_arg(ctx, args[1], "other")) return kNoDType;
    rt.add_scalar(*args[1]);
  } else {
    Tensor* y = tensor_arg(ctx, args[1], "other");
    if (!y) return kNoDType;
    rt.add(*y);
  }
  const DType common = rt.get();
  if (common == kNoDType) {
    ctx.fail("unsupported dtypes %s and %s", dtype_name(x->dtype),
             scalar_other ? tag_name(args[1]->tag) : dtype_name(args[1]->t->dtype));
    return kNoDType;
  }
  if (alpha && !check_alpha(ctx, common, alpha)) return kNoDType;
  return common;
}

bool setup_unary(KernelContext& ctx, EValue* self, EValue* out_arg, Tensor*& out, Operand& a) {
  Tensor* x = tensor_arg(ctx, self, "self");
  out = x ? tensor_arg(ctx, out_arg, "out") : nullptr;
  if (!out) return false;
  if (!is_known(x->dtype)) return ctx.fail("unsupported dtype %s", dtype_name(x->dtype));
  if (!resize_output_like(ctx, *out, *x)) return false;
  a = operand(*x);
  return true;
}

}  // namespace pte::ew

namespace pte::ew {

#define PTE_EW_INSTANTIATE_MAP(N, C, R) \
  template bool map_rows<N, C, R>(KernelContext&, Tensor&, const Operand*, void*, RowFn<N, R, C>);
PTE_EW_MAP_COMBOS(PTE_EW_INSTANTIATE_MAP)
#undef PTE_EW_INSTANTIATE_MAP

template LoadFn<float> loader<float>(DType);
template LoadFn<double> loader<double>(DType);
template LoadFn<int64_t> loader<int64_t>(DType);
template LoadFn<bool> loader<bool>(DType);
template StoreFn<float> storer<float>(DType);
template StoreFn<double> storer<double>(DType);
template StoreFn<int64_t> storer<int64_t>(DType);
template StoreFn<bool> storer<bool>(DType);

}  // namespace pte::ew
