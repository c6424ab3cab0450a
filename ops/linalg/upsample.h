// pte-run linalg: argument handling shared by the 2-D upsampling kernels.
#pragma once
#include <cstdint>

#include "ops/kernel.h"

namespace pte::linalg {

struct UpsampleSize {
  int64_t oh = 0, ow = 0;
  bool has_scale_h = false, has_scale_w = false;
  double scale_h = 0, scale_w = 0;  // the user's scale factors (output/input), when given
};

// .vec overloads: exactly one of output_size (IntList) and scale_factors (DoubleList).
bool upsample_size_vec(KernelContext& ctx, const char* op, const Tensor& in, const EValue* output_size,
                       const EValue* scale_factors, UpsampleSize* s);
// .out overloads: output_size plus optional scales_h / scales_w (Double or None).
bool upsample_size_out(KernelContext& ctx, const char* op, const Tensor& in, const EValue* output_size,
                       const EValue* scales_h, const EValue* scales_w, UpsampleSize* s);

}  // namespace pte::linalg
