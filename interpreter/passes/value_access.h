// pte-run: the load-time passes' shared analysis: for each value, which instructions
// read and write it and in which roles (kernel argument, return slot, delegate argument,
// move source or target), and whether it is an item of a tensor list.
//
// Computed from the checked instructions (MethodImpl::instrs_ / args_) by
// MethodImpl::Load::analyze_access after plan_memory; a pass that changes the
// instruction list (fold_constant_permutes turns permutes into no-ops) has it
// recomputed. Passes that change only kernel functions or tensors' memory
// (copy views, last-row logits) leave it valid.
//
// Users: unplan_inputs, fold_constant_permutes, fold_copy_views, last_row_logits,
// attach_library_matmuls. Not (yet) derived from it, as they need per-instruction or
// first-access facts: collect_events (the re-planner's per-instruction events and
// aliases, built inside plan_memory before this runs), find_state (whether a value's
// first access is a read; delegates count as writes, llama::update_cache writes its
// cache argument) and check_writes_and_data (per-instruction checks).
#pragma once
#include <cstdint>
#include <vector>

#include "interpreter/method.h"

namespace pte::passes {

struct ValueAccess {
  // Roles, one bit each. A role on the value itself (Direct) and, for the items of a
  // tensor list given in that role, on each item (Item: shift the role by kItem).
  enum Role : uint16_t {
    KernelArg = 1 << 0,       // a kernel argument other than the return slot (the last)
    KernelReturn = 1 << 1,    // a kernel's return slot
    KernelRepeated = 1 << 2,  // given at two or more argument positions of one kernel
    DelegateArg = 1 << 3,     // any argument of a delegate call (read and written)
    MoveFrom = 1 << 4,
    MoveTo = 1 << 5,
    InList = 1 << 12,         // an item of some TensorList / OptionalTensorList value
  };
  static constexpr int kItem = 6;  // KernelArg << kItem: an item of a list given as a kernel argument, ...
  static uint16_t either(uint16_t roles) { return static_cast<uint16_t>(roles | (roles << kItem)); }

  std::vector<uint16_t> roles;  // per value
  // The one kernel writing each value (its return slot, or a tensor argument it is given
  // twice: several results repeat their out arguments among the return slots), items of
  // a list counted; -1 none, -2 several kernels.
  std::vector<int32_t> writer;
  // The one kernel whose return slot is the value itself (lists not expanded); -1, -2.
  std::vector<int32_t> return_writer;
  // Instructions reading each value, in order (with repeats), items of lists counted:
  // a Move's source, a jump's condition, every delegate argument, a kernel's arguments
  // other than its return slot and the out argument it repeats.
  std::vector<std::vector<int32_t>> readers;

  bool has(size_t v, uint16_t r) const { return (roles[v] & r) != 0; }
};

// Fills `out` (replacing what it held).
void analyze_access(const std::vector<EValue>& values, const std::vector<Instr>& instrs, const std::vector<EValue*>& args,
                    ValueAccess* out);

}  // namespace pte::passes
