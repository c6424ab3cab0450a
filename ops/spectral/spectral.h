// pte-run kernels in ops/spectral: complex tensors (FFT, magnitude).
#pragma once
#include "ops/kernel.h"

namespace pte {

// complex32/64/128
bool is_complex(DType t);
// aten::abs.out for a complex input (float output); abs_out forwards here.
bool abs_complex_out(KernelContext& ctx, EValue** args);

}  // namespace pte
