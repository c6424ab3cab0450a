// Row spans of the dequantizing embedding lookup (embedding_rows.h): scalar reference and
// the choice of the vector form.
#include "ops/quantized/embedding_rows.h"

#include "ops/isa.h"

namespace pte::quant {

void embed_row_f32_scalar_u8(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out) {
  for (int64_t k = 0; k < n; ++k) out[k] = (static_cast<float>(static_cast<int32_t>(row[j0 + k])) - zp) * scale;
}

void embed_row_f32_scalar_s8(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out) {
  const int8_t* r = reinterpret_cast<const int8_t*>(row);
  for (int64_t k = 0; k < n; ++k) out[k] = (static_cast<float>(static_cast<int32_t>(r[j0 + k])) - zp) * scale;
}

void embed_row_f32_scalar_q4(const uint8_t* row, int64_t j0, int64_t n, float zp, float scale, float* out) {
  for (int64_t k = 0; k < n; ++k) {
    const int64_t j = j0 + k;
    const uint8_t b = row[j >> 1];
    const int32_t q = static_cast<int32_t>((j & 1) ? (b & 0x0F) : (b >> 4)) - 8;
    out[k] = (static_cast<float>(q) - zp) * scale;
  }
}

EmbedRowF32 embed_row_f32_scalar(EmbedKind kind) {
  switch (kind) {
    case EmbedKind::U8: return embed_row_f32_scalar_u8;
    case EmbedKind::S8: return embed_row_f32_scalar_s8;
    case EmbedKind::Q4: break;
  }
  return embed_row_f32_scalar_q4;
}

EmbedRowF32 embed_row_f32_simd(EmbedKind kind) {
#if defined(__aarch64__)
  if (isa::cpu().neon) {
    switch (kind) {
      case EmbedKind::U8: return embed_row_f32_neon_u8;
      case EmbedKind::S8: return embed_row_f32_neon_s8;
      case EmbedKind::Q4: return embed_row_f32_neon_q4;
    }
  }
#endif
  (void)kind;
  return nullptr;
}

}  // namespace pte::quant
