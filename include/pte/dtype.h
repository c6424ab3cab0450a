// pte-run public API: element types, numbered as ExecuTorch's ScalarType.
#pragma once
#include <cstddef>
#include <cstdint>

namespace pte {

enum class DType : int8_t {
  UInt8 = 0,
  Int8 = 1,
  Int16 = 2,
  Int32 = 3,
  Int64 = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  ComplexHalf = 8,
  ComplexFloat = 9,
  ComplexDouble = 10,
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  QUInt4x2 = 16,
  QUInt2x4 = 17,
  Bits16 = 22,
  Float8E5M2 = 23,
  Float8E4M3FN = 24,
  Float8E5M2FNUZ = 25,
  Float8E4M3FNUZ = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

// Element size in bytes; 0 for a value that is not a known dtype.
size_t dtype_size(DType t);
// numpy-style name ("float32", "int64", "bool", "bfloat16"); "unknown" otherwise.
const char* dtype_name(DType t);
// Short name used in CLI literals ("f32", "i64", "bool", "bf16", ...).
const char* dtype_short_name(DType t);
// True when the raw enum value is one we know.
bool dtype_valid(int value);

}  // namespace pte
