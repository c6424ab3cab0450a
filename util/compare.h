// pte-run tools: comparing computed values with references.
//
// Floating dtypes (float32/64, float16 and, unless bf16_bytewise, bfloat16): an
// element passes when |a - b| <= atol + rtol * |b| (b = expected), NaN equals NaN,
// infinities equal when of the same sign. Every other dtype is compared exactly.
// Dtypes and shapes must match exactly. This is ExecuTorch's bundled-program
// verifier rule (defaults rtol 1e-5, atol 1e-8, bfloat16 bytewise).
//
// Also reported: the largest |a - b| over elements (NaN/inf mismatches count as
// inf) and the normalised mean squared error nmse = sum (a-b)^2 / sum b^2, as in
// ggml's test-backend-ops (0 when both are all zero).
#pragma once
#include <cstdint>
#include <string>

#include "util/host_tensor.h"

namespace pte::util {

struct CompareOptions {
  double atol = 1e-8;
  double rtol = 1e-5;
  bool bf16_bytewise = true;
};

struct CompareResult {
  bool ok = false;
  std::string message;       // why not: dtype/shape mismatch or the first bad element
  double max_abs_err = 0;
  double nmse = 0;
  int64_t mismatches = 0;    // elements outside the tolerance
};

CompareResult compare_tensors(const HostTensor& actual, const HostTensor& expected, const CompareOptions& options);
// Tensors as above; Int and Bool exactly; Double with the float rule; the tags must match.
CompareResult compare_values(const HostValue& actual, const HostValue& expected, const CompareOptions& options);

// "f32[2,2]" or "int 128", "float 2.5", "bool true" (for messages).
std::string describe_value(const HostValue& v);

}  // namespace pte::util
