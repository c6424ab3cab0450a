// pte-run public API: open a program, inspect it, load and run its methods.
//
//   std::unique_ptr<pte::Program> prog;
//   pte::Status s = pte::Program::open_file("model.pte", {}, &prog);
//   std::unique_ptr<pte::Method> m;
//   s = prog->load_method("forward", {}, &m);
//   m->set_input(0, tensor);  m->execute();  m->output(0);
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pte/status.h"
#include "pte/value.h"

namespace pte {

struct OpenOptions {
  // External weight files (.ptd, "FT01") whose named tensors the program refers to.
  std::vector<std::string> data_files;
  // Run the flatbuffer verifier over every table before reading (on by default).
  bool verify = true;
};

struct TensorInfo {
  DType dtype = DType::Float;
  std::vector<int64_t> sizes;      // upper bounds when dynamic
  std::vector<uint8_t> dim_order;
  Dynamism dynamism = Dynamism::Static;
  bool memory_planned = false;     // has an arena slot (an input is copied in; else bound by pointer)
};

struct ValueInfo {
  Tag tag = Tag::None;
  TensorInfo tensor;               // when tag == Tensor
  // For non-tensor values baked in at export (constant-method outputs, specialised inputs).
  int64_t int_value = 0;
  double double_value = 0;
  bool bool_value = false;
  std::string string_value;
  // Constant tensors (e.g. a constant method returning a tensor): bytes in the mapped file.
  const void* constant_data = nullptr;
};

struct OperatorInfo {
  std::string name;                // "aten::add.out"
  bool supported = false;          // this build has a kernel for it
};

// One node type inside a delegate (pte-run info), e.g. {"XNNFullyConnected", 2, true}.
struct DelegateNodeInfo {
  std::string name;
  std::string types;               // operand types where they matter, e.g. "qdint8 x qbint4 -> fp32" (may be empty)
  size_t count = 0;
  bool supported = false;
};

struct DelegateInfo {
  std::string backend;             // "XnnpackBackend"
  bool supported = false;          // the backend exists and accepts every node of this delegate
  std::vector<DelegateNodeInfo> nodes;  // node types, in first-use order (backends that list them)
  std::string detail;              // why the delegate cannot run (blob error, unsupported node), if known
  size_t blob_bytes = 0;
  bool inline_data = false;        // blob inside the flatbuffer (else in a segment)
};

struct MethodInfo {
  std::string name;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<OperatorInfo> operators;
  std::vector<DelegateInfo> delegates;
  std::vector<int64_t> planned_buffers;  // bytes per arena (memory_id 1..N)
  size_t num_values = 0;
  size_t num_instructions = 0;
  bool is_constant = false;              // no instructions: a metadata method
};

struct SegmentInfo {
  uint64_t offset = 0;                   // absolute file offset
  uint64_t size = 0;
};

struct ProgramInfo {
  std::string path;
  uint64_t file_bytes = 0;
  bool extended_header = false;          // "eh00" present
  uint32_t version = 0;
  std::vector<SegmentInfo> segments;
  uint64_t constant_bytes = 0;           // constant segment or legacy constant_buffer
  bool legacy_constant_buffer = false;
  uint64_t named_data_bytes = 0;
  size_t named_data_entries = 0;
  uint64_t external_bytes = 0;           // in .ptd files
  std::vector<MethodInfo> methods;

  // The method `name` that executes (not a constant method of that name), or null.
  const MethodInfo* executable(std::string_view name) const {
    for (const auto& m : methods)
      if (m.name == name && !m.is_constant) return &m;
    return nullptr;
  }
};

class Method;

// One executed instruction, as an observer sees it (Method::set_observer).
struct InstructionEvent {
  size_t chain = 0;
  size_t instruction = 0;          // index within its chain
  const char* name = "";           // "aten::add.out", or the backend id of a delegate
  bool delegate = false;
  EValue* const* args = nullptr;   // the instruction's arguments, after it ran (outputs last)
  size_t nargs = 0;
};
// Returns false to stop execute() with an error naming the instruction.
using InstructionObserver = bool (*)(void* user, const InstructionEvent& event);

// Time spent per operator (or delegate) across the execute() calls made while
// profiling was on (Method::set_profiling). After them, entries named "BACKEND > NODE"
// ("XnnpackBackend > FullyConnected qdint8") split a delegate's time by its kinds of node
// (backends that can): they are part of the "delegate BACKEND" entry, not added to it.
struct OpTiming {
  std::string name;     // "aten::mm.out", "delegate XnnpackBackend"
  double total_ms = 0;
  uint64_t calls = 0;
};

// Where fp32 matrix multiplies with constant weights run (aten linear / mm / addmm in
// portable programs, fp32 fully connected nodes of XNNPACK delegates): pte-run's own
// kernels or the system XNNPACK library's fully connected operators (builds with the
// library only; elsewhere every policy runs our kernels).
//   Off   our kernels;   On   the library wherever it can;
//   Auto  per operation and CPU, as measured (ops/linalg/xnn_library.h, bench/xnn_fc_bench.cpp;
//         today ours everywhere: faster on x86-64, ARM not yet measured);
//   Default  the process-wide choice (set_default_xnnpack_policy; initially $PTE_XNNPACK
//            if it says on, off or auto, else Auto).
enum class XnnpackPolicy : uint8_t { Default, Off, On, Auto };
void set_default_xnnpack_policy(XnnpackPolicy policy);  // Default is taken as Auto
XnnpackPolicy default_xnnpack_policy();
// "on", "off", "auto" -> policy; false for anything else.
bool parse_xnnpack_policy(const std::string& text, XnnpackPolicy* out);

// The path one matrix multiply (or XNNPACK-delegate convolution: n output channels, k taps
// per output) takes in a loaded method (Method::matmul_paths, pte-run info).
struct MatmulPath {
  std::string where;     // "instruction 12", "delegate 0 node 5"
  std::string op;        // "aten::linear.out", "XNNFullyConnected"
  int64_t n = 0, k = 0;  // output and input features
  bool library = false;  // true: the XNNPACK library's operator, packed at load
  std::string why;       // the policy's reason
};

class Program {
 public:
  // Maps the file (zero copy) and verifies it. On failure `out` is untouched.
  static Status open_file(const std::string& path, const OpenOptions& options,
                          std::unique_ptr<Program>* out);
  // Uses caller memory, which must outlive the program (it is not copied).
  static Status open_buffer(const void* data, size_t size, const std::string& name,
                            const OpenOptions& options, std::unique_ptr<Program>* out);
  virtual ~Program() = default;

  virtual const ProgramInfo& info() const = 0;
  const std::string& path() const { return info().path; }

  struct MethodOptions {
    // Re-plan memory from tensor lifetimes instead of using the file's plan.
    bool replan_memory = false;
    int num_threads = 0;                 // 0: physical cores
    // Run on the calling thread alone while sharing work is measured to lose: every
    // parallel loop of the claim pool and the delegate's helper thread reports how long
    // its caller waited for helpers against the work they took; a window of loops whose
    // waits exceed that work (a helper descheduled on a machine busier than its cores)
    // makes the next calls run alone for 50 ms, doubling up to 1.6 s while probes lose
    // (ops/linalg/oversubscription.h). false: always share.
    bool adaptive_threads = true;
    size_t scratch_bytes = 0;            // kernel scratch arena per method; 0: 4 MiB
    // The caller reads only the last row (position) of output 0, e.g. a decoder's
    // logits [1, S, V] after a prefill chunk: when output 0 is a matrix multiply
    // (through views), only its last row is computed; the other rows are undefined.
    // A build configured with -Dllm_passes=false ignores it (every row is computed).
    bool last_row_of_output_only = false;
    // unsqueeze_copy, clone, alias_copy and expand_copy to the input's own sizes run as
    // views (no bytes moved) where the memory plan allows it; results are the same.
    // (With -Dllm_passes=true, the default, a KV-cache index_put also writes its cache
    // in place.)
    bool copies_as_views = true;
    // The exporter's safe-softmax tail after each attention softmax (eq -inf, logical_not,
    // any, logical_not, full_like, where: five passes over the attention map) runs as one
    // kernel that copies the softmax and zeroes rows whose scores are all -inf; results
    // are the same.
    bool fuse_safe_softmax = true;
    // An fp16 KV cache cast whole to fp32 before llama::custom_sdpa (fp16 exports) converts
    // only the positions the attention reads (start_pos + the query's length), and where
    // both caches of an attention are cast so, the attention reads the fp16 caches itself
    // (a decode step on AVX-512 without any fp32 copy; other forms widen the positions they
    // read); results are the same. (Builds with -Dllm_passes=true, the default.)
    bool bound_cache_casts = true;
    // Inputs the caller binds by pointer to memory it keeps across calls (a KV cache passed
    // as inputs, cache/kv_cache.h) although the file plans them in its arena: set_input
    // then copies nothing. Ignored for an input whose slot a folded view shares
    // (Method::input_bound_by_pointer says which were taken).
    std::vector<size_t> inputs_by_pointer;
    // fp32 linear layers with constant weights: our kernels or the XNNPACK library
    // (operators created and weights packed at load; see XnnpackPolicy).
    XnnpackPolicy xnnpack = XnnpackPolicy::Default;
    // Caller memory for the method's planned buffers and kernel scratch, as TFLite Micro
    // takes an arena: load carves them from this block (64-byte aligned, zero-filled) and
    // allocates none of them itself; the block must outlive the method. A block smaller
    // than memory_needed() fails the load with one line. Other load-time state (value
    // tables, packed weights, delegate instances) still comes from the heap, at load only.
    void* memory = nullptr;
    size_t memory_bytes = 0;
  };
  virtual Status load_method(const std::string& name, const MethodOptions& options,
                             std::unique_ptr<Method>* out) = 0;
  // Bytes of MethodOptions::memory the method needs with these options (for a 64-byte
  // aligned block): parses the method and sizes its plan, without loading it.
  virtual Status memory_needed(const std::string& name, const MethodOptions& options,
                               size_t* bytes) const = 0;
};

// A tensor whose contents persist between execute() calls: a mutable buffer such as a
// KV cache (memory the method reads before any of its instructions writes it).
struct StateTensor {
  size_t value = 0;          // index in the method's value table
  Tensor* tensor = nullptr;  // data may be read and written between calls
};

class Method {
 public:
  virtual ~Method() = default;
  virtual const MethodInfo& info() const = 0;

  // Tensor input: dtype must match; sizes must equal the static shape or fit the
  // bound. Planned inputs are copied into the arena; others point at `data`, which
  // must stay valid until execute() returns.
  virtual Status set_input(size_t index, const Tensor& value) = 0;
  // Scalar inputs (baked in at export: the value must equal the traced one).
  virtual Status set_input(size_t index, const EValue& value) = 0;
  virtual Status execute() = 0;
  // True when set_input(index) binds the caller's memory instead of copying into the arena
  // (an input the file does not plan, or one of MethodOptions::inputs_by_pointer).
  virtual bool input_bound_by_pointer(size_t index) const { (void)index; return false; }
  virtual size_t num_outputs() const = 0;
  // Valid until the next execute().
  virtual const EValue& output(size_t index) const = 0;
  // The method's persistent state, in value order (empty when it has none).
  virtual std::vector<StateTensor> state_tensors() { return {}; }
  // Arena bytes in use (file plan or our re-plan) and the file's own plan.
  virtual size_t arena_bytes() const = 0;
  // Copy instructions that run as views (MethodOptions::copies_as_views).
  virtual size_t copies_as_views() const { return 0; }
  // Safe-softmax tails run as one kernel (MethodOptions::fuse_safe_softmax).
  virtual size_t safe_softmax_folds() const { return 0; }
  // fp16 KV-cache casts before llama::custom_sdpa handled by MethodOptions::bound_cache_casts:
  // all of them (each bounded or made a no-op) and the attentions that read their two fp16
  // caches themselves (each counts two casts above).
  virtual size_t cache_cast_prefixes() const { return 0; }
  virtual size_t cache_half_attentions() const { return 0; }
  // Calls so far that shared their work with helper threads and that ran alone, and the
  // thread policy's trials (MethodOptions::adaptive_threads; all zero without helpers).
  struct ThreadCalls {
    int64_t shared = 0, alone = 0, trials = 0;
  };
  virtual ThreadCalls thread_calls() const { return {}; }
  // Per-instruction timing (benchmarks): on adds one clock read per instruction.
  // Turning it on clears what was collected.
  virtual void set_profiling(bool on) { (void)on; }
  virtual std::vector<OpTiming> profile() const { return {}; }
  // Debugging (pte-run run --dump): `fn` is called after every kernel and delegate
  // instruction, with its arguments (read them before returning: memory is reused).
  // Null turns it off. Costs one predictable branch per instruction when off.
  virtual void set_observer(InstructionObserver fn, void* user) { (void)fn, (void)user; }
  // Every fp32 matrix multiply (and delegated convolution) with constant weights and the path it
  // takes (XnnpackPolicy).
  virtual std::vector<MatmulPath> matmul_paths() const { return {}; }
};

}  // namespace pte
