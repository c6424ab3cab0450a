// pte-run quantized: asymmetric (scale, zero point) for a [min, max] range, as
// ExecuTorch's choose_qparams kernels (fbgemm's ChooseQuantizationParams) compute it.
#pragma once
#include <cstdint>

namespace pte::quant {

// The range is widened to include 0; scale = (max - min) / (qmax - qmin) in double
// (0.1 when that is 0 or its float reciprocal overflows), raised to at least 6.1e-5
// (then min/max are rescaled); the zero point comes from whichever of (min, qmin) and
// (max, qmax) has the smaller error, clamped to [qmin, qmax] and rounded half to even.
void choose_scale_zero_point(float min, float max, int32_t qmin, int32_t qmax, double* scale, int32_t* zero_point);

}  // namespace pte::quant
