// aten::index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *, Tensor(a!) out)
//   out = self; out[indices] = values (broadcast to the indexed shape), or += with accumulate
//   (repeated positions then add up; without it the last write wins).
// aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)
//   the same, in place on self.
#include <algorithm>

#include "ops/shape/index_common.h"

namespace pte {

using namespace shape;

namespace {
struct PutState {
  KernelContext* ctx;
  const IndexPlan* p;
  const Tensor* out;
  const Tensor* values;
  View dst, src;  // blocks over the sliced dims
  bool accumulate;
  bool single;  // every dim indexed, one dtype, no accumulate: one element
  size_t es;
};

template <class T>
void add_block(const Tensor& out, const View& dv, const Tensor& values, const View& sv) {
  T* o = static_cast<T*>(out.data);
  const T* v = static_cast<const T*>(values.data);
  walk2(dv, sv, [&](int64_t od, int64_t os, int64_t n, int64_t sd, int64_t ss) {
    for (int64_t k = 0; k < n; ++k) {
      T& d = o[od + k * sd];
      const T x = v[os + k * ss];
      if constexpr (std::is_same_v<T, bool>) {
        d = d || x;
      } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        d = T(static_cast<float>(d) + static_cast<float>(x));
      } else {
        d = static_cast<T>(d + x);
      }
    }
  });
}

bool put_block(void* state, int64_t b_offset, const int64_t* vals) {
  auto& s = *static_cast<PutState*>(state);
  int64_t off = 0;
  for (int k = 0; k < s.p->nslot; ++k) off += vals[k] * s.out->strides[s.p->slot_dim[k]];
  if (s.single) {
    std::memcpy(static_cast<uint8_t*>(s.out->data) + off * s.es, static_cast<const uint8_t*>(s.values->data) + b_offset * s.es, s.es);
    return true;
  }
  s.dst.offset = off;
  s.src.offset = b_offset;
  if (!s.accumulate) return copy_view(*s.ctx, *s.out, s.dst, *s.values, s.src);
  dispatch_dtype(s.out->dtype, [&](auto t) { add_block<decltype(t)>(*s.out, s.dst, *s.values, s.src); });
  return true;
}

// Writes values into `out` (which already holds self's data).
bool index_put_impl(KernelContext& ctx, Tensor& out, const EValue* indices, const Tensor& values, bool accumulate, const char* op) {
  IndexPlan p;
  if (!make_index_plan(ctx, out, indices, p, op)) return false;
  if (accumulate && values.dtype != out.dtype)
    return ctx.fail("%s: values dtype %s must match self dtype %s", op, dtype_name(values.dtype), dtype_name(out.dtype));
  if (accumulate && !dispatch_dtype(out.dtype, [](auto) {}))
    return ctx.fail("%s: accumulate is not supported for %s", op, dtype_name(out.dtype));
  // values broadcast to the indexed shape
  if (values.dim > p.out_dim) {
    char b1[160], b2[160];
    return ctx.fail("%s: values of shape %s cannot be broadcast to the indexed shape %s", op,
                    shape_string(values.sizes, values.dim, b1, sizeof b1), shape_string(p.out_sizes, p.out_dim, b2, sizeof b2));
  }
  int64_t vstr[kMaxDims];
  for (int r = 0; r < p.out_dim; ++r) {
    const int vd = values.dim - p.out_dim + r;
    const int64_t vs = vd >= 0 ? values.sizes[vd] : 1;
    if (vs != 1 && vs != p.out_sizes[r]) {
      char b1[160], b2[160];
      return ctx.fail("%s: values of shape %s cannot be broadcast to the indexed shape %s", op,
                      shape_string(values.sizes, values.dim, b1, sizeof b1), shape_string(p.out_sizes, p.out_dim, b2, sizeof b2));
    }
    vstr[r] = vs == 1 ? 0 : values.strides[vd];
  }
  if (p.nslot == 0) {  // self[...] = values over the whole tensor
    View sv;
    sv.dim = p.out_dim;
    sv.offset = 0;
    for (int r = 0; r < p.out_dim; ++r) {
      sv.sizes[r] = p.out_sizes[r];
      sv.strides[r] = vstr[r];
    }
    if (!accumulate) return copy_view(ctx, out, view_of(out), values, sv);
    dispatch_dtype(out.dtype, [&](auto t) { add_block<decltype(t)>(out, view_of(out), values, sv); });
    return true;
  }
  PutState s{&ctx, &p, &out, &values, {}, {}, accumulate, p.nsliced == 0 && !accumulate && values.dtype == out.dtype,
             dtype_size(out.dtype)};
  s.dst.dim = s.src.dim = p.nsliced;
  for (int k = 0; k < p.nsliced; ++k) {
    s.dst.sizes[k] = s.src.sizes[k] = out.sizes[p.sliced_dim[k]];
    s.dst.strides[k] = out.strides[p.sliced_dim[k]];
    s.src.strides[k] = vstr[p.sliced_pos[k]];
  }
  for (int k = 0; k < p.nsliced; ++k)
    if (s.dst.sizes[k] == 0) return true;
  int64_t bstr[kMaxDims];
  for (int j = 0; j < p.bdim; ++j) bstr[j] = vstr[p.b_pos + j];
  return for_each_index(ctx, p, out, bstr, put_block, &s, op);
}
}  // namespace

bool index_put_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *values, *out;
  bool accumulate;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "values", values) ||
      !arg_bool(ctx, args[3], "accumulate", accumulate) || !arg_tensor(ctx, args[4], "out", out))
    return false;
  if (out->dtype != in->dtype)
    return ctx.fail("index_put: out dtype %s must match self dtype %s", dtype_name(out->dtype), dtype_name(in->dtype));
  if (!resize_output_like(ctx, *out, *in)) return false;
  // out in self's own memory (the loader's KV-cache update in place): nothing to copy
  const bool same = out->data == in->data && out->dim == in->dim &&
                    std::equal(in->strides, in->strides + in->dim, out->strides);
  if (!same && !copy_tensor(ctx, *out, *in)) return false;
  return index_put_impl(ctx, *out, args[1], *values, accumulate, "index_put");
}

bool index_put_inplace(KernelContext& ctx, EValue** args) {
  Tensor *self, *values;
  bool accumulate;
  if (!arg_tensor(ctx, args[0], "self", self) || !arg_tensor(ctx, args[2], "values", values) ||
      !arg_bool(ctx, args[3], "accumulate", accumulate))
    return false;
  if (!index_put_impl(ctx, *self, args[1], *values, accumulate, "index_put_")) return false;
  // The return slot aliases self; if it is a separate tensor value, make it hold the result.
  EValue* ret = args[4];
  if (ret && ret != args[0] && ret->tag == Tag::Tensor && ret->t != self) {
    Tensor& r = *ret->t;
    if (!r.data) {  // unbound: make it a view of self
      r.data = self->data;
      r.capacity = self->nbytes();
    }
    if (r.dtype != self->dtype) return ctx.fail("index_put_: the return value's dtype differs from self's");
    if (r.data == self->data) return resize_output_like(ctx, r, *self);
    return resize_output_like(ctx, r, *self) && copy_tensor(ctx, r, *self);
  }
  return true;
}

}  // namespace pte
