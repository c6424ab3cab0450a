// pte-run: delegate backends (the code behind a DelegateCall instruction).
//
// A BackendDelegate in a .pte names a backend by id ("XnnpackBackend") and carries
// an opaque processed blob plus compile specs. At method load the interpreter asks
// create_backend() for an instance per delegate; at run time each DelegateCall passes
// the instance its argument EValues: the delegate's inputs, then its outputs
// (flattened, in graph order). The instance reshapes/writes the outputs itself.
//
// Adding a backend: write `Status create_mybackend(const BackendInit&, std::unique_ptr<BackendInstance>*)`
// and add one line to the table in backends.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "interpreter/loader.h"
#include "memory_planner/pack_arena.h"
#include "ops/kernel.h"

struct pthreadpool;

namespace pte {

struct CompileSpecRef {
  std::string_view key;
  Bytes value;
};

// Scratch memory shared by all delegates of one method: delegates run one after the
// other, and their intermediate values do not outlive a call, so one buffer sized for
// the largest delegate serves them all (like XNNPACK's shared workspace). Backends
// reserve() at init (load time); execute() reads data(), which no longer moves.
class BackendWorkspace {
 public:
  // Grows the buffer to at least `bytes` (64-byte aligned). Load time only.
  Status reserve(size_t bytes);
  uint8_t* data() const { return base_; }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<uint8_t[]> storage_;
  uint8_t* base_ = nullptr;
  size_t size_ = 0;
};

// Everything a backend sees at init. Pointers stay valid for the life of the method
// (blob and specs point into the mapped program).
struct BackendInit {
  std::string_view id;                 // "XnnpackBackend"
  Bytes blob;                          // processed bytes (inline or segment)
  std::vector<CompileSpecRef> compile_specs;
  const LoadedProgram* program = nullptr;  // named_data() for weights (program, then .ptd files)
  std::string_view method;             // method name
  int delegate_index = 0;
  pthreadpool* threadpool = nullptr;   // the method's pool (null: single thread)
  int num_threads = 1;
  BackendWorkspace* workspace = nullptr;  // the method's shared scratch (null: the backend allocates its own)
  // The method's memory for load-time repacked weights, shared by its delegates (huge
  // pages: memory_planner/pack_arena.h); outlives them. Null: the backend keeps its own.
  planner::PackArena* packed = nullptr;
  // >= 0: the args index of an output of which the method reads only the last row
  // (MethodOptions::last_row_of_output_only); the backend may compute only that row.
  int last_row_only_output = -1;
  // MethodOptions::xnnpack: where fp32 fully connected nodes with constant weights run.
  XnnpackPolicy xnnpack = XnnpackPolicy::Default;
};

// Adds ms and calls to the entry of `out` named `name` (appended if none): the one place
// profiles sum timings by name (MethodImpl::profile, the backends' node profiles).
inline void add_op_timing(std::vector<OpTiming>* out, const std::string& name, double ms, uint64_t calls) {
  for (OpTiming& o : *out)
    if (o.name == name) {
      o.total_ms += ms, o.calls += calls;
      return;
    }
  out->push_back({name, ms, calls});
}

class BackendInstance {
 public:
  virtual ~BackendInstance() = default;
  // Runs the delegate. `args` = the DelegateCall's EValues, inputs first, then outputs.
  // Must not allocate; on failure returns ctx.fail("...") (the method adds file,
  // method, instruction and backend to the message). ctx.threadpool and ctx.scratch()
  // are available as for kernels.
  virtual bool execute(KernelContext& ctx, EValue** args, size_t nargs) = 0;
  // The fp32 matrix multiplies with constant weights and their paths (BackendInit::xnnpack);
  // `where` names the node ("node 5"), the method prefixes the delegate.
  virtual void matmul_paths(std::vector<MatmulPath>* out) const { (void)out; }
  // Profiling (Method::set_profiling): time per kind of node inside the delegate, summed
  // over the execute() calls made while on. Backends that cannot leave `out` empty.
  virtual void set_profiling(bool on) { (void)on; }
  virtual void profile(std::vector<OpTiming>* out) const { (void)out; }
};

using BackendCreateFn = Status (*)(const BackendInit& init, std::unique_ptr<BackendInstance>* out);

// True when a delegate with this backend id can be loaded and run.
bool backend_supported(std::string_view id);

// Creates an instance of backend `init.id`. Fails for an unknown id or when the
// backend rejects the blob (the message says why).
Status create_backend(const BackendInit& init, std::unique_ptr<BackendInstance>* out);

// Lists the node types inside a delegate blob (backends that can; others leave
// `nodes` empty). Fails when the blob is malformed.
Status describe_backend_blob(std::string_view id, Bytes blob, const LoadedProgram* program,
                             std::vector<DelegateNodeInfo>* nodes);

}  // namespace pte
