// pte-run command line: printing method outputs as text (numpy-like) or JSON.
#pragma once
#include <string>

#include "util/host_tensor.h"

namespace pte::cli {

// "f32[2,2] = [[2, 3], [4, 5]]", "int = 128", "float = 2.5", "bool = true".
// Tensors of more than 1000 elements are summarised as numpy does: along each
// dim longer than 6, the first 3 and last 3 entries around "...".
std::string format_text(const util::HostValue& v);

// {"type": "tensor", "dtype": "float32", "shape": [2,2], "data": [...]} (full data,
// C order; float32/16 with %.9g, float64 with %.17g; NaN and infinities as the
// strings "nan", "inf", "-inf"), or {"type": "int"|"float"|"bool"|"string", "value": v},
// or {"type": "none"}.
void append_json(const util::HostValue& v, std::string* out);

// One element as text: "%.6g" for text, round-trip digits for JSON.
std::string format_element(DType dtype, const void* base, int64_t i, bool json);

}  // namespace pte::cli
