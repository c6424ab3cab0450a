// pte-run load-time pass, LLM-specific: last-row logits
// (MethodOptions::last_row_of_output_only; after the copy views, before
// attach_library_matmuls and create_backends).

#include "interpreter/method_load.h"
#include "ops/linalg/matmul.h"

namespace pte {

using namespace loading;

// MethodOptions::last_row_of_output_only: output 0 = view*(mm(a, w)) -> the mm
// computes only its last row. Views (et_view, view_copy) keep the row-major order,
// so the last row of the mm is the last row of the output.
void MethodImpl::Load::last_row_logits() {
  if (m.outputs_.empty()) return;
  // the one kernel whose return slot is each value (shared analysis, still valid: the
  // copy views change kernel functions and memory only)
  const std::vector<int32_t>& writer = access.return_writer;
  int32_t v = m.outputs_[0];
  for (int hops = 0; hops < 8 && v >= 0 && writer[v] >= 0; ++hops) {
    Instr& in = m.instrs_[writer[v]];
    const OpId op = op_id(in);
    EValue** a = m.args_.data() + in.arg_begin;
    if ((op == OpId::et_view_default || op == OpId::view_copy_out) && in.nargs >= 3 &&
        a[0]->tag == Tag::Tensor) {
      v = static_cast<int32_t>(a[0] - m.values_.data());
      continue;
    }
    if (op == OpId::mm_out && in.nargs == 4 && in.fn) in.fn = mm_last_row_out;
    return;
  }
  // written by a delegate (called once): tell the backend at creation (BackendInit)
  if (v < 0 || writer[v] != -1) return;
  int32_t call = -1, arg = -1;
  for (size_t i = 0; i < m.instrs_.size(); ++i) {
    const Instr& in = m.instrs_[i];
    if (in.kind != Instr::Delegate) continue;
    for (uint32_t j = 0; j < in.nargs; ++j)
      if (m.args_[in.arg_begin + j] == &m.values_[v]) {
        if (call >= 0) return;  // in two calls
        call = static_cast<int32_t>(i), arg = static_cast<int32_t>(j);
      }
  }
  if (call < 0) return;
  for (size_t i = 0; i < m.instrs_.size(); ++i)
    if (m.instrs_[i].kind == Instr::Delegate && static_cast<int32_t>(i) != call && m.instrs_[i].index == m.instrs_[call].index) return;
  last_row_delegate = static_cast<int32_t>(m.instrs_[call].index), last_row_arg = arg;
}

}  // namespace pte
