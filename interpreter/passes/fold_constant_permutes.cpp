// pte-run load-time pass: fold_constant_permutes (after find_state, always on).
// permute_copy of a constant read only by matrix multiplies becomes a strided view of
// the constant; the instruction turns into a no-op Free. Marks Load::const_view.
// Uses the shared ValueAccess; it changes the instruction list, so MethodImpl::load has
// the analysis recomputed when it folds anything.

#include <algorithm>

#include "interpreter/method_load.h"

namespace pte {

using namespace loading;

// Zero-copy weights: `permute_copy(constant) -> t` whose only readers are matrix
// multiplies (which take any strides) becomes a strided view of the mapped constant
// and the instruction is dropped. The exporter writes linear layers as
// permute_copy(W) + mm, so without this every call would copy every weight.
size_t MethodImpl::Load::fold_constant_permutes() {
  const size_t nv = m.values_.size();
  std::vector<int32_t> writer(nv, -1);
  // read by something that may assume a contiguous layout: in a tensor list, moved, given
  // to a delegate (from the shared analysis), or a kernel argument other than a matmul's
  using VA = passes::ValueAccess;
  std::vector<uint8_t> bad(nv, 0);
  for (size_t v = 0; v < nv; ++v) bad[v] = access.has(v, VA::InList | VA::MoveFrom | VA::MoveTo | VA::DelegateArg);
  size_t folded = 0;
  auto allowed = [&](OpId op, uint32_t pos) {
    if (op == OpId::mm_out || op == OpId::bmm_out || op == OpId::linear_out) return pos <= 1;
    if (op == OpId::addmm_out) return pos == 1 || pos == 2;
    return false;
  };
  for (size_t i = 0; i < m.instrs_.size(); ++i) {
    const Instr& in = m.instrs_[i];
    if (in.kind != Instr::Kernel) continue;
    EValue** a = m.args_.data() + in.arg_begin;
    const bool permute = op_id(in) == OpId::permute_copy_out && in.nargs == 4;
    for (uint32_t j = 0; j < in.nargs; ++j) {
      size_t v = static_cast<size_t>(a[j] - m.values_.data());
      if (permute && (j == 2 || j == 3)) {
        writer[v] = writer[v] == -1 || writer[v] == static_cast<int32_t>(i) ? static_cast<int32_t>(i) : -2;
        continue;
      }
      if (!allowed(op_id(in), j)) bad[v] = 1;
    }
  }
  for (size_t i = 0; i < m.instrs_.size(); ++i) {
    Instr& in = m.instrs_[i];
    if (in.kind != Instr::Kernel || in.nargs != 4 || op_id(in) != OpId::permute_copy_out) continue;
    EValue** a = m.args_.data() + in.arg_begin;
    if (a[0]->tag != Tag::Tensor || a[2]->tag != Tag::Tensor || a[2] != a[3] || a[1]->tag != Tag::IntList) continue;
    const size_t src_v = static_cast<size_t>(a[0] - m.values_.data()), v = static_cast<size_t>(a[2] - m.values_.data());
    const int32_t src_slot = slot_of[src_v];
    if (src_slot < 0 || !slots[src_slot].constant || bad[v] || writer[v] != static_cast<int32_t>(i) || is_output[v] ||
        is_input[v])
      continue;
    const Tensor& x = *a[0]->t;
    Tensor& t = *a[2]->t;
    size_t nd = 0;
    const int64_t* dims = a[1]->int_list(&nd);
    if (!dims || static_cast<int32_t>(nd) != x.dim || t.dim != x.dim || t.dtype != x.dtype || !x.data) continue;
    bool ok = true;
    int64_t perm[kMaxDims];
    uint32_t seen = 0;
    for (size_t d = 0; d < nd && ok; ++d) {
      int64_t p = dims[d] < 0 ? dims[d] + x.dim : dims[d];
      ok = p >= 0 && p < x.dim && !(seen & (1u << p)) && t.sizes[d] == x.sizes[p];
      if (ok) seen |= 1u << p, perm[d] = p;
    }
    if (!ok) continue;
    // The output's dim order: its dims from the outermost (largest stride) in.
    uint8_t order[kMaxDims];
    for (int d = 0; d < x.dim; ++d) order[d] = static_cast<uint8_t>(d);
    std::stable_sort(order, order + x.dim, [&](uint8_t p, uint8_t q) { return x.strides[perm[p]] > x.strides[perm[q]]; });
    Tensor view = t;
    for (int d = 0; d < x.dim; ++d) view.dim_order[d] = order[d];
    compute_strides(view);
    bool same = true;
    for (int d = 0; d < x.dim; ++d) same = same && (view.sizes[d] <= 1 || view.strides[d] == x.strides[perm[d]]);
    if (!same) continue;  // a layout dim orders cannot express
    view.data = x.data;
    view.capacity = x.capacity;
    view.dynamism = Dynamism::Static;
    t = view;
    if (const_view.size() != nv) const_view.assign(nv, 0);
    const_view[v] = 1;
    in.kind = Instr::Free;  // a no-op
    in.a = static_cast<int32_t>(v);
    in.nchecks = 0;
    ++folded;
  }
  return folded;
}

}  // namespace pte
