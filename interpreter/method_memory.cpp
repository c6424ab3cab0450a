// pte-run: loading a method, part 2: memory. Sizing and assigning the planned arenas
// (the file's plan, or our re-plan from the instructions' reads and writes), the
// caller's memory block, inputs bound by pointer, and the per-instruction checks of
// values that may lack memory at run time.

#include <cstring>

#include "interpreter/method_load.h"

namespace pte {

using namespace loading;

size_t MethodImpl::Load::scratch_bytes() const {
  if (m.instrs_.empty()) return 0;
  return options.scratch_bytes > 0 ? options.scratch_bytes : kDefaultScratchBytes;
}

// The planned buffers and the scratch arena need `need` bytes (each 64-byte aligned):
// recorded when measuring, checked against the caller's block when one is given.
Status MethodImpl::Load::check_memory(uint64_t need) {
  if (measure) {
    *measure = static_cast<size_t>(need);
    return Status::ok();
  }
  if (!options.memory) return Status::ok();
  const uint64_t skew = planner::align_up(reinterpret_cast<uintptr_t>(options.memory)) - reinterpret_cast<uintptr_t>(options.memory);
  if (need + skew > options.memory_bytes)
    return fail(ErrorCode::MemoryTooSmall, "the caller's memory holds " + num(static_cast<int64_t>(options.memory_bytes)) + " bytes but the plan needs " +
                num(static_cast<int64_t>(need)) + (skew ? " (+" + num(static_cast<int64_t>(skew)) + " to align the block to 64 bytes)" : "") +
                " (Program::memory_needed)");
  return Status::ok();
}

// One arena: from the caller's block (checked to fit by check_memory) or our own allocation.
bool MethodImpl::Load::take(planner::Arena& a, size_t size) {
  if (!options.memory) return a.allocate(size);
  uint8_t* base = static_cast<uint8_t*>(options.memory);
  const size_t start = planner::align_up(reinterpret_cast<uintptr_t>(base) + carved) - reinterpret_cast<uintptr_t>(base);
  if (start > options.memory_bytes || size > options.memory_bytes - start) return false;
  a.borrow(base + start, size);
  carved = start + size;
  return true;
}

Status MethodImpl::Load::plan_memory() {
  const auto* sizes = plan->non_const_buffer_sizes();
  uint32_t narenas = sizes && sizes->size() > 0 ? sizes->size() - 1 : 0;

  bool incomplete = false;
  for (Slot& s : slots) {
    if (s.constant) continue;
    if (s.mem_id != 0) {
      if (s.mem_id > narenas)
        return fail("value " + num(s.value) + " (tensor) is planned in arena " + num(s.mem_id) + " but the plan has " + num(narenas));
      int64_t size = sizes->Get(s.mem_id);
      if (size < 0) return fail("planned buffer " + num(s.mem_id) + " has a negative size");
      if (s.offset > static_cast<uint64_t>(size) || s.nbytes > static_cast<uint64_t>(size) - s.offset)
        return fail("value " + num(s.value) + " (tensor " + shape_str(*m.values_[s.value].t) + ", " + num(s.nbytes) + " bytes at offset " +
                    num(static_cast<int64_t>(s.offset)) + ") lies outside planned buffer " + num(s.mem_id) + " (" + num(size) + " bytes)");
      s.needs_memory = true;
      continue;
    }
    if (s.data_idx > 0) continue;  // handled above as constant
    if (is_input[s.value] || is_view_out[s.value] || s.nbytes == 0) continue;
    if (!referenced[s.value] && !is_output[s.value]) continue;
    s.needs_memory = true;  // written by a kernel but the file gave it no memory
    incomplete = true;
  }

  m.replanned_ = options.replan_memory || incomplete;
  if (!m.replanned_) {
    // Only the arenas some tensor lives in get memory: a damaged plan may list
    // thousands of buffers of any size (each a heap block zero-filled, or a mapping),
    // so what is allocated is bounded by the tensors the plan places, not by the
    // plan's list. Sizes still count in arena_bytes() as the file states them.
    std::vector<uint8_t> used(narenas, 0);
    for (const Slot& s : slots)
      if (s.needs_memory) used[s.mem_id - 1] = 1;
    uint64_t need = planner::align_up(scratch_bytes());
    for (uint32_t a = 0; a < narenas; ++a) {
      const int64_t want = sizes->Get(a + 1);
      // (a 32-bit size_t would wrap a larger size to a small block the checked offsets overrun)
      if (used[a] && (want < 0 || static_cast<uint64_t>(want) > static_cast<uint64_t>(PTRDIFF_MAX)))
        return fail(ErrorCode::AllocationFailed, "planned buffer " + num(a + 1) + " (" + num(want) + " bytes) does not fit this machine's address space");
      if (used[a]) need += planner::align_up(static_cast<uint64_t>(want));
    }
    PTE_TRY(check_memory(need));
    if (measure) return Status::ok();
    m.arenas_.resize(narenas);
    for (uint32_t a = 0; a < narenas; ++a) {
      size_t size = static_cast<size_t>(sizes->Get(a + 1));
      m.arena_bytes_ += size;
      if (!used[a]) continue;
      if (!take(m.arenas_[a], size)) return fail(ErrorCode::AllocationFailed, "cannot allocate planned buffer " + num(a + 1) + " (" + num(size) + " bytes)");
    }
    for (const Slot& s : slots) {
      if (!s.needs_memory) continue;
      Tensor& t = *m.values_[s.value].t;
      t.data = m.arenas_[s.mem_id - 1].data() + s.offset;
      t.capacity = s.nbytes;
      m.value_planned_[s.value] = 1;
    }
  } else {
    planner::PlanInput pin;
    pin.num_instructions = static_cast<int32_t>(m.instrs_.size());
    pin.tensors.resize(slots.size());
    for (size_t k = 0; k < slots.size(); ++k) {
      const Slot& s = slots[k];
      planner::PlanTensor& pt = pin.tensors[k];
      pt.bytes = s.nbytes;
      // et_view outputs take their source's memory at run time: no slot of their own.
      pt.needs_memory = s.needs_memory && !is_view_out[s.value];
      pt.whole = is_input[s.value] || (s.mem_id != 0 && (s.data_idx > 0 || s.external));
      pt.to_end = is_output[s.value] != 0;
      if (s.mem_id != 0) pt.file_key = (static_cast<int64_t>(s.mem_id) << 40) | static_cast<int64_t>(s.offset);
    }
    collect_events(&pin);
    planner::PlanResult r = planner::replan(pin);
    PTE_TRY(check_memory(uint64_t{planner::align_up(r.arena_bytes)} + planner::align_up(scratch_bytes())));
    if (measure) return Status::ok();
    m.arenas_.resize(1);
    if (!take(m.arenas_[0], r.arena_bytes)) return fail(ErrorCode::AllocationFailed, "cannot allocate the re-planned arena (" + num(r.arena_bytes) + " bytes)");
    m.arena_bytes_ = r.arena_bytes;
    for (size_t k = 0; k < slots.size(); ++k) {
      const Slot& s = slots[k];
      if (!s.needs_memory) continue;
      Tensor& t = *m.values_[s.value].t;
      if (r.offsets[k] < 0) continue;  // never used: no memory
      t.data = m.arenas_[0].data() + r.offsets[k];
      t.capacity = s.nbytes;
      m.value_planned_[s.value] = 1;
    }
  }

  // Initial contents: mutable buffers with data, planned external tensors.
  for (const Slot& s : slots) {
    if (!s.needs_memory || s.mem_id == 0) continue;
    Tensor& t = *m.values_[s.value].t;
    if (!t.data) continue;
    if (s.external) {
      Bytes b;
      const flat_tensor_flatbuffer::TensorLayout* layout = nullptr;
      bool found = program.external_tensor(s.fqn, &b, &layout);
      if (!found) found = program.named_data(s.fqn, &b);
      if (!found) return fail(ErrorCode::ExternalDataMissing, "value " + num(s.value) + ": external tensor '" + std::string(s.fqn) + "' is in no data file (pass its .ptd with --data)");
      if (b.size < s.nbytes) return fail("value " + num(s.value) + ": external tensor '" + std::string(s.fqn) + "' has " + num(b.size) + " bytes, needs " + num(s.nbytes));
      std::memcpy(t.data, b.data, s.nbytes);
    } else if (s.data_idx > 0) {
      const uint8_t* init = nullptr;
      Status st = program.mutable_initial_data(s.data_idx, s.nbytes, &init);
      if (!st) return st.context(m.prefix_ + ": value " + num(s.value)).with_default_code(ErrorCode::MalformedMethod);
      std::memcpy(t.data, init, s.nbytes);
    }
  }
  return Status::ok();
}

// Kernels may not write into constants (mapped read-only); kernel and delegate inputs
// that have no memory yet (et_view outputs, values filled by a MoveCall) are checked
// before each call so a malformed program fails cleanly instead of reading null.
// MethodOptions::inputs_by_pointer: planned inputs the caller binds by pointer (memory it
// owns across calls, e.g. a KV cache passed as inputs), so set_input copies nothing; their
// arena slot goes unused. An input stays planned when a planned value that is read (by an
// instruction, or as an output) but that no instruction writes shares its slot: a static
// view of the input folded into the plan would read the unused slot.
void MethodImpl::Load::unplan_inputs() {
  if (options.inputs_by_pointer.empty()) return;
  const size_t nv = m.values_.size();
  // (the shared analysis: a tensor, or an item of a list, in any of these roles)
  using VA = passes::ValueAccess;
  const uint16_t writes = VA::either(VA::KernelReturn | VA::KernelRepeated | VA::MoveTo | VA::DelegateArg);
  const uint16_t reads = VA::either(VA::KernelArg | VA::MoveFrom | VA::DelegateArg);
  auto written = [&](size_t u) { return access.has(u, writes); };
  auto read = [&](size_t u) { return access.has(u, reads) || is_output[u]; };
  for (size_t idx : options.inputs_by_pointer) {
    if (idx >= m.inputs_.size()) continue;
    const size_t v = static_cast<size_t>(m.inputs_[idx]);
    if (!m.value_planned_[v] || m.values_[v].tag != Tag::Tensor || !m.values_[v].t->data) continue;
    Tensor& t = *m.values_[v].t;
    const char* lo = static_cast<const char*>(t.data);
    const char* hi = lo + t.capacity;
    bool folded_view = false;
    for (size_t u = 0; u < nv && !folded_view; ++u) {
      if (u == v || !m.value_planned_[u] || m.values_[u].tag != Tag::Tensor || written(u) || !read(u) || is_input[u]) continue;
      const Tensor& w = *m.values_[u].t;
      const char* wl = static_cast<const char*>(w.data);
      folded_view = w.data && w.capacity && wl < hi && wl + w.capacity > lo;
    }
    if (folded_view) continue;
    t.data = nullptr;
    t.capacity = 0;
    m.value_planned_[v] = 0;
  }
}

Status MethodImpl::Load::check_writes_and_data() {
  auto is_constant = [&](const EValue* e) {
    if (!e || e->tag != Tag::Tensor) return false;
    int32_t s = slot_of[e - m.values_.data()];
    return s >= 0 && slots[s].constant;
  };
  auto needs_check = [&](const EValue* e) { return e && e->tag == Tag::Tensor && !e->t->data && e->t->nbytes() > 0; };
  for (size_t i = 0; i < m.instrs_.size(); ++i) {
    Instr& in = m.instrs_[i];
    if (in.kind != Instr::Kernel && in.kind != Instr::Delegate) continue;
    EValue** a = m.args_.data() + in.arg_begin;
    uint32_t local = static_cast<uint32_t>(i);
    for (size_t c = 0; c + 1 < m.chain_begin_.size(); ++c)
      if (i >= m.chain_begin_[c]) local = static_cast<uint32_t>(i - m.chain_begin_[c]);
    if (in.kind == Instr::Kernel && in.nargs > 0) {
      const EValue* ret = a[in.nargs - 1];
      bool bad = is_constant(ret);
      if (ret->tag == Tag::TensorList)
        for (size_t j = 0; j < ret->tlist.size; ++j) bad = bad || is_constant(ret->tlist.items[j]);
      if (bad)
        return fail("instruction " + num(local) + " (" + m.op_names_[in.index] + ") writes into a constant tensor (value " +
                    num(ret - m.values_.data()) + ")");
    }
    in.check_begin = static_cast<uint32_t>(m.checks_.size());
    uint32_t n_inputs = in.kind == Instr::Kernel && in.nargs > 0 ? in.nargs - 1 : in.nargs;
    for (uint32_t j = 0; j < n_inputs; ++j) {
      const EValue* e = a[j];
      if (needs_check(e)) m.checks_.push_back(e);
      if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList)
        for (size_t k = 0; k < e->tlist.size; ++k)
          if (needs_check(e->tlist.items[k])) m.checks_.push_back(e->tlist.items[k]);
    }
    in.nchecks = static_cast<uint32_t>(m.checks_.size()) - in.check_begin;
  }
  return Status::ok();
}

// Which tensors each instruction reads and writes, for the re-planner.
void MethodImpl::Load::collect_events(planner::PlanInput* pin) {
  auto slot = [&](const EValue* e) -> int32_t {
    if (!e || e->tag != Tag::Tensor) return -1;
    return slot_of[e - m.values_.data()];
  };
  std::vector<std::pair<int32_t, bool>> seen;  // (slot, def) for one instruction
  auto add = [&](int32_t s, bool def) {
    if (s < 0) return;
    for (auto& p : seen)
      if (p.first == s) { p.second = p.second || def; return; }
    seen.emplace_back(s, def);
  };
  auto add_value = [&](const EValue* e, bool def) {
    if (!e) return;
    if (e->tag == Tag::Tensor) add(slot(e), def);
    else if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList)
      for (size_t j = 0; j < e->tlist.size; ++j) add(slot(e->tlist.items[j]), def);
  };
  for (size_t i = 0; i < m.instrs_.size(); ++i) {
    const Instr& in = m.instrs_[i];
    seen.clear();
    EValue** a = m.args_.data() + in.arg_begin;
    switch (in.kind) {
      case Instr::Kernel:
        if (in.nargs > 0) add_value(a[in.nargs - 1], true);  // the return slot is written
        for (uint32_t j = 0; j + 1 < in.nargs; ++j) add_value(a[j], false);
        if (op_id(in) == OpId::et_view_default && in.nargs == 3 && slot(a[0]) >= 0 && slot(a[2]) >= 0)
          pin->aliases.emplace_back(slot(a[0]), slot(a[2]));
        break;
      case Instr::Delegate:
        // Inputs were written earlier; a first appearance is an output.
        for (uint32_t j = 0; j < in.nargs; ++j) add_value(a[j], true);
        break;
      case Instr::Move: {
        const EValue* from = &m.values_[in.a];
        const EValue* to = &m.values_[in.b];
        add_value(from, false);
        add_value(to, true);
        if (slot(from) >= 0 && slot(to) >= 0) {
          pin->aliases.emplace_back(slot(from), slot(to));
          pin->aliases.emplace_back(slot(to), slot(from));
        }
        break;
      }
      case Instr::JumpFalse:
        add_value(&m.values_[in.a], false);
        if (static_cast<size_t>(in.b) <= i) pin->backward_jumps.emplace_back(in.b, static_cast<int32_t>(i));
        break;
      case Instr::Free: break;
    }
    for (auto [s, def] : seen) pin->events.push_back({static_cast<int32_t>(i), s, def});
  }
}

}  // namespace pte
