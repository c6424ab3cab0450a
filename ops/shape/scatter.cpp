// aten::scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
//   out = self; out[index[i][j]][j] = src[i][j] (dim 0; likewise for other dims).
// aten::scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out)
//   out = self; out[index[i][j]][j] = value.
// aten::scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
//   out = self; out[index[i][j]][j] += src[i][j].
// Index elements are visited in row-major order (a repeated target gets the last write).
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

bool gather_scatter_check(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                          const char* op);

namespace {

enum class Mode { Src, Value, Add };

// Runs fn(out_elem_offset, src_elem_offset) for each index element; false on a bad index.
// Applies batches of (out offset, src offset) pairs in index order: the walk exists
// once, the per-dtype part is a loop over a batch.
using ApplyFn = void (*)(void* state, const int64_t* oo, const int64_t* os, int64_t n);

bool scatter_walk(KernelContext& ctx, const Tensor& out, int64_t dim, const Tensor& index, const Tensor* src,
                  const char* op, ApplyFn apply, void* state) {
  constexpr int64_t kBatch = 256;
  int64_t bo[kBatch], bs[kBatch], nb = 0;
  const int64_t limit = out.dim ? out.sizes[dim] : 1, dstride = out.dim ? out.strides[dim] : 0;
  View ov = view_of(index), sv = view_of(index);
  for (int d = 0; d < ov.dim; ++d) {
    ov.strides[d] = d == dim ? 0 : out.strides[d];
    sv.strides[d] = src ? src->strides[d] : 0;
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
  }, /*logical_order=*/true);
  if (nb) apply(state, bo, bs, nb);  // the pairs before a bad index are applied, as before
  if (!ok) return fail_index(ctx, op, bad, dim, limit);
  return true;
}

struct Ptrs {
  void* o;
  const void* s;
};

template <class T>
void add_batch(void* st, const int64_t* oo, const int64_t* os, int64_t n) {
  T* o = static_cast<T*>(static_cast<Ptrs*>(st)->o);
  const T* s = static_cast<const T*>(static_cast<Ptrs*>(st)->s);
  for (int64_t k = 0; k < n; ++k) {
    if constexpr (std::is_same_v<T, bool>) {
      o[oo[k]] = o[oo[k]] || s[os[k]];
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      o[oo[k]] = T(static_cast<float>(o[oo[k]]) + static_cast<float>(s[os[k]]));
    } else {
      o[oo[k]] = static_cast<T>(o[oo[k]] + s[os[k]]);
    }
  }
}

template <class U>
void copy_batch(void* st, const int64_t* oo, const int64_t* os, int64_t n) {
  U* o = static_cast<U*>(static_cast<Ptrs*>(st)->o);
  const U* s = static_cast<const U*>(static_cast<Ptrs*>(st)->s);
  for (int64_t k = 0; k < n; ++k) o[oo[k]] = s[os[k]];
}

template <class U>
void fill_batch(void* st, const int64_t* oo, const int64_t*, int64_t n) {
  U* o = static_cast<U*>(static_cast<Ptrs*>(st)->o);
  const U v = *static_cast<const U*>(static_cast<Ptrs*>(st)->s);
  for (int64_t k = 0; k < n; ++k) o[oo[k]] = v;
}

bool scatter_impl(KernelContext& ctx, EValue** args, Mode mode, const char* op) {
  Tensor *in, *index, *out, *src = nullptr;
  int64_t dim;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "index", index) ||
      !arg_tensor(ctx, args[4], "out", out) || !arg_dim(ctx, args[1], "dim", in->dim, dim))
    return false;
  if (mode != Mode::Value && !arg_tensor(ctx, args[3], "src", src)) return false;
  if (!gather_scatter_check(ctx, *in, dim, *index, src, op)) return false;
  if (out->dtype != in->dtype || (src && src->dtype != in->dtype))
    return ctx.fail("%s: self, src and out must have one dtype (got %s, %s, %s)", op, dtype_name(in->dtype),
                    src ? dtype_name(src->dtype) : "-", dtype_name(out->dtype));
  if (!resize_output_like(ctx, *out, *in) || !copy_tensor(ctx, *out, *in)) return false;
  if (index->numel() == 0) return true;
  if (mode == Mode::Add) {
    ApplyFn fn = nullptr;
    dispatch_dtype(out->dtype, [&](auto t) { fn = &add_batch<decltype(t)>; });
    if (!fn) return ctx.fail("%s: unsupported dtype %s", op, dtype_name(out->dtype));
    Ptrs st{out->data, src->data};
    return scatter_walk(ctx, *out, dim, *index, src, op, fn, &st);
  }
  alignas(8) uint8_t value[8];
  if (mode == Mode::Value && !scalar_to_element(ctx, args[3], out->dtype, value, "value")) return false;
  ApplyFn fn = nullptr;
  if (!dispatch_size(dtype_size(out->dtype), [&](auto u) {
        using U = decltype(u);
        fn = mode == Mode::Value ? &fill_batch<U> : &copy_batch<U>;
      }))
    return ctx.fail("%s: unsupported dtype %s", op, dtype_name(out->dtype));
  Ptrs st{out->data, mode == Mode::Value ? static_cast<const void*>(value) : src->data};
  return scatter_walk(ctx, *out, dim, *index, mode == Mode::Value ? nullptr : src, op, fn, &st);
}

}  // namespace

bool scatter_src_out(KernelContext& ctx, EValue** args) { return scatter_impl(ctx, args, Mode::Src, "scatter"); }
bool scatter_value_out(KernelContext& ctx, EValue** args) { return scatter_impl(ctx, args, Mode::Value, "scatter"); }
bool scatter_add_out(KernelContext& ctx, EValue** args) { return scatter_impl(ctx, args, Mode::Add, "scatter_add"); }

}  // namespace pte
