// pte-run tools: NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Read: little-endian (or byte-order-free) dtypes <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1
// |b1 <u2 <u4 <u8, C order only (fortran_order True is refused), shapes of at most
// 16 dims. Every length is checked against the file size: a malformed or truncated
// file gives one clear error and nothing is read past the end.
//
// bfloat16: numpy has no bfloat16. We store it as raw 2-byte records, descr '<V2'
// (what np.save writes for an ml_dtypes.bfloat16 array); np.load returns a void
// array that `.view(ml_dtypes.bfloat16)` (or `.view(np.uint16)` for the bits)
// turns back. The reader maps '<V2' / '|V2' to bfloat16.
//
// Write: version 1.0 (2.0 when the header needs more than 65535 bytes), header
// padded to a multiple of 64 bytes as numpy does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/host_tensor.h"

namespace pte::util {

// Parses an in-memory .npy image. `name` prefixes error messages.
Status npy_parse(const uint8_t* data, size_t size, const std::string& name, HostTensor* out);
Status npy_read(const std::string& path, HostTensor* out);

// The numpy descr of a dtype ("<f4", "|b1", "<V2" for bfloat16); null when the
// dtype has no .npy form (quantized and float8 types).
const char* npy_descr(DType dtype);

std::vector<uint8_t> npy_encode(const HostTensor& t);
Status npy_write(const std::string& path, const HostTensor& t);

}  // namespace pte::util
