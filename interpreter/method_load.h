// pte-run: the loader's internal state while a method loads (not a public header).
//
// MethodImpl::load (method_load.cpp) runs these steps in order:
//   parse      parse_values, parse_io, parse_instructions      (method_parse.cpp)
//   prepare    prepare_kernels: each kernel's load-time check and specialisation
//              (method_prepare.cpp; ops/kernel.h KernelPrepareFn)
//   memory     plan_memory, unplan_inputs, check_writes_and_data (method_memory.cpp)
//   passes     find_state, fold_constant_permutes, fold_safe_softmax, fold_copy_views, last_row_logits,
//              cast_cache_prefix
//              (passes/, one file each; they see the checked instructions and the plan).
//              After plan_memory, analyze_access computes the analysis of which
//              instruction reads and writes each value (passes/value_access.h) that
//              unplan_inputs, the folds and attach_library_matmuls share.
//   backends   attach_library_matmuls, then threads and scratch, create_backends
//              (method_backends.cpp)
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "interpreter/method.h"
#include "interpreter/passes/value_access.h"

namespace pte {
namespace loading {

inline std::string num(int64_t v) { return std::to_string(v); }

inline std::string shape_str(const Tensor& t) {
  std::string s = std::string(dtype_short_name(t.dtype)) + "[";
  for (int i = 0; i < t.dim; ++i) s += (i ? "," : "") + num(t.sizes[i]);
  return s + "]";
}

// What the loader remembers about each tensor value until memory is assigned.
struct Slot {
  int32_t value = -1;
  uint32_t mem_id = 0;        // 1-based arena in the file's plan; 0 = not planned
  uint64_t offset = 0;
  uint32_t data_idx = 0;      // data_buffer_idx
  bool external = false;      // extra_tensor_info.location == EXTERNAL
  std::string_view fqn;
  size_t nbytes = 0;          // at the (upper-bound) serialized sizes
  bool constant = false;      // data in the file (no arena slot)
  bool needs_memory = false;  // gets an arena slot
};

}  // namespace loading

struct MethodImpl::Load {
  Load(MethodImpl& mi, const LoadedProgram& p, const fb::ExecutionPlan* pl, const Program::MethodOptions& o)
      : m(mi), program(p), plan(pl), options(o) {}
  MethodImpl& m;
  const LoadedProgram& program;
  const fb::ExecutionPlan* plan;
  const Program::MethodOptions& options;
  uint32_t nvalues = 0;
  std::vector<loading::Slot> slots;    // one per tensor value
  const uint8_t* const_lo = nullptr;   // the span of the method's constant tensors (prefetched at load)
  const uint8_t* const_hi = nullptr;
  std::vector<int32_t> slot_of;        // value -> slot, -1 for non-tensors
  std::vector<uint8_t> is_input, is_output, is_view_out, referenced;
  std::vector<uint8_t> const_view;     // folded permute_copy outputs: views of constants (fold_constant_permutes)
  std::vector<const KernelDef*> kernel_defs;  // per operator index (null: no kernel in this build)
  // What the passes compare: a kernel instruction's operator id (None: not a kernel, or none in this build).
  OpId op_id(const Instr& in) const {
    const KernelDef* kd = in.kind == Instr::Kernel && in.index < kernel_defs.size() ? kernel_defs[in.index] : nullptr;
    return kd ? kd->id : OpId::None;
  }
  // Program::memory_needed: plan_memory stops after sizing, with the bytes here.
  size_t* measure = nullptr;
  size_t carved = 0;                   // bytes taken from options.memory so far
  int32_t last_row_delegate = -1, last_row_arg = -1;  // set by last_row_logits
  // Which instruction reads and writes each value: computed after plan_memory, recomputed
  // when fold_constant_permutes drops instructions; read by unplan_inputs, the passes and
  // attach_library_matmuls (passes/value_access.h).
  passes::ValueAccess access;
  void analyze_access() { passes::analyze_access(m.values_, m.instrs_, m.args_, &access); }

  Status fail(const std::string& what) const { return Status::error(ErrorCode::MalformedMethod, m.prefix_ + ": " + what); }
  Status fail(ErrorCode code, const std::string& what) const { return Status::error(code, m.prefix_ + ": " + what); }

  // parse (method_parse.cpp)
  Status check_index(int64_t v, const std::string& what) const;
  Status parse_values();
  Status parse_tensor(uint32_t k, const fb::Tensor* ft);
  Status check_layout(const std::string& where, const Tensor& t, const flat_tensor_flatbuffer::TensorLayout* layout) const;
  Status parse_io();
  Status parse_instructions(std::vector<std::string>* unsupported);
  void mark_list_items(int32_t v);

  // prepare (method_prepare.cpp)
  Status prepare_kernels();

  // memory (method_memory.cpp)
  size_t scratch_bytes() const;
  Status check_memory(uint64_t need);
  bool take(planner::Arena& a, size_t size);
  Status plan_memory();
  void collect_events(planner::PlanInput* pin);
  void unplan_inputs();
  Status check_writes_and_data();

  // passes (passes/*.cpp)
  void find_state();
  size_t fold_constant_permutes();  // the number of permutes folded
  size_t fold_safe_softmax();  // the number of safe-softmax tails fused
  void fold_copy_views();
  template <class Range, class Touches, class Views, class LastReader, class ReadAfter, class Move>
  void index_put_into_self(size_t i, bool debug, const std::vector<uint8_t>& pinned, const std::vector<int32_t>& writer,
                           Range range_of, Touches touches, Views planned_views, LastReader last_reader,
                           ReadAfter read_after, Move move_views);
  void last_row_logits();
  size_t cast_cache_prefix();  // the number of whole-cache casts bounded to the positions read

  // backends and threads (method_backends.cpp, method_load.cpp)
  bool small_method() const;
  Status create_backends();
  Status attach_library_matmuls();
};

}  // namespace pte
