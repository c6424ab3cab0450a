#include "ops/shape/index_common.h"

namespace pte::shape {

static bool is_mask(DType t) { return t == DType::Bool || t == DType::UInt8; }

static bool mask_at(const Tensor& m, int64_t off) { return static_cast<const uint8_t*>(m.data)[off] != 0; }

bool make_index_plan(KernelContext& ctx, const Tensor& self, const EValue* indices, IndexPlan& p, const char* op) {
  if (!indices || (indices->tag != Tag::OptionalTensorList && indices->tag != Tag::TensorList))
    return ctx.fail("%s: indices must be a list of optional tensors, got %s", op, indices ? tag_name(indices->tag) : "nothing");
  p = IndexPlan{};
  bool indexed[kMaxDims] = {};
  int self_d = 0;
  for (size_t k = 0; k < indices->tlist.size; ++k) {
    const EValue* e = indices->tlist.items[k];
    if (!e || e->tag == Tag::None) {  // None: keep this dim
      ++self_d;
      continue;
    }
    if (e->tag != Tag::Tensor) return ctx.fail("%s: indices[%zu] is a %s, not a tensor", op, k, tag_name(e->tag));
    const Tensor& t = *e->t;
    if (is_mask(t.dtype)) {
      if (t.dim == 0) return ctx.fail("%s: a 0-d boolean index is not supported", op);
      if (self_d + t.dim > self.dim) return ctx.fail("%s: too many indices for a %d-d tensor", op, self.dim);
      int64_t nnz = 0;
      for (int64_t j = 0; j < t.numel(); ++j) nnz += mask_at(t, strided_offset(t, j));
      for (int c = 0; c < t.dim; ++c) {
        if (t.sizes[c] != self.sizes[self_d + c])
          return ctx.fail("%s: the shape of mask indices[%zu] (size %lld at dim %d) does not match self (size %lld at dim %d)",
                          op, k, static_cast<long long>(t.sizes[c]), c, static_cast<long long>(self.sizes[self_d + c]),
                          self_d + c);
        p.slot_dim[p.nslot] = self_d + c;
        p.slot_t[p.nslot] = &t;
        p.slot_comp[p.nslot] = c;
        p.slot_nnz[p.nslot] = nnz;
        indexed[self_d + c] = true;
        ++p.nslot;
      }
      self_d += t.dim;
    } else if (is_index_dtype(t.dtype)) {
      if (self_d >= self.dim) return ctx.fail("%s: too many indices for a %d-d tensor", op, self.dim);
      p.slot_dim[p.nslot] = self_d;
      p.slot_t[p.nslot] = &t;
      p.slot_comp[p.nslot] = -1;
      p.slot_nnz[p.nslot] = 0;
      indexed[self_d] = true;
      ++p.nslot;
      ++self_d;
    } else {
      return ctx.fail("%s: tensors used as indices must be int64, int32, bool or uint8, got %s", op, dtype_name(t.dtype));
    }
  }
  if (self_d > self.dim) return ctx.fail("%s: too many indices (%d) for a %d-d tensor", op, self_d, self.dim);
  // Broadcast the index shapes (a mask counts as a 1-d [nnz] tensor).
  for (int s = 0; s < p.nslot; ++s) {
    const Tensor& t = *p.slot_t[s];
    int64_t one_d = p.slot_nnz[s];
    const int64_t* sz = p.slot_comp[s] >= 0 ? &one_d : t.sizes;
    const int32_t nd = p.slot_comp[s] >= 0 ? 1 : t.dim;
    const int32_t n = nd > p.bdim ? nd : p.bdim;
    int64_t merged[kMaxDims];
    for (int j = 0; j < n; ++j) {
      const int ia = p.bdim - n + j, ib = nd - n + j;
      const int64_t a = ia >= 0 ? p.bsizes[ia] : 1, b = ib >= 0 ? sz[ib] : 1;
      if (a != b && a != 1 && b != 1) return ctx.fail("%s: shape mismatch: index tensors cannot be broadcast together", op);
      merged[j] = a == 1 ? b : a;
    }
    p.bdim = n;
    for (int j = 0; j < n; ++j) p.bsizes[j] = merged[j];
  }
  // Adjacent indexed dims keep their place; otherwise B goes first.
  int first = -1, last = -1;
  for (int d = 0; d < self.dim; ++d)
    if (indexed[d]) {
      if (first < 0) first = d;
      last = d;
    }
  bool adjacent = true;
  for (int d = first; first >= 0 && d <= last; ++d) adjacent = adjacent && indexed[d];
  p.b_pos = (p.nslot == 0 || !adjacent) ? 0 : first;
  int pos = 0;
  for (int d = 0; d < self.dim; ++d) {
    if (pos == p.b_pos && p.nslot > 0 && (d == first || !adjacent)) {
      if (p.bdim + (self.dim - p.nslot) > kMaxDims) return ctx.fail("%s: result would have more than %d dims", op, kMaxDims);
      for (int j = 0; j < p.bdim; ++j) p.out_sizes[pos++] = p.bsizes[j];
    }
    if (indexed[d]) continue;
    p.sliced_dim[p.nsliced] = d;
    p.sliced_pos[p.nsliced] = pos;
    ++p.nsliced;
    p.out_sizes[pos++] = self.sizes[d];
  }
  p.out_dim = pos;
  return true;
}

namespace {
// Finds the flat (row-major) index of the j-th true element of a mask, resuming from the
// previous answer when j does not go backwards.
struct MaskCursor {
  const Tensor* m = nullptr;
  int64_t j = -1, flat = -1;
  int64_t find(int64_t want) {
    if (want < j) j = -1, flat = -1;
    const int64_t n = m->numel();
    while (j < want && flat + 1 < n) {
      ++flat;
      if (mask_at(*m, m->contiguous_order() ? flat : strided_offset(*m, flat))) ++j;
    }
    return flat;
  }
};
}  // namespace

bool for_each_index(KernelContext& ctx, const IndexPlan& p, const Tensor& self, const int64_t* b_strides,
                    bool (*fn)(void* state, int64_t b_offset, const int64_t* values), void* state, const char* op) {
  int64_t bnumel = 1;
  for (int j = 0; j < p.bdim; ++j) bnumel *= p.bsizes[j];
  if (bnumel == 0) return true;
  // Per slot: strides over B of its index tensor (masks: the [nnz] position).
  int64_t st[kMaxDims][kMaxDims];
  int64_t off[kMaxDims] = {};
  for (int s = 0; s < p.nslot; ++s) {
    const Tensor& t = *p.slot_t[s];
    for (int j = 0; j < p.bdim; ++j) {
      if (p.slot_comp[s] >= 0) {
        st[s][j] = (j == p.bdim - 1 && p.slot_nnz[s] != 1) ? 1 : 0;
      } else {
        const int td = t.dim - p.bdim + j;
        st[s][j] = (td >= 0 && t.sizes[td] != 1) ? t.strides[td] : 0;
      }
    }
  }
  MaskCursor cursors[kMaxDims];
  int64_t coord[kMaxDims] = {};
  int64_t boff = 0;
  int64_t values[kMaxDims];
  for (int64_t b = 0; b < bnumel; ++b) {
    for (int s = 0; s < p.nslot; ++s) {
      const Tensor& t = *p.slot_t[s];
      const int64_t size = self.sizes[p.slot_dim[s]];
      int64_t v;
      if (p.slot_comp[s] >= 0) {
        // Slots of one mask are consecutive; the first (comp 0) finds the element.
        const int first = s - p.slot_comp[s];
        if (p.slot_comp[s] == 0) {
          cursors[s].m = &t;
          cursors[s].find(off[s]);
        }
        int64_t flat = cursors[first].flat;
        for (int c = t.dim - 1; c > p.slot_comp[s]; --c) flat /= t.sizes[c];
        v = flat % t.sizes[p.slot_comp[s]];
      } else {
        v = read_index(t, off[s]);
        if (!wrap_index(v, size)) return fail_index(ctx, op, read_index(t, off[s]), p.slot_dim[s], size);
      }
      values[s] = v;
    }
    if (!fn(state, boff, values)) return false;
    for (int j = p.bdim - 1; j >= 0; --j) {
      for (int s = 0; s < p.nslot; ++s) off[s] += st[s][j];
      boff += b_strides[j];
      if (++coord[j] < p.bsizes[j]) break;
      for (int s = 0; s < p.nslot; ++s) off[s] -= st[s][j] * p.bsizes[j];
      boff -= b_strides[j] * p.bsizes[j];
      coord[j] = 0;
    }
  }
  return true;
}

}  // namespace pte::shape
