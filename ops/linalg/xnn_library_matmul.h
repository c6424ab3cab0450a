// pte-run: aten::linear / mm / addmm instructions with constant fp32 weights on the
// XNNPACK library's fully connected operator (xnn_library.h).
//
// At load, attach() looks at one instruction: when its weight (and bias) are constant fp32
// tensors it is a candidate and gets a MatmulPath (shown by `pte-run info`); when the
// policy picks the library, the operator is created there (weights packed once) and the
// instruction's kernel becomes lib_matmul_out, which finds its operator in ctx.op_state.
// At run time lib_matmul_out checks the call (fp32, row-major input and output, the packed
// K) and runs the operator; any call it cannot take goes to the instruction's own kernel.
#pragma once
#include <functional>
#include <memory>

#include "ops/kernel.h"
#include "ops/linalg/xnn_library.h"
#include "pte/program.h"

namespace pte::linalg::xnnlib {

enum class MatmulKind : uint8_t { Linear, Mm, Addmm };

struct LibMatmul {
  std::unique_ptr<FullyConnectedF32> fc;
  KernelFn fallback = nullptr;  // the instruction's own kernel
  MatmulKind kind = MatmulKind::Linear;
  bool last_row_only = false;   // mm_last_row_out: only the last row is computed
};

// The kind for "aten::linear.out", "aten::mm.out", "aten::addmm.out"; false otherwise.
bool matmul_kind(OpId op, MatmulKind* kind);

// One instruction (args: its argument list; fn: its kernel). is_constant tells whether a
// value is constant for the method's life (data in the mapped file). Sets *candidate when
// the instruction multiplies by a constant fp32 weight (then *path is filled); *out gets
// the library operator when the policy chose it and creation succeeded.
Status attach(MatmulKind kind, EValue** args, KernelFn fn, bool last_row_only,
              const std::function<bool(const EValue*)>& is_constant, XnnpackPolicy policy, bool* candidate,
              MatmulPath* path, std::unique_ptr<LibMatmul>* out);

// The kernel of an attached instruction (ctx.op_state = its LibMatmul).
bool lib_matmul_out(KernelContext& ctx, EValue** args);

}  // namespace pte::linalg::xnnlib
