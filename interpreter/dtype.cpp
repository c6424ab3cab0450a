#include "pte/dtype.h"

namespace pte {

namespace {
struct DTypeRow {
  int value;
  size_t size;
  const char* name;
  const char* short_name;
};
constexpr DTypeRow kRows[] = {
    {0, 1, "uint8", "u8"},         {1, 1, "int8", "i8"},
    {2, 2, "int16", "i16"},        {3, 4, "int32", "i32"},
    {4, 8, "int64", "i64"},        {5, 2, "float16", "f16"},
    {6, 4, "float32", "f32"},      {7, 8, "float64", "f64"},
    {8, 4, "complex32", "c32"},    {9, 8, "complex64", "c64"},
    {10, 16, "complex128", "c128"},
    {11, 1, "bool", "bool"},       {12, 1, "qint8", "qi8"},
    {13, 1, "quint8", "qu8"},      {14, 4, "qint32", "qi32"},
    {15, 2, "bfloat16", "bf16"},   {16, 1, "quint4x2", "qu4x2"},
    {17, 1, "quint2x4", "qu2x4"},  {22, 2, "bits16", "bits16"},
    {23, 1, "float8_e5m2", "f8e5m2"}, {24, 1, "float8_e4m3fn", "f8e4m3fn"},
    {25, 1, "float8_e5m2fnuz", "f8e5m2fnuz"}, {26, 1, "float8_e4m3fnuz", "f8e4m3fnuz"},
    {27, 2, "uint16", "u16"},      {28, 4, "uint32", "u32"},
    {29, 8, "uint64", "u64"},
};

const DTypeRow* row(int v) {
  for (const auto& r : kRows)
    if (r.value == v) return &r;
  return nullptr;
}
}  // namespace

size_t dtype_size(DType t) {
  const DTypeRow* r = row(static_cast<int>(t));
  return r ? r->size : 0;
}
const char* dtype_name(DType t) {
  const DTypeRow* r = row(static_cast<int>(t));
  return r ? r->name : "unknown";
}
const char* dtype_short_name(DType t) {
  const DTypeRow* r = row(static_cast<int>(t));
  return r ? r->short_name : "unknown";
}
bool dtype_valid(int value) { return row(value) != nullptr; }

}  // namespace pte
