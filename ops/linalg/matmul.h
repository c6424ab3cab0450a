// pte-run linalg: the dtype-dispatching driver shared by mm, bmm, addmm, baddbmm
// and linear: out = alpha * A @ B + beta * bias over a batch of strided matrices.
#pragma once
#include <cstdint>

#include "ops/kernel.h"

namespace pte::linalg {

struct MatmulDesc {
  int64_t batch = 1, M = 0, N = 0, K = 0;
  const void* a = nullptr;
  int64_t a_bs = 0, a_rs = 0, a_cs = 0;
  const void* b = nullptr;
  int64_t b_bs = 0, b_rs = 0, b_cs = 0;
  void* c = nullptr;
  int64_t c_bs = 0, c_rs = 0, c_cs = 0;
  // Optional addend broadcast to C (strides 0 on broadcast dims); null = none.
  const void* bias = nullptr;
  int64_t bias_bs = 0, bias_rs = 0, bias_cs = 0;
  double alpha = 1.0, beta = 1.0;
};

// Computes into d.c for element type `dt` (all operands share it). f32 takes the
// blocked/SIMD/threaded path; f16/bf16 convert through f32 scratch when the
// arena has room, otherwise (and f64/integers always) a row-accumulating loop.
bool run_matmul(KernelContext& ctx, DType dt, const MatmulDesc& d, const char* op);

// Strides of an addend tensor broadcast to a (batch, M, N) result of rank `out_rank`
// (2 or 3); false when it does not broadcast.
bool bias_strides(const Tensor& bias, int32_t out_rank, int64_t batch, int64_t M, int64_t N, int64_t* bs, int64_t* rs,
                  int64_t* cs);

}  // namespace pte::linalg

namespace pte {
// aten::mm.out computing only the last row of the result (other rows are left as
// they were); for outputs of which only the last row is read.
bool mm_last_row_out(KernelContext& ctx, EValue** args);
}  // namespace pte
