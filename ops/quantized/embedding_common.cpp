#include "ops/quantized/embedding_common.h"

#include <type_traits>

#include "ops/quantized/embedding_rows.h"
#include "ops/quantized/quant_util.h"

namespace pte::quant {

namespace {

template <int NBITS, class W>
inline int32_t weight_value(const W* row, int64_t j, int64_t s1) {
  if constexpr (NBITS == 8) {
    return static_cast<int32_t>(row[j * s1]);
  } else if constexpr (NBITS == 4) {
    const uint8_t b = static_cast<uint8_t>(row[(j >> 1) * s1]);
    return static_cast<int32_t>((j & 1) ? (b & 0x0F) : (b >> 4)) - 8;
  } else {
    const uint8_t b = static_cast<uint8_t>(row[(j >> 2) * s1]);
    return static_cast<int32_t>((b >> (2 * (j & 3))) & 3) - 2;
  }
}

template <int NBITS, class W, class O>
bool embed(KernelContext& ctx, const char* op, const Tensor& w, const Tensor& scales, const Tensor* zps, const Tensor& idx,
           Tensor& out, int64_t D, int64_t groups) {
  const int64_t V = w.sizes[0], gsize = D / groups;
  const W* wp = w.ptr<W>();
  O* op_ = out.ptr<O>();
  const bool oc = out.contiguous_order();
  const int64_t tokens = idx.numel();
  // A contiguous float32 out and unit-stride weight rows: the vector row form where this CPU
  // has one (embedding_rows.h; the same bits as the loop below).
  EmbedRowF32 vrow = nullptr;
  if constexpr (std::is_same_v<O, float> && NBITS != 2) {
    if (oc && w.strides[1] == 1)
      vrow = embed_row_f32_simd(NBITS == 4 ? EmbedKind::Q4 : std::is_same_v<W, int8_t> ? EmbedKind::S8 : EmbedKind::U8);
  }
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t i = static_cast<int64_t>(element(idx, t));
    if (i < 0 || i >= V) return ctx.fail("%s: index %lld out of range [0, %lld)", op, (long long)i, (long long)V);
    const W* row = wp + i * w.strides[0];
    for (int64_t g = 0; g < groups; ++g) {
      const float scale = static_cast<float>(element(scales, i * groups + g));
      const float zp = zps ? static_cast<float>(element(*zps, i * groups + g)) : 0.0f;
      if (vrow) {
        if constexpr (std::is_same_v<O, float>)
          vrow(reinterpret_cast<const uint8_t*>(row), g * gsize, gsize, zp, scale, op_ + t * D + g * gsize);
        continue;
      }
      for (int64_t j = g * gsize, je = j + gsize; j < je; ++j) {
        const float v = (static_cast<float>(weight_value<NBITS>(row, j, w.strides[1])) - zp) * scale;
        op_[offset_of(out, oc, t * D + j)] = convert<O>(v);
      }
    }
  }
  return true;
}

template <int NBITS, class W>
bool embed_out_dtype(KernelContext& ctx, const char* op, const Tensor& w, const Tensor& scales, const Tensor* zps,
                     const Tensor& idx, Tensor& out, int64_t D, int64_t groups) {
  switch (out.dtype) {
    PTE_QFLOAT_CASES(return embed<NBITS, W, F>(ctx, op, w, scales, zps, idx, out, D, groups))
    default:
      return ctx.fail("%s: out must be a floating-point tensor, got %s", op, dtype_name(out.dtype));
  }
}

}  // namespace

bool embedding_quantized(KernelContext& ctx, const char* op, int nbits, EValue** args, const EValue* dtype_arg, EValue* outv) {
  if (!expect_tag(ctx, args[0], Tag::Tensor, "weight") || !expect_tag(ctx, args[1], Tag::Tensor, "weight_scales") ||
      !expect_tag(ctx, args[3], Tag::Int, "weight_quant_min") || !expect_tag(ctx, args[4], Tag::Int, "weight_quant_max") ||
      !expect_tag(ctx, args[5], Tag::Tensor, "indices") || !expect_tag(ctx, outv, Tag::Tensor, "out"))
    return false;
  const Tensor& w = *args[0]->t;
  const Tensor& scales = *args[1]->t;
  const Tensor* zps = args[2]->tag == Tag::Tensor ? args[2]->t : nullptr;
  const Tensor& idx = *args[5]->t;
  Tensor& out = *outv->t;
  if (dtype_arg) {
    DType dt;
    bool has;
    if (!read_optional_dtype(ctx, dtype_arg, "dtype", &dt, &has)) return false;
    if (has && dt != out.dtype)
      return ctx.fail("%s: out dtype %s does not match dtype %s", op, dtype_name(out.dtype), dtype_name(dt));
  }
  if (w.dim != 2) return ctx.fail("%s: weight must be 2-D, got %d-D", op, w.dim);
  if (args[3]->i > args[4]->i) return ctx.fail("%s: weight_quant_min > weight_quant_max", op);
  if (scales.dim != 1 && scales.dim != 2) return ctx.fail("%s: weight_scales must be 1-D or 2-D, got %d-D", op, scales.dim);
  if (scales.sizes[0] != w.sizes[0])
    return ctx.fail("%s: %lld scale rows for %lld weight rows", op, (long long)scales.sizes[0], (long long)w.sizes[0]);
  const int64_t D = w.sizes[1] * (8 / nbits);
  const int64_t groups = scales.dim == 2 ? scales.sizes[1] : 1;
  if (groups < 1 || D % groups) return ctx.fail("%s: %lld groups do not divide embedding dim %lld", op, (long long)groups, (long long)D);
  if (zps && (zps->dim != scales.dim || zps->numel() != scales.numel()))
    return ctx.fail("%s: weight_zero_points must have the shape of weight_scales", op);
  if (idx.dtype != DType::Int64 && idx.dtype != DType::Int32)
    return ctx.fail("%s: indices must be int64 or int32, got %s", op, dtype_name(idx.dtype));
  if (idx.dim + 1 > kMaxDims) return ctx.fail("%s: indices rank too large", op);
  int64_t sizes[kMaxDims];
  for (int i = 0; i < idx.dim; ++i) sizes[i] = idx.sizes[i];
  sizes[idx.dim] = D;
  if (!resize_output(ctx, out, sizes, idx.dim + 1)) return false;
  if (nbits == 8) {
    if (w.dtype == DType::UInt8) return embed_out_dtype<8, uint8_t>(ctx, op, w, scales, zps, idx, out, D, groups);
    if (w.dtype == DType::Int8) return embed_out_dtype<8, int8_t>(ctx, op, w, scales, zps, idx, out, D, groups);
    return ctx.fail("%s: weight must be uint8 or int8, got %s", op, dtype_name(w.dtype));
  }
  if (w.dtype != DType::UInt8 && w.dtype != DType::Int8)
    return ctx.fail("%s: packed weight must be uint8, got %s", op, dtype_name(w.dtype));
  if (nbits == 4) return embed_out_dtype<4, uint8_t>(ctx, op, w, scales, zps, idx, out, D, groups);
  return embed_out_dtype<2, uint8_t>(ctx, op, w, scales, zps, idx, out, D, groups);
}

}  // namespace pte::quant
