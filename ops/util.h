// pte-run kernels: shared helpers (dtype dispatch, half/bfloat16, strided indexing,
// broadcasting, argument checks). Scalar and plain: the reference every SIMD
// variant is tested against.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ops/kernel.h"

namespace pte {

// ---- 16-bit floats ----------------------------------------------------------

inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal
      exp = 127 - 15 + 1;
      while (!(man & 0x400u)) { man <<= 1; --exp; }
      man &= 0x3ffu;
      bits = sign | (exp << 23) | (man << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_half_bits(float f) {  // round to nearest even
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (ax < 0x38800000u) {  // subnormal or zero in half
    if (ax < 0x33000000u) return static_cast<uint16_t>(sign);
    // value in units of 2^-24 is m * 2^(e-126), with 14 <= 126-e <= 24
    uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e;
    uint32_t hm = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (hm & 1))) ++hm;
    return static_cast<uint16_t>(sign | hm);
  }
  uint32_t e = (ax >> 23) - 127 + 15, m = ax & 0x7fffffu;
  uint32_t h = (e << 10) | (m >> 13);
  uint32_t rem = m & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

inline float bf16_bits_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_bf16_bits(float f) {  // round to nearest even, NaN kept
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(float_to_half_bits(f)) {}
  operator float() const { return half_bits_to_float(bits); }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(float_to_bf16_bits(f)) {}
  operator float() const { return bf16_bits_to_float(bits); }
};

// Converts between element types the way torch does (float -> int truncates, -> bool is != 0).
template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<double>(v) != 0.0;
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// ---- dtype dispatch -----------------------------------------------------------
// PTE_DISPATCH(dtype, T, { body using T }) runs body with T bound to the C++ type;
// evaluates to false (after ctx.fail) for a dtype the list does not cover.

#define PTE_CASE(DT, CT, ...) \
  case ::pte::DType::DT: {    \
    using T = CT;             \
    __VA_ARGS__;              \
    break;                    \
  }

#define PTE_FLOAT_CASES(...)                   \
  PTE_CASE(Float, float, __VA_ARGS__)          \
  PTE_CASE(Double, double, __VA_ARGS__)        \
  PTE_CASE(Half, ::pte::Half, __VA_ARGS__)     \
  PTE_CASE(BFloat16, ::pte::BFloat16, __VA_ARGS__)

#define PTE_INT_CASES(...)                     \
  PTE_CASE(UInt8, uint8_t, __VA_ARGS__)        \
  PTE_CASE(Int8, int8_t, __VA_ARGS__)          \
  PTE_CASE(Int16, int16_t, __VA_ARGS__)        \
  PTE_CASE(Int32, int32_t, __VA_ARGS__)        \
  PTE_CASE(Int64, int64_t, __VA_ARGS__)

#define PTE_BOOL_CASES(...) PTE_CASE(Bool, bool, __VA_ARGS__)

// Usage: switch (t.dtype) { PTE_FLOAT_CASES(body) PTE_INT_CASES(body) default: return ctx.fail(...); }

// ---- indexing ------------------------------------------------------------------

// Element offset (in elements) of logical linear index `i` of a possibly
// non-contiguous tensor (dim_order other than identity).
inline int64_t strided_offset(const Tensor& t, int64_t i) {
  int64_t off = 0;
  for (int d = t.dim - 1; d >= 0; --d) {
    int64_t s = t.sizes[d];
    if (s == 0) return 0;
    off += (i % s) * t.strides[d];
    i /= s;
  }
  return off;
}

// Broadcast shape of a and b (numpy rules). False when incompatible.
inline bool broadcast_shape(const Tensor& a, const Tensor& b, int64_t* out, int32_t* out_dim) {
  int32_t n = a.dim > b.dim ? a.dim : b.dim;
  for (int k = 0; k < n; ++k) {
    int ia = a.dim - n + k, ib = b.dim - n + k;
    int64_t sa = ia >= 0 ? a.sizes[ia] : 1, sb = ib >= 0 ? b.sizes[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1) return false;
    out[k] = sa == 1 ? sb : sa;
  }
  *out_dim = n;
  return true;
}

// Offset in `in` (broadcast to `out_sizes`/`out_dim`) of output linear index i.
inline int64_t broadcast_offset(const Tensor& in, const int64_t* out_sizes, int32_t out_dim, int64_t i) {
  int64_t off = 0;
  for (int d = out_dim - 1; d >= 0; --d) {
    int64_t s = out_sizes[d];
    int64_t coord = s ? i % s : 0;
    i = s ? i / s : 0;
    int id = in.dim - out_dim + d;
    if (id >= 0 && in.sizes[id] != 1) off += coord * in.strides[id];
  }
  return off;
}

// Resizes `out` to the given sizes or fails with a message naming the sizes.
bool resize_output(KernelContext& ctx, Tensor& out, const int64_t* sizes, int32_t dim);
// Same sizes as `like`.
inline bool resize_output_like(KernelContext& ctx, Tensor& out, const Tensor& like) {
  return resize_output(ctx, out, like.sizes, like.dim);
}
// Normalises a possibly negative dim against rank `dim`; false when out of range.
inline bool normalize_dim(int64_t& d, int64_t rank) {
  if (rank == 0) rank = 1;
  if (d < 0) d += rank;
  return d >= 0 && d < rank;
}

// Checks an EValue's tag; fails the context with a message naming the argument.
bool expect_tag(KernelContext& ctx, const EValue* v, Tag tag, const char* arg);

}  // namespace pte
