// aten::index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
//   Advanced indexing self[indices] (see index_common.h): for every position of the
//   broadcast index shape, copies the block of self's non-indexed dims.
#include "ops/shape/index_common.h"

namespace pte {

using namespace shape;

namespace {
struct IndexState {
  KernelContext* ctx;
  const IndexPlan* p;
  const Tensor* self;
  const Tensor* out;
  View src, dst;  // blocks over the sliced dims
  bool single;    // every dim indexed and one dtype: copy one element
  size_t es;
};

bool index_block(void* state, int64_t b_offset, const int64_t* values) {
  auto& s = *static_cast<IndexState*>(state);
  int64_t off = 0;
  for (int k = 0; k < s.p->nslot; ++k) off += values[k] * s.self->strides[s.p->slot_dim[k]];
  if (s.single) {
    std::memcpy(static_cast<uint8_t*>(s.out->data) + b_offset * s.es, static_cast<const uint8_t*>(s.self->data) + off * s.es, s.es);
    return true;
  }
  s.src.offset = off;
  s.dst.offset = b_offset;
  return copy_view(*s.ctx, *s.out, s.dst, *s.self, s.src);
}
}  // namespace

bool index_tensor_out(KernelContext& ctx, EValue** args) {
  Tensor *in, *out;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_tensor(ctx, args[2], "out", out)) return false;
  IndexPlan p;
  if (!make_index_plan(ctx, *in, args[1], p, "index")) return false;
  if (!resize_output(ctx, *out, p.out_sizes, p.out_dim)) return false;
  if (p.nslot == 0) return copy_tensor(ctx, *out, *in);
  IndexState s{&ctx, &p, in, out, {}, {}, p.nsliced == 0 && in->dtype == out->dtype, dtype_size(in->dtype)};
  s.src.dim = s.dst.dim = p.nsliced;
  for (int k = 0; k < p.nsliced; ++k) {
    s.src.sizes[k] = s.dst.sizes[k] = in->sizes[p.sliced_dim[k]];
    s.src.strides[k] = in->strides[p.sliced_dim[k]];
    s.dst.strides[k] = out->strides[p.sliced_pos[k]];
  }
  for (int k = 0; k < p.nsliced; ++k)
    if (s.src.sizes[k] == 0) return true;
  int64_t bstr[kMaxDims];
  for (int j = 0; j < p.bdim; ++j) bstr[j] = out->strides[p.b_pos + j];
  return for_each_index(ctx, p, *in, bstr, index_block, &s, "index");
}

}  // namespace pte
