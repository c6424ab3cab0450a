// pte-run quantized: one contiguous float32 row span of the dequantizing embedding lookup
// (embedding_common.h): out[k] = (float(q(j0 + k)) - zp) * scale, k < n, for 8-bit
// (uint8 or int8) and 4-bit weights (nibbles stored +8, element 2i in the high nibble of
// byte i). The scalar reference is the lookup's own formula; the NEON form subtracts then
// multiplies too (one rounding each, no fused multiply-add), so both give the same bits.
#pragma once
#include <cstdint>

namespace pte::quant {

enum class EmbedKind { U8, S8, Q4 };

// row: the weight row's first byte; j0: the first element (a byte for 8 bits, a nibble for 4).
using EmbedRowF32 = void (*)(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out);

void embed_row_f32_scalar_u8(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out);
void embed_row_f32_scalar_s8(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out);
void embed_row_f32_scalar_q4(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out);
#if defined(__aarch64__)
void embed_row_f32_neon_u8(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out);
void embed_row_f32_neon_s8(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out);
void embed_row_f32_neon_q4(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out);
#endif

EmbedRowF32 embed_row_f32_scalar(EmbedKind kind);
// The vector form for this CPU (ops/isa.h), or null where there is none (the lookup then
// keeps its scalar loop).
EmbedRowF32 embed_row_f32_simd(EmbedKind kind);

}  // namespace pte::quant
