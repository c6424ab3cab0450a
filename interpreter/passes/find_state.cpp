// pte-run load-time pass: find_state (after check_writes_and_data, before the folds).
// Lists the method's persistent state (mutable buffers such as KV caches) in
// MethodImpl::state_values_. Changes no instruction.

#include <algorithm>

#include "interpreter/method_load.h"

namespace pte {

using namespace loading;

// Persistent state (mutable buffers such as KV caches): tensors with memory that
// are not inputs or outputs, that some kernel writes, and whose first access is a
// read (an in-place update such as index_put_ reads its target: that counts). The
// exporter emits the graph's placeholders first (parameters, buffers, then the user
// inputs), so only values before the first input qualify: a kernel's second output
// (native_layer_norm.out's mean, ...) is not told apart from a read here.
void MethodImpl::Load::find_state() {
  int32_t first_input = static_cast<int32_t>(m.values_.size());
  for (int32_t v : m.inputs_) first_input = std::min(first_input, v);
  std::vector<int8_t> first(slots.size(), 0);  // 0 unseen, 1 read first, 2 written first
  std::vector<uint8_t> written(slots.size(), 0);
  auto slot = [&](const EValue* e) -> int32_t {
    if (!e || e->tag != Tag::Tensor) return -1;
    return slot_of[e - m.values_.data()];
  };
  auto touch = [&](const EValue* e, bool def) {
    if (!e) return;
    auto one = [&](int32_t k) {
      if (k < 0) return;
      if (!first[k]) first[k] = def ? 2 : 1;
      if (def) written[k] = 1;
    };
    if (e->tag == Tag::Tensor) one(slot(e));
    else if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList)
      for (size_t j = 0; j < e->tlist.size; ++j) one(slot(e->tlist.items[j]));
  };
  for (const Instr& in : m.instrs_) {
    EValue** a = m.args_.data() + in.arg_begin;
    if (in.kind == Instr::Kernel) {
      for (uint32_t j = 0; j + 1 < in.nargs; ++j) touch(a[j], false);
      if (in.nargs > 0) touch(a[in.nargs - 1], true);
      // llama::update_cache[_with_indices].out write their cache argument in place
      const OpId op = op_id(in);
      if (in.nargs > 2 && (op == OpId::update_cache_out || op == OpId::update_cache_with_indices_out))
        touch(a[1], true);
    } else if (in.kind == Instr::Delegate) {
      for (uint32_t j = 0; j < in.nargs; ++j) touch(a[j], true);
    } else if (in.kind == Instr::Move) {
      touch(&m.values_[in.a], false);
      touch(&m.values_[in.b], true);
    } else if (in.kind == Instr::JumpFalse) {
      touch(&m.values_[in.a], false);
    }
  }
  for (size_t k = 0; k < slots.size(); ++k) {
    const Slot& s = slots[k];
    if (first[k] != 1 || !written[k] || !s.needs_memory || s.constant) continue;
    if (is_input[s.value] || is_output[s.value] || s.value >= first_input) continue;
    if (!m.values_[s.value].t->data) continue;
    m.state_values_.push_back(s.value);
  }
}

}  // namespace pte
