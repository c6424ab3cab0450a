// pte-run: loading a method (see method.h, method_load.h and
// ../shared/docs/pte-format.md §2.1-2.8): MethodImpl::load runs the steps in order;
// the steps live in method_parse.cpp, method_memory.cpp, passes/ and method_backends.cpp.
#include <pthreadpool.h>

#include <cpuinfo.h>

#include <cstdlib>
#include <cstring>

#include <mutex>

#include "interpreter/method_load.h"
#include "pte_config.h"

namespace pte {

using namespace loading;

namespace {

int physical_cores() {
  static std::once_flag once;
  static int cores = 1;
  std::call_once(once, [] {
    if (cpuinfo_initialize()) cores = static_cast<int>(cpuinfo_get_cores_count());
    if (cores < 1) cores = 1;
  });
  return cores;
}

}  // namespace

// A small method runs on the calling thread unless threads were asked for: with every
// tensor under 16K elements and at most 1 MiB of weights and delegate data in the file, no
// kernel reaches its threading threshold (the GEMM's: 2e6 multiply-adds), and creating a
// pool costs 2-4 ms on the 2-core VM (a tiny program's load was 0.5-8 ms, mostly that).
bool MethodImpl::Load::small_method() const {
  const ProgramInfo& pi = program.info();
  uint64_t data = pi.constant_bytes + pi.named_data_bytes + pi.external_bytes;
  for (const SegmentInfo& sg : pi.segments) data += sg.size;
  if (data > (1u << 20)) return false;
  for (const EValue& e : m.values_)
    if (e.tag == Tag::Tensor && e.t && e.t->numel() >= 16384) return false;
  return true;
}

Status MethodImpl::load(const LoadedProgram& program, int plan_index, const Program::MethodOptions& options,
                        std::unique_ptr<MethodImpl>* out, size_t* measure) {
  std::unique_ptr<MethodImpl> mp(new MethodImpl());
  MethodImpl& m = *mp;
  const fb::ExecutionPlan* plan = program.root()->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(plan_index));
  m.program_ = &program;
  m.info_ = program.info().methods[static_cast<size_t>(plan_index)];
  m.prefix_ = program.info().path + ": method " + m.info_.name;

  Load L{m, program, plan, options};
  PTE_TRY(L.parse_values());
  // The constants the method's own kernels read lie in the program's constant segment; the
  // delegates map theirs in place (populate). Some are read a row at a time (an embedding
  // table: on a cold page cache each new token's row waited on the disk, SmolLM2 fp32 1.9 ms
  // a decode step): read the span ahead in the background.
  if (L.const_hi > L.const_lo) program.prefetch_pages(L.const_lo, static_cast<size_t>(L.const_hi - L.const_lo));
  PTE_TRY(L.parse_io());
  std::vector<std::string> unsupported;
  PTE_TRY(L.parse_instructions(&unsupported));
  if (!unsupported.empty()) {
    std::string msg;
    for (size_t k = 0; k < unsupported.size(); ++k) msg += (k ? ", " : "") + unsupported[k];
    // any missing operator names the failure; delegates alone are UnsupportedDelegate
    bool ops = false;
    for (const std::string& u : unsupported) ops |= u.rfind("unsupported operator", 0) == 0;
    return L.fail(ops ? ErrorCode::UnsupportedOperator : ErrorCode::UnsupportedDelegate, msg);
  }
  PTE_TRY(L.prepare_kernels());
  L.measure = measure;
  PTE_TRY(L.plan_memory());
  if (measure) return Status::ok();
  L.analyze_access();
  L.unplan_inputs();
  PTE_TRY(L.check_writes_and_data());
  L.find_state();
  if (L.fold_constant_permutes() > 0) L.analyze_access();  // folded permutes are no-ops now
  if (options.fuse_safe_softmax && L.fold_safe_softmax() > 0) L.analyze_access();  // so are the fused tails
  if (options.copies_as_views) L.fold_copy_views();
#if PTE_LLM_PASSES
  if (options.last_row_of_output_only) L.last_row_logits();
  if (options.bound_cache_casts && L.cast_cache_prefix() > 0) L.analyze_access();  // the bounded casts read start_pos and the query
#endif
  PTE_TRY(L.attach_library_matmuls());

  // Threads and scratch before the backends, which may keep the pool.
  int threads = options.num_threads > 0 ? options.num_threads : L.small_method() ? 1 : physical_cores();
  if (threads > 1 && !m.instrs_.empty()) {
    m.threadpool_ = pthreadpool_create(static_cast<size_t>(threads));
    if (!m.threadpool_) return L.fail(ErrorCode::AllocationFailed, "cannot create a thread pool of " + num(threads) + " threads");
    // A new pool's workers spin (a million pauses each) before they sleep: ~18 ms of a core
    // after every load, taken from the first call's threads (a 2-core VM). One empty job
    // that yields them puts them to sleep now.
    pthreadpool_parallelize_1d(
        m.threadpool_, [](void*, size_t) {}, nullptr, static_cast<size_t>(threads), PTHREADPOOL_FLAG_YIELD_WORKERS);
  }
  const size_t scratch = L.scratch_bytes();
  if (!L.take(m.scratch_, scratch)) return L.fail(ErrorCode::AllocationFailed, "cannot allocate " + num(scratch) + " bytes of kernel scratch");
  m.ctx_.set_scratch_arena(m.scratch_.data(), scratch);
  m.ctx_.threadpool = m.threadpool_;
  m.ctx_.claim_threads = m.threadpool_ ? threads : 1;
  m.claim_threads_ = m.ctx_.claim_threads;
  // PTE_FIXED_THREADS=1: every call shares its work (the thread policy off), for comparisons
  const char* fixed = std::getenv("PTE_FIXED_THREADS");
  m.adaptive_threads_ = options.adaptive_threads && !(fixed && *fixed && std::strcmp(fixed, "0") != 0);
  PTE_TRY(L.create_backends());
  *out = std::move(mp);
  return Status::ok();
}

MethodImpl::~MethodImpl() {
  backends_.clear();
  if (threadpool_) pthreadpool_destroy(threadpool_);
}

Status LoadedProgram::method_index(const std::string& name, int* index) const {
  *index = find_plan(name);
  if (*index >= 0) return Status::ok();
  std::string names;
  for (const MethodInfo& mi : info_.methods) names += (names.empty() ? "" : ", ") + mi.name;
  return Status::error(ErrorCode::UnknownMethod, info_.path + ": no method named '" + name + "' (methods: " + names + ")");
}

Status LoadedProgram::load_method(const std::string& name, const MethodOptions& options, std::unique_ptr<Method>* out) {
  int idx = 0;
  PTE_TRY(method_index(name, &idx));
  std::unique_ptr<MethodImpl> m;
  Status s = MethodImpl::load(*this, idx, options, &m);
  if (!s) return s.with_default_code(ErrorCode::MethodLoad);
  *out = std::move(m);
  return Status::ok();
}

Status LoadedProgram::memory_needed(const std::string& name, const MethodOptions& options, size_t* bytes) const {
  int idx = 0;
  PTE_TRY(method_index(name, &idx));
  MethodOptions o = options;
  o.memory = nullptr;
  o.memory_bytes = 0;
  size_t need = 0;
  std::unique_ptr<MethodImpl> m;
  Status s = MethodImpl::load(*this, idx, o, &m, &need);
  if (!s) return s.with_default_code(ErrorCode::MethodLoad);
  *bytes = need;
  return Status::ok();
}

}  // namespace pte
