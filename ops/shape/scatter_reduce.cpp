// aten::scatter_reduce.two_out(Tensor self, int dim, Tensor index, Tensor src, str reduce, *,
//                              bool include_self=True, Tensor(a!) out)
//   out = self, then out[index[i][j]][j] = reduce(out[...], src[i][j]) with reduce one of
//   "sum", "prod", "mean", "amax", "amin". Without include_self, targeted positions start
//   from the reduction's identity (self is ignored there). "mean" divides by the number of
//   contributions (floor division for integers) and needs scratch for the counts.
#include <cmath>
#include <limits>

#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool gather_scatter_check(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                          const char* op);

namespace {

enum Reduce { kSum, kProd, kMean, kAmax, kAmin };

// Calls fn(out_offset, src_offset) per index element in row-major order; false on a bad index.
// Applies batches of (out offset, src offset) pairs in index order: the walk exists
// once, the per-dtype part is a loop over a batch.
using ApplyFn = void (*)(void* state, const int64_t* oo, const int64_t* os, int64_t n);

bool for_each_target(KernelContext& ctx, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src,
                     ApplyFn apply, void* state) {
  constexpr int64_t kBatch = 256;
  int64_t bo[kBatch], bs[kBatch], nb = 0;
  const int64_t limit = out.dim ? out.sizes[dim] : 1, dstride = out.dim ? out.strides[dim] : 0;
  View ov = view_of(index), sv = view_of(index);
  for (int d = 0; d < ov.dim; ++d) {
    ov.strides[d] = d == dim ? 0 : out.strides[d];
    sv.strides[d] = src.strides[d];
  }
  int64_t bad = 0;
  bool ok = walk3(view_of(index), ov, sv, [&](int64_t oi, int64_t oo, int64_t os, int64_t n, int64_t si, int64_t so, int64_t ss) {
    for (int64_t k = 0; k < n; ++k) {
      int64_t i = read_index(index, oi + k * si);
      if (i < 0 || i >= limit) {  // torch does not wrap negative indices here
        bad = i;
        return false;
      }
      bo[nb] = oo + k * so + i * dstride;
      bs[nb] = os + k * ss;
      if (++nb == kBatch) {
        apply(state, bo, bs, nb);
        nb = 0;
      }
    }
    return true;
  }, true);
  if (nb) apply(state, bo, bs, nb);
  if (!ok) return fail_index(ctx, "scatter_reduce", bad, dim, limit);
  return true;
}

template <class T>
struct ReduceState {
  T* o;
  const T* s;
  int64_t* count;
  Reduce r;
  T id;
};

template <class T>
void fill_id_batch(void* st, const int64_t* oo, const int64_t*, int64_t n) {
  auto* rs = static_cast<ReduceState<T>*>(st);
  for (int64_t k = 0; k < n; ++k) rs->o[oo[k]] = rs->id;
}

template <class T, class C>
void reduce_batch(void* st, const int64_t* oo, const int64_t* os, int64_t n) {
  auto* rs = static_cast<ReduceState<T>*>(st);
  T* o = rs->o;
  for (int64_t k = 0; k < n; ++k) {
    const C a = static_cast<C>(o[oo[k]]), b = static_cast<C>(rs->s[os[k]]);
    C v;
    switch (rs->r) {
      case kSum:
      case kMean: v = static_cast<C>(a + b); break;
      case kProd: v = static_cast<C>(a * b); break;
      case kAmax: v = (b != b) ? b : (a < b ? b : a); break;
      default: v = (b != b) ? b : (b < a ? b : a); break;
    }
    o[oo[k]] = convert<T>(v);
    if (rs->count) ++rs->count[oo[k]];
  }
}

template <class T, class C>
bool run(KernelContext& ctx, Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, Reduce r, bool include_self) {
  T* o = static_cast<T*>(out.data);
  const T* s = static_cast<const T*>(src.data);
  int64_t* count = nullptr;
  if (r == kMean) {
    count = static_cast<int64_t*>(ctx.scratch(static_cast<size_t>(out.numel()) * sizeof(int64_t), 8));
    if (!count) return ctx.fail("scatter_reduce: \"mean\" needs %lld bytes of scratch memory, which is not available",
                                static_cast<long long>(out.numel() * 8));
    for (int64_t k = 0; k < out.numel(); ++k) count[k] = include_self ? 1 : 0;
  }
  ReduceState<T> st{o, s, count, r, T()};
  if (!include_self) {
    C id = C(0);
    if (r == kProd) id = C(1);
    if (r == kAmax) id = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest();
    if (r == kAmin) id = std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity() : std::numeric_limits<C>::max();
    st.id = convert<T>(id);
    if (!for_each_target(ctx, out, dim, index, src, &fill_id_batch<T>, &st)) return false;
  }
  if (!for_each_target(ctx, out, dim, index, src, &reduce_batch<T, C>, &st)) return false;
  if (count) {
    for (int64_t k = 0; k < out.numel(); ++k) {
      if (count[k] <= 1) continue;
      const C a = static_cast<C>(o[k]);
      if constexpr (std::is_floating_point_v<C>) {
        o[k] = convert<T>(a / static_cast<C>(count[k]));
      } else {
        C q = a / static_cast<C>(count[k]);
        if ((a % static_cast<C>(count[k]) != 0) && ((a < 0) != (count[k] < 0))) --q;  // floor
        o[k] = static_cast<T>(q);
      }
    }
  }
  return true;
}

}  // namespace

bool scatter_reduce_two_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *index, *src, *out;
  int64_t dim;
  bool include_self;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "index", index) ||
      !arg_tensor(ctx, args[3], "src", src) || !expect_tag(ctx, args[4], Tag::String, "reduce") ||
      !arg_bool(ctx, args[5], "include_self", include_self) || !arg_tensor(ctx, args[6], "out", out) ||
      !arg_dim(ctx, args[1], "dim", in->dim, dim))
    return false;
  const std::string_view name = args[4]->string();
  Reduce r;
  if (name == "sum") r = kSum;
  else if (name == "prod") r = kProd;
  else if (name == "mean") r = kMean;
  else if (name == "amax") r = kAmax;
  else if (name == "amin") r = kAmin;
  else return ctx.fail("scatter_reduce: reduce must be one of sum, prod, mean, amax, amin; got \"%.*s\"",
                       static_cast<int>(name.size()), name.data());
  if (!gather_scatter_check(ctx, *in, dim, *index, src, "scatter_reduce")) return false;
  if (out->dtype != in->dtype || src->dtype != in->dtype)
    return ctx.fail("scatter_reduce: self, src and out must have one dtype");
  if (!resize_output_like(ctx, *out, *in) || !copy_tensor(ctx, *out, *in)) return false;
  if (index->numel() == 0) return true;
  if (out->dtype == DType::Bool) return ctx.fail("scatter_reduce: bool tensors are not supported");
  bool ok = false;
  bool known = dispatch_dtype(out->dtype, [&](auto t) {
    using T = decltype(t);
    using C = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
    if constexpr (!std::is_same_v<T, bool>) ok = run<T, C>(ctx, *out, dim, *index, *src, r, include_self);
  });
  if (!known) return ctx.fail("scatter_reduce: unsupported dtype %s", dtype_name(out->dtype));
  return ok;
}

}  // namespace pte
