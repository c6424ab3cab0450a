// pte-run: a loaded method (the interpreter proper).
//
// Loading (method_load.cpp) turns an ExecutionPlan into flat arrays, checking every
// index once so that execution never has to:
//   values_     one EValue per plan value; tensors point at constants in the mapped
//               file, at arena slots, at caller memory (unplanned inputs) or nowhere
//               yet (et_view outputs get their pointer at run time);
//   instrs_     one compact Instr per instruction, kernels and backends resolved,
//               arguments as ranges of EValue pointers in args_;
//   arenas_     the file's planned buffers, or one arena from our re-plan.
// Execution (method.cpp) walks instrs_ and allocates nothing.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interpreter/thread_policy.h"
#include "interpreter/backends.h"
#include "interpreter/loader.h"
#include "memory_planner/planner.h"
#include "ops/kernel.h"
#include "ops/linalg/xnn_library_matmul.h"
#include "pte/program.h"

namespace pte {

// "forward(f32[1,<=127], i64=5) -> (f32[2,2])": dynamic dims shown as upper bounds,
// non-tensor inputs with the value baked in at export.
std::string signature_string(const MethodInfo& m);
// Bytes of the file's own memory plan (sum of non_const_buffer_sizes[1..]).
size_t file_plan_bytes(const MethodInfo& m);

// Default size of each method's kernel scratch arena (KernelContext::scratch()).
constexpr size_t kDefaultScratchBytes = 4u << 20;

// Executed-instruction limit per execute() (ExecuTorch's ET_MAX_INSTRUCTIONS).
constexpr uint64_t kMaxExecutedInstructions = 10'000'000;

struct Instr {
  enum Kind : uint8_t { Kernel, Delegate, Move, JumpFalse, Free };
  Kind kind = Kernel;
  uint32_t index = 0;      // operator index (Kernel), delegate index (Delegate)
  uint32_t arg_begin = 0;  // into MethodImpl::args_
  uint32_t nargs = 0;
  uint32_t check_begin = 0;  // into MethodImpl::checks_: inputs that may lack data at run time
  uint32_t nchecks = 0;
  int32_t a = 0, b = 0;    // Move: from, to. JumpFalse: cond value, absolute destination. Free: value.
  KernelFn fn = nullptr;
  const void* state = nullptr;  // Kernel: KernelContext::op_state for fn (library operators)
};

class MethodImpl final : public Method {
 public:
  MethodImpl() = default;
  ~MethodImpl() override;
  MethodImpl(const MethodImpl&) = delete;
  MethodImpl& operator=(const MethodImpl&) = delete;

  const MethodInfo& info() const override { return info_; }
  Status set_input(size_t index, const Tensor& value) override;
  Status set_input(size_t index, const EValue& value) override;
  bool input_bound_by_pointer(size_t index) const override {
    return index < inputs_.size() && values_[inputs_[index]].tag == Tag::Tensor && !value_planned_[inputs_[index]];
  }
  Status execute() override;
  ThreadCalls thread_calls() const override {
    return {thread_policy_.calls_shared(), thread_policy_.calls_alone(), thread_policy_.trials()};
  }
  size_t num_outputs() const override { return outputs_.size(); }
  const EValue& output(size_t index) const override;
  size_t arena_bytes() const override { return arena_bytes_; }
  size_t copies_as_views() const override { return copies_as_views_; }
  size_t safe_softmax_folds() const override { return safe_softmax_folds_; }
  size_t cache_cast_prefixes() const override { return cache_cast_prefixes_; }
  size_t cache_half_attentions() const override { return cache_half_attentions_; }
  void set_profiling(bool on) override;
  std::vector<OpTiming> profile() const override;
  void set_observer(InstructionObserver fn, void* user) override { observer_ = fn, observer_user_ = user; }
  std::vector<MatmulPath> matmul_paths() const override { return matmul_paths_; }

  std::vector<StateTensor> state_tensors() override {
    std::vector<StateTensor> r;
    for (int32_t v : state_values_) r.push_back({static_cast<size_t>(v), values_[static_cast<size_t>(v)].t});
    return r;
  }

  // True when the arenas come from our re-plan rather than the file.
  bool replanned() const { return replanned_; }

  // Loads plan `plan_index` of `program` (see method_load.cpp).
  // With `measure`, stops once memory is sized and stores the bytes needed there
  // (Program::memory_needed); `out` is then left empty.
  static Status load(const LoadedProgram& program, int plan_index, const Program::MethodOptions& options,
                     std::unique_ptr<MethodImpl>* out, size_t* measure = nullptr);

 private:
  struct Load;  // loader state (method_load.h)
  friend struct Load;

  Status error(ErrorCode code, const char* fmt, ...) const __attribute__((format(printf, 3, 4)));
  Status input_mismatch(ErrorCode code, size_t index, const std::string& why) const;
  bool inputs_have_data(const Instr& in) const;
  bool observe(size_t chain, uint32_t local, const Instr& in);

  const LoadedProgram* program_ = nullptr;
  MethodInfo info_;
  std::string prefix_;  // "model.pte: method forward"

  std::vector<EValue> values_;
  std::vector<Tensor> tensors_;         // storage behind tensor EValues
  std::vector<uint8_t> value_planned_;  // per value: tensor has an arena slot (inputs are copied in)
  std::vector<EValue*> list_items_;     // IntList / TensorList item pointers
  std::vector<int64_t> int_scratch_;    // IntList materialisation
  std::vector<Instr> instrs_;
  std::vector<EValue*> args_;
  std::vector<const EValue*> checks_;   // tensor inputs without memory at load (et_view outputs, ...)
  std::vector<uint32_t> chain_begin_;   // instruction ranges per chain (+ end sentinel)
  std::vector<std::string> op_names_;   // per operator index (messages, profiles)
  std::vector<std::string> delegate_ids_;
  std::unique_ptr<BackendWorkspace> backend_workspace_;  // shared scratch of the delegates
  std::unique_ptr<planner::PackArena> packed_;  // their repacked weights (before backends_: outlives them)
  std::vector<std::unique_ptr<BackendInstance>> backends_;
  std::vector<int32_t> inputs_, outputs_;
  std::vector<int32_t> state_values_;   // persistent state (Method::state_tensors)
  std::vector<std::unique_ptr<linalg::xnnlib::LibMatmul>> lib_matmuls_;  // Instr::state of library matmuls
  std::vector<MatmulPath> matmul_paths_;  // Method::matmul_paths (kernels, then delegates)
  std::vector<uint8_t> input_set_;

  std::vector<planner::Arena> arenas_;
  size_t arena_bytes_ = 0;
  size_t cache_cast_prefixes_ = 0;  // whole-cache casts bounded to the positions read (passes/cast_cache_prefix.cpp)
  size_t cache_half_attentions_ = 0;  // of which attentions that read their fp16 caches themselves (their two casts no-ops)
  size_t safe_softmax_folds_ = 0;  // safe-softmax tails run as one kernel (MethodOptions::fuse_safe_softmax)
  size_t copies_as_views_ = 0;  // copy instructions run as views (MethodOptions::copies_as_views)
  bool replanned_ = false;
  planner::Arena scratch_;
  pthreadpool* threadpool_ = nullptr;
  bool adaptive_threads_ = true;        // MethodOptions::adaptive_threads
  int claim_threads_ = 1;               // ctx_.claim_threads while work is shared
  ThreadPolicy thread_policy_;          // share work or run alone (adaptive_threads)
  int64_t last_wall_ns_ = 0;            // the last call's wall time
  Status execute_calls();               // execute() after the thread decision
  uint64_t input_signature() const;     // the input tensors' sizes, hashed
  KernelContext ctx_;
  bool profiling_ = false;
  InstructionObserver observer_ = nullptr;
  void* observer_user_ = nullptr;
  std::vector<double> prof_ms_;         // per instruction, while profiling
  std::vector<uint64_t> prof_calls_;
  mutable char err_[1024] = {0};
  mutable char err_scratch_[256] = {0};
};

}  // namespace pte
