// pte-run: the kernels' load-time step (ops/kernel.h, KernelPrepareFn). Runs after
// parsing, before memory planning and the passes: every kernel instruction whose operator
// has a prepare function gets it called once with its arguments; what it returns becomes
// the instruction's function (the passes may still substitute their own afterwards, e.g.
// views for copies). An instruction that reads or writes a value a MoveCall overwrites
// keeps the generic kernel: its argument kinds and dtypes are not fixed at load.
#include "interpreter/method_load.h"

namespace pte {

using namespace loading;

Status MethodImpl::Load::prepare_kernels() {
  std::vector<uint8_t> moved(m.values_.size(), 0);
  for (const Instr& in : m.instrs_)
    if (in.kind == Instr::Move) moved[static_cast<size_t>(in.b)] = 1;
  auto touches_moved = [&](const Instr& in) {
    for (uint32_t j = 0; j < in.nargs; ++j) {
      const EValue* e = m.args_[in.arg_begin + j];
      if (moved[static_cast<size_t>(e - m.values_.data())]) return true;
    }
    return false;
  };
  KernelContext ctx;
  for (size_t c = 0; c + 1 < m.chain_begin_.size(); ++c)
    for (uint32_t i = m.chain_begin_[c]; i < m.chain_begin_[c + 1]; ++i) {
      Instr& in = m.instrs_[i];
      if (in.kind != Instr::Kernel || !in.fn) continue;
      const KernelDef* kd = kernel_defs[in.index];
      if (!kd || !kd->prepare || touches_moved(in)) continue;
      ctx.reset();
      KernelFn fn = kd->prepare(ctx, m.args_.data() + in.arg_begin);
      if (!fn) {
        const std::string where = "instruction " + num(i - m.chain_begin_[c]) + (m.chain_begin_.size() > 2 ? " of chain " + num(c) : "");
        return fail(ErrorCode::KernelArguments, where + " (" + m.op_names_[in.index] + "): " +
                                                    (ctx.failed() ? ctx.message() : "refused by the kernel's load-time check"));
      }
      in.fn = fn;
    }
  return Status::ok();
}

}  // namespace pte
