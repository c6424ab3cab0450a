// pte-run tools: the --input SPEC syntax of `pte-run run`.
//
//   x.npy                  a .npy file (see npy.h)
//   f32[2,2]:1,2,3,4       a tensor literal: dtype, sizes, values in C order
//   f32[2,2]:0             exactly one value fills the whole tensor
//   f32[]:3.5              a 0-d tensor
//   f32[0]:                an empty tensor (no values)
//   i64:3  f64:2.5  bool:true      scalar (Int / Double / Bool) inputs
//
// Tensor dtypes: f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool (also u16 u32 u64).
// The number of values must equal the element count, or be exactly one (a fill);
// anything else is an error. Floats accept nan, inf, -inf; a finite value too
// large for the dtype is an error, as is an integer outside the dtype's range.
// Bools are 1/0/true/false. Spaces around values are ignored.
#pragma once
#include <string>
#include <string_view>

#include "util/host_tensor.h"

namespace pte::util {

Status parse_input_spec(const std::string& spec, HostValue* out);
// The literal forms only.
Status parse_literal(std::string_view text, HostValue* out);
// "f32" -> Float, ..., also the numpy names ("float32", "int64", "bool").
bool dtype_from_name(std::string_view name, DType* out);

}  // namespace pte::util
