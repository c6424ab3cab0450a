// pte-run: loading a method, part 3: backends. Delegate instances (create_backends,
// after the passes and the thread pool) and the XNNPACK library's matmuls for fp32
// linear layers with constant weights (attach_library_matmuls, after the passes).

#include <pthreadpool.h>

#include "interpreter/method_load.h"
#include "ops/linalg/matmul.h"

namespace pte {

using namespace loading;

Status MethodImpl::Load::create_backends() {
  const auto* dels = plan->delegates();
  uint32_t ndel = dels ? dels->size() : 0;
  if (ndel) m.backend_workspace_ = std::make_unique<BackendWorkspace>();
  if (ndel) m.packed_ = std::make_unique<planner::PackArena>();
  for (uint32_t d = 0; d < ndel; ++d) {
    const auto* del = dels->Get(d);
    BackendInit init;
    init.workspace = m.backend_workspace_.get();
    init.packed = m.packed_.get();
    init.id = m.delegate_ids_[d];
    Status s = program.delegate_blob(del, &init.blob);
    if (!s) return s.context(m.prefix_ + ": delegate " + num(d) + " (" + m.delegate_ids_[d] + ")").with_default_code(ErrorCode::MalformedMethod);
    if (const auto* specs = del->compile_specs())
      for (const auto* cs : *specs) {
        CompileSpecRef r;
        if (cs->key()) r.key = cs->key()->string_view();
        if (cs->value()) r.value = {cs->value()->data(), cs->value()->size()};
        init.compile_specs.push_back(r);
      }
    init.program = &program;
    init.method = m.info_.name;
    init.delegate_index = static_cast<int>(d);
    init.threadpool = m.threadpool_;
    init.num_threads = m.threadpool_ ? static_cast<int>(pthreadpool_get_threads_count(m.threadpool_)) : 1;
    if (static_cast<int32_t>(d) == last_row_delegate) init.last_row_only_output = last_row_arg;
    init.xnnpack = options.xnnpack;
    s = create_backend(init, &m.backends_[d]);
    if (!s) return s.context(m.prefix_ + ": delegate " + num(d) + " (" + m.delegate_ids_[d] + ")").with_default_code(ErrorCode::Delegate);
    if (!m.backends_[d]) return fail(ErrorCode::Delegate, "delegate " + num(d) + " (" + m.delegate_ids_[d] + ") created no instance");
    std::vector<MatmulPath> paths;
    m.backends_[d]->matmul_paths(&paths);
    for (MatmulPath& p : paths) {
      p.where = "delegate " + num(d) + " " + p.where;
      m.matmul_paths_.push_back(std::move(p));
    }
  }
  return Status::ok();
}

// MethodOptions::xnnpack: fp32 linear / mm / addmm instructions whose weights are
// constant (in the file, or folded views of it) may run on the XNNPACK library's fully
// connected operator, created here with the weights packed once (xnn_library_matmul.h).
// Every candidate gets a MatmulPath, whichever path it takes.
Status MethodImpl::Load::attach_library_matmuls() {
  const size_t nv = m.values_.size();
  // a Move may re-point the value (the shared analysis: still valid after the passes)
  auto moved = [&](size_t v) { return access.has(v, passes::ValueAccess::MoveTo); };
  auto is_constant = [&](const EValue* e) {
    if (!e || e->tag != Tag::Tensor) return false;
    const size_t v = static_cast<size_t>(e - m.values_.data());
    if (v >= nv || moved(v)) return false;
    const int32_t s = slot_of[v];
    return (s >= 0 && slots[s].constant) || (v < const_view.size() && const_view[v]);
  };
  for (size_t c = 0; c + 1 < m.chain_begin_.size(); ++c)
    for (uint32_t i = m.chain_begin_[c]; i < m.chain_begin_[c + 1]; ++i) {
      Instr& in = m.instrs_[i];
      linalg::xnnlib::MatmulKind kind;
      if (in.kind != Instr::Kernel || !in.fn || !linalg::xnnlib::matmul_kind(op_id(in), &kind)) continue;
      bool candidate = false;
      MatmulPath path;
      std::unique_ptr<linalg::xnnlib::LibMatmul> lm;
      PTE_TRY(linalg::xnnlib::attach(kind, m.args_.data() + in.arg_begin, in.fn, in.fn == mm_last_row_out,
                                     is_constant, options.xnnpack, &candidate, &path, &lm)
                  .context(m.prefix_ + ": instruction " + num(i - m.chain_begin_[c]) + " (" + m.op_names_[in.index] + ")"));
      if (!candidate) continue;
      path.where = "instruction " + num(i - m.chain_begin_[c]) + (m.chain_begin_.size() > 2 ? " of chain " + num(c) : "");
      path.op = m.op_names_[in.index];
      m.matmul_paths_.push_back(path);
      if (lm) {
        in.fn = linalg::xnnlib::lib_matmul_out;
        in.state = lm.get();
        m.lib_matmuls_.push_back(std::move(lm));
      }
    }
  return Status::ok();
}

}  // namespace pte
