// pte-run kernels: the calling convention every operator follows.
//
// A KernelCall in a .pte lists every schema argument in order (kwarg-only ones too),
// then one trailing return slot (the same value as `out` for single-output .out ops).
// A kernel receives those EValue pointers, reads its inputs, resizes its outputs
// (resize_tensor) and writes them. It allocates nothing: scratch memory, if needed,
// comes from ctx.scratch(). On failure it calls ctx.fail(...) and returns false; the
// method adds the file, method, instruction and operator to the message.
#pragma once
#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include "pte/value.h"

struct pthreadpool;

namespace pte {

class KernelContext {
 public:
  // printf-style; keeps the first failure. Always returns false so kernels can
  // `return ctx.fail("...")`.
  bool fail(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  const char* message() const { return message_; }
  bool failed() const { return failed_; }
  void reset() { failed_ = false; message_[0] = 0; scratch_used_ = 0; }

  // Thread pool for parallel kernels (null: run on the calling thread).
  pthreadpool* threadpool = nullptr;
  // Threads for the kernels scheduled by linalg::claim_parallel_for (fp32 GEMM/GEMV,
  // SDPA): the method's thread count, kept while adaptive_threads nulls `threadpool`
  // (those kernels never wait for a descheduled worker; see ops/linalg/claim_pool.h).
  int claim_threads = 1;
  // The instruction's load-time state, for the kernels the loader substitutes with one
  // (ops/linalg/xnn_library_matmul.h: the XNNPACK library operator); null otherwise.
  const void* op_state = nullptr;

  // Per-instruction scratch memory, freed after the instruction; null when the
  // method's scratch arena is too small (the kernel should fail with a clear message).
  void* scratch(size_t bytes, size_t align = 64);
  // The most bytes a scratch(bytes, align) call could get now.
  size_t scratch_left(size_t align = 64) const {
    const size_t start = (scratch_used_ + align - 1) / align * align;
    return scratch_base_ && start < scratch_size_ ? scratch_size_ - start : 0;
  }
  void set_scratch_arena(void* base, size_t bytes) { scratch_base_ = static_cast<uint8_t*>(base); scratch_size_ = bytes; scratch_used_ = 0; }

 private:
  char message_[512] = {0};
  bool failed_ = false;
  uint8_t* scratch_base_ = nullptr;
  size_t scratch_size_ = 0;
  size_t scratch_used_ = 0;
};

using KernelFn = bool (*)(KernelContext& ctx, EValue** args);

// A kernel's load-time step (TFLite Micro's "prepare"): called once per instruction when
// a method loads, with the instruction's arguments as parsed (argument kinds and tensor
// dtypes are final: set_input refuses another dtype; shapes may still change). It checks
// what cannot change between calls and returns the function execute() will call: a
// specialised one that skips those checks, or the kernel's generic `fn`. When the
// arguments can never run (a dtype the operator refuses), it returns null after
// ctx.fail(...): the method does not load (ErrorCode::KernelArguments), naming the
// instruction and operator. It allocates nothing and keeps no state.
using KernelPrepareFn = KernelFn (*)(KernelContext& ctx, EValue** args);

// Every operator of the tree, named by its kernel function (ops/*/ops.def): the loader and
// its passes compare these, never operator names. Stable within a build; a selective build
// keeps the full list (an operator it leaves out simply has no KernelDef).
enum class OpId : uint16_t {
  None = 0,
#define PTE_KERNEL(name, nargs, fn, ...) fn,
#include "ops/all_ops.def"
#undef PTE_KERNEL
};

struct KernelDef {
  const char* name;  // "aten::add.out": operator name, '.', overload (no '.' when the overload is empty)
  int num_args;      // schema args + 1 return slot; -1 = variable (checked by the kernel)
  KernelFn fn;
  OpId id;
  KernelPrepareFn prepare = nullptr;  // null: no load-time step, `fn` runs as is
};

// Finds a kernel by its full name; null when this build has none.
const KernelDef* find_kernel(const char* name);
// All kernels of this build (for `pte-run info` and tests).
const KernelDef* all_kernels(size_t* count);

}  // namespace pte
