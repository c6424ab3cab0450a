// pte-run load-time pass: copy views (MethodOptions::copies_as_views; after
// fold_constant_permutes, before last_row_logits). Copies that only re-label bytes
// (unsqueeze_copy, clone, alias_copy, identity expand_copy) become views, and the
// LLM-specific index_put of a KV-cache update writes into its own buffer. Changes
// kernel functions and tensors' memory, never the instruction list.

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "interpreter/method_load.h"
#include "ops/prim/copy_view.h"
#include "pte_config.h"

namespace pte {

using namespace loading;

#if PTE_LLM_PASSES
// A KV-cache update of the HF exports: T = index_put(B, indices, values) copies the whole
// cache buffer B, writes the new rows, attention reads T, and copy_(B, T) at the end of
// the method writes it all back. When nothing else reads B after the index_put and
// nothing else writes B's memory while T is read, T takes B's memory: index_put then
// only writes the rows and the copy_ is one of B onto itself (both kernels skip copying
// a tensor onto itself).
template <class Range, class Touches, class Views, class LastReader, class ReadAfter, class Move>
void MethodImpl::Load::index_put_into_self(size_t i, bool debug, const std::vector<uint8_t>& pinned, const std::vector<int32_t>& writer,
                                            Range range_of, Touches touches, Views planned_views,
                                            LastReader last_reader, ReadAfter read_after, Move move_views) {
  auto vid = [&](const EValue* e) { return static_cast<size_t>(e - m.values_.data()); };
  EValue** a = m.args_.data() + m.instrs_[i].arg_begin;
  auto no = [&](const char* why) {
    if (debug) std::fprintf(stderr, "copy view: instruction %zu aten::index_put.out kept: %s\n", i, why);
  };
  if (a[0]->tag != Tag::Tensor || a[5]->tag != Tag::Tensor || a[4] != a[5]) return no("arguments");
  const size_t buf = vid(a[0]), out = vid(a[5]);
  Tensor& b = *a[0]->t;
  Tensor& t = *a[5]->t;
  if (b.dtype != t.dtype || !b.contiguous_order() || !t.contiguous_order() || !m.value_planned_[buf] ||
      !m.value_planned_[out] || pinned[buf] || pinned[out] || writer[out] != static_cast<int32_t>(i) ||
      b.capacity < t.capacity || b.dynamism != Dynamism::Static)
    return no("layout, memory or pinned");
  // nothing reads B after this; only copy_(B, T) writes it
  if (read_after(buf, i)) return no("the buffer is read after it");
  auto writeback = [&](size_t j) {
    const Instr& q = m.instrs_[j];
    if (q.kind != Instr::Kernel || q.nargs != 4 || op_id(q) != OpId::copy_inplace) return false;
    EValue** c = m.args_.data() + q.arg_begin;
    return c[0] == a[0] && c[1] == a[5] && c[3] == a[0];
  };
  const auto br = range_of(b), tr = range_of(t);
  std::vector<size_t> bviews, tviews;
  if (!planned_views(buf, br, i, &bviews) || !bviews.empty()) return no("a planned view of the buffer");
  if (!planned_views(out, tr, i, &tviews)) return no("a planned view outside out");
  std::vector<size_t> vals = tviews;
  vals.push_back(out);
  size_t last = i;
  if (!last_reader(vals, i, &last)) return no("a view of out is pinned");
  for (size_t j = i + 1; j <= last; ++j)
    if (!writeback(j) && touches(j, br, false, SIZE_MAX)) return no("the buffer's memory is written while out is read");
  move_views(tviews, static_cast<const char*>(t.data), static_cast<char*>(b.data));
  t.data = b.data;
  ++m.copies_as_views_;
  if (debug) std::fprintf(stderr, "copy view: instruction %zu aten::index_put.out writes into its buffer\n", i);
}
#endif  // PTE_LLM_PASSES

// Copies that only re-label bytes become views: unsqueeze_copy, clone, alias_copy and an
// expand_copy to the input's own static sizes write the input's bytes in the same order.
// Two ways to drop the copy, each checked against the memory plan as it stands:
//  - out takes src's memory (as et_view's output does) if nothing writes that memory
//    while out, or a view of it, is still read;
//  - else src's producer writes straight into out's memory if src is read by the copy
//    alone and nothing touches out's memory between the producer and the copy.
// Values the exporter planned inside out's memory with no instruction writing them
// (static view_copy folded into the plan) read the same bytes: they move with out.
// The portable Llama export runs six such copies per layer over the KV cache at every
// step (unsqueeze and clone of each cache, identity expands before both bmm).
void MethodImpl::Load::fold_copy_views() {
  const size_t nv = m.values_.size(), ni = m.instrs_.size();
  for (size_t i = 0; i < ni; ++i)
    if (m.instrs_[i].kind == Instr::JumpFalse && static_cast<size_t>(m.instrs_[i].b) <= i) return;  // loops
  const bool debug = std::getenv("PTE_DEBUG_COPY_VIEWS") != nullptr;  // one line per copy on stderr
  auto vid = [&](const EValue* e) { return static_cast<size_t>(e - m.values_.data()); };
  // The shared analysis (valid here: fold_constant_permutes had it recomputed if it
  // dropped instructions, and nothing since changed the instruction list).
  using VA = passes::ValueAccess;
  std::vector<uint8_t> pinned(nv, 0);  // in a tensor list, moved, an input or output: keep as is
  for (size_t v = 0; v < nv; ++v)
    pinned[v] = access.has(v, VA::InList | VA::MoveFrom | VA::MoveTo) || is_input[v] || is_output[v];
  // A kernel writes its return slot (the last argument) and its out arguments: with
  // several results each out argument appears again among the return slots, so an
  // argument given twice counts as written too (an input given twice only makes this
  // more careful). (ValueAccess::writer counts the same arguments.)
  auto written_arg = [&](const Instr& q, uint32_t k) {
    EValue** b = m.args_.data() + q.arg_begin;
    if (k + 1 == q.nargs) return true;
    for (uint32_t o = 0; o < q.nargs; ++o)
      if (o != k && b[o] == b[k] && b[k]->tag == Tag::Tensor) return true;
    return false;
  };
  const std::vector<int32_t>& writer = access.writer;  // the one kernel writing a value (-2: several)
  std::vector<uint8_t> repoints(ni, 0);  // et_view and the folds: they move no bytes
  for (size_t i = 0; i < ni; ++i)
    repoints[i] = op_id(m.instrs_[i]) == OpId::et_view_default;
  auto constant = [&](size_t v) { return slot_of[v] >= 0 && slots[slot_of[v]].constant; };
  using Range = std::pair<const char*, const char*>;
  auto range_of = [](const Tensor& t) {
    return Range(static_cast<const char*>(t.data), static_cast<const char*>(t.data) + t.capacity);
  };
  auto overlaps = [&](const EValue* e, Range r) {
    if (!e || e->tag != Tag::Tensor || e->t->capacity == 0 || !e->t->data) return false;
    const Range q = range_of(*e->t);
    return q.first < r.second && q.second > r.first;
  };
  // Tensors of instruction j that touch memory r: written (the return slot; every
  // argument of a delegate) or, with reads, any argument. An unplanned one (no memory
  // yet: an input or a view) counts as touching it.
  auto touches = [&](size_t j, Range r, bool reads, size_t skip) {
    const Instr& q = m.instrs_[j];
    if (q.kind == Instr::Move) return overlaps(&m.values_[q.b], r) || (reads && overlaps(&m.values_[q.a], r));
    if (q.kind != Instr::Kernel && q.kind != Instr::Delegate) return false;
    if (q.kind == Instr::Kernel && repoints[j] && !reads) return false;
    EValue** b = m.args_.data() + q.arg_begin;
    for (uint32_t k = 0; k < q.nargs; ++k) {
      if (q.kind == Instr::Kernel && !reads && !written_arg(q, k)) continue;
      const EValue* e = b[k];
      auto hit = [&](const EValue* t) {
        if (!t || t->tag != Tag::Tensor || vid(t) == skip || t->t->nbytes() == 0) return false;
        return !t->t->data || overlaps(t, r);
      };
      if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList) {
        for (size_t t = 0; t < e->tlist.size; ++t)
          if (hit(e->tlist.items[t])) return true;
      } else if (hit(e)) {
        return true;
      }
    }
    return false;
  };
  // which instructions read each value (in order; not a kernel's return slot, nor the
  // out argument it repeats)
  const std::vector<std::vector<int32_t>>& readers = access.readers;
  // planned values no instruction writes: static views the exporter folded into the plan
  // (and inputs); the only candidates planned_views looks at
  std::vector<size_t> unwritten;
  for (size_t v = 0; v < nv; ++v)
    if (m.values_[v].tag == Tag::Tensor && writer[v] == -1 && m.value_planned_[v] && m.values_[v].t->capacity > 0)
      unwritten.push_back(v);
  // Values planned inside r (the memory `self` gets at instruction `from`) that no
  // instruction writes and that are read before the next write into r: views of self.
  // False if such a view is not wholly inside r or is also read after that write.
  auto planned_views = [&](size_t self, Range r, size_t from, std::vector<size_t>* views) {
    size_t until = 0;  // the next write into r, found when a candidate needs it
    for (size_t v : unwritten) {
      const EValue& e = m.values_[v];
      if (v == self || !overlaps(&e, r)) continue;
      if (until == 0) {
        until = ni;
        for (size_t j = from + 1; j < ni && until == ni; ++j)
          if (touches(j, r, false, SIZE_MAX)) until = j;
      }
      bool in_segment = false, after = false;
      for (int32_t j : readers[v]) {
        in_segment = in_segment || (j > static_cast<int32_t>(from) && j <= static_cast<int32_t>(until));
        after = after || j > static_cast<int32_t>(until);
      }
      if (!in_segment) continue;
      const Range q = range_of(*e.t);
      if (q.first < r.first || q.second > r.second || pinned[v] || after) return false;
      views->push_back(v);
    }
    return true;
  };
  // The last instruction reading any of `vals` or a view of them (et_view and folded
  // copies of them count as readers, and their outputs' readers too); false if such a
  // view is pinned.
  auto last_reader = [&](std::vector<size_t> vals, size_t from, size_t* last) {
    *last = from;
    for (size_t k = 0; k < vals.size(); ++k)
      for (int32_t j : readers[vals[k]]) {
        *last = std::max(*last, static_cast<size_t>(j));
        const Instr& q = m.instrs_[j];
        if (q.kind != Instr::Kernel || !repoints[j]) continue;
        const size_t w = vid(m.args_[q.arg_begin + q.nargs - 1]);
        if (pinned[w]) return false;
        if (std::find(vals.begin(), vals.end(), w) == vals.end()) vals.push_back(w);
      }
    return true;
  };
  auto read_after = [&](size_t v, size_t i) {
    return std::any_of(readers[v].begin(), readers[v].end(), [&](int32_t j) { return static_cast<size_t>(j) > i; });
  };
  auto move_views = [&](const std::vector<size_t>& views, const char* from, char* to) {
    for (size_t v : views) {
      Tensor& t = *m.values_[v].t;
      t.data = to + (static_cast<const char*>(t.data) - from);
    }
  };
  for (size_t i = 0; i < ni; ++i) {
    Instr& in = m.instrs_[i];
    if (in.kind != Instr::Kernel || !in.fn) continue;
    const OpId op = op_id(in);
#if !PTE_LLM_PASSES
    (void)read_after;  // only the KV-cache pass reads it
#else
    if (op == OpId::index_put_out && in.nargs == 6) {
      index_put_into_self(i, debug, pinned, writer, range_of, touches, planned_views, last_reader, read_after, move_views);
      continue;
    }
#endif
    KernelFn fn = nullptr;
    uint32_t nargs = 0;  // the arguments, then the out argument and the return slot (one value)
    if (op == OpId::unsqueeze_copy_out) fn = unsqueeze_as_view, nargs = 4;
    else if (op == OpId::clone_out) fn = clone_as_view, nargs = 4;
    else if (op == OpId::alias_copy_out) fn = alias_copy_as_view, nargs = 3;
    else if (op == OpId::expand_copy_out) fn = expand_copy_as_view, nargs = 5;
    if (!fn || in.nargs != nargs) continue;
    EValue** a = m.args_.data() + in.arg_begin;
    if (a[0]->tag != Tag::Tensor || a[nargs - 1]->tag != Tag::Tensor || a[nargs - 2] != a[nargs - 1]) continue;
    const size_t src = vid(a[0]), out = vid(a[nargs - 1]);
    Tensor& x = *a[0]->t;
    Tensor& y = *a[nargs - 1]->t;
    auto no = [&](const char* why) {
      if (debug) std::fprintf(stderr, "copy view: instruction %zu %s kept: %s\n", i, m.op_names_[in.index].c_str(), why);
    };
    if (x.dtype != y.dtype || !x.contiguous_order() || !y.contiguous_order() || !m.value_planned_[src] ||
        !m.value_planned_[out]) {
      no("layout, or memory not in the arena");
      continue;
    }
    if (pinned[out] || pinned[src] || writer[out] != static_cast<int32_t>(i) || constant(src)) { no("pinned"); continue; }
    if (op == OpId::expand_copy_out) {
      bool same = x.dynamism == Dynamism::Static && y.dynamism == Dynamism::Static && x.dim == y.dim;
      for (int d = 0; same && d < x.dim; ++d) same = x.sizes[d] == y.sizes[d];
      if (!same) { no("a real expand"); continue; }
    }
    const Range yr = range_of(y), xr = range_of(x);
    std::vector<size_t> yviews;
    if (!planned_views(out, yr, i, &yviews)) { no("a planned view outside out"); continue; }
    // 1. out takes src's memory: nothing writes it until the last reader of out (or its views)
    bool done = false;
    if (x.capacity >= y.capacity) {
      std::vector<size_t> vals = yviews;
      vals.push_back(out);
      size_t last = i;
      bool ok = last_reader(vals, i, &last);
      for (size_t j = i + 1; ok && j <= last; ++j) ok = !touches(j, xr, false, SIZE_MAX);
      if (ok) {
        move_views(yviews, static_cast<const char*>(y.data), static_cast<char*>(x.data));
        y.data = x.data;
        done = true;
      }
    }
    // 2. src's producer writes into out's memory: src has no other reader, no planned
    //    view, and nothing touches out's memory from the producer to the copy
    const int32_t w = writer[src];
    if (!done && w >= 0 && m.instrs_[w].kind == Instr::Kernel && !repoints[w] && y.capacity >= x.capacity) {
      bool ok = std::all_of(readers[src].begin(), readers[src].end(), [&](int32_t j) { return static_cast<size_t>(j) == i; });
      std::vector<size_t> xviews;
      ok = ok && planned_views(src, xr, static_cast<size_t>(w), &xviews) && xviews.empty();
      for (size_t j = static_cast<size_t>(w); ok && j < i; ++j)
        ok = !touches(j, yr, true, j == static_cast<size_t>(w) ? src : SIZE_MAX);
      if (ok) {
        x.data = y.data;
        x.capacity = y.capacity;
        done = true;
      }
    }
    if (!done) { no("its memory is in use"); continue; }
    in.fn = fn;
    repoints[i] = 1;
    ++m.copies_as_views_;
    if (debug) std::fprintf(stderr, "copy view: instruction %zu %s is a view\n", i, m.op_names_[in.index].c_str());
  }
}

}  // namespace pte
