#include "ops/shape/shape_util.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdio>

#include "ops/isa.h"

namespace pte::shape {

View view_of(const Tensor& t) {
  View v;
  v.dim = t.dim;
  for (int d = 0; d < t.dim; ++d) {
    v.sizes[d] = t.sizes[d];
    v.strides[d] = t.strides[d];
  }
  v.offset = 0;
  return v;
}

View broadcast_view(const Tensor& t, const int64_t* sizes, int32_t dim) {
  View v;
  v.dim = dim;
  v.offset = 0;
  for (int d = 0; d < dim; ++d) {
    const int td = t.dim - dim + d;
    v.sizes[d] = sizes[d];
    v.strides[d] = (td >= 0 && t.sizes[td] != 1) ? t.strides[td] : 0;
  }
  return v;
}

View contiguous_view(const int64_t* sizes, int32_t dim, int64_t offset) {
  View v;
  v.dim = dim;
  int64_t s = 1;
  for (int d = dim - 1; d >= 0; --d) {
    v.sizes[d] = sizes[d];
    v.strides[d] = s;
    s *= sizes[d];
  }
  v.offset = offset;
  return v;
}

namespace {

// Transposing copy in square tiles: dst is contiguous along `b` (the inner dim), src along
// `a`; reading and writing whole cache lines of both keeps big transposes memory-bound.
template <class U>
void copy_tiles(U* d, const U* s, int64_t na, int64_t nb, int64_t da, int64_t sb) {
  constexpr int64_t T = sizeof(U) >= 4 ? 8 : 16;  // measured: small tiles avoid cache-set conflicts at power-of-two strides
  for (int64_t a0 = 0; a0 < na; a0 += T) {
    const int64_t a1 = a0 + T < na ? a0 + T : na;
    for (int64_t b0 = 0; b0 < nb; b0 += T) {
      const int64_t b1 = b0 + T < nb ? b0 + T : nb;
      for (int64_t a = a0; a < a1; ++a)
        for (int64_t b = b0; b < b1; ++b) d[a * da + b] = s[a + b * sb];
    }
  }
}

// 4-byte elements, AVX2: d[a * da + b] = s[a + b * sb] for the whole 8 x 8 blocks (8 rows
// of s loaded, transposed in registers, 8 rows of d stored); the edges on copy_tiles.
// The same bytes as the scalar tiles, ~2-4x faster (a 9 x 256 x 64 key transpose of the
// portable Llama export: 330 -> 85-140 us on the 2-core Xeon VM).
#if defined(__x86_64__)
__attribute__((target("avx2"))) void transpose8_avx2(float* d, const float* s, int64_t da, int64_t sb) {
  const __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + sb), r2 = _mm256_loadu_ps(s + 2 * sb),
               r3 = _mm256_loadu_ps(s + 3 * sb), r4 = _mm256_loadu_ps(s + 4 * sb), r5 = _mm256_loadu_ps(s + 5 * sb),
               r6 = _mm256_loadu_ps(s + 6 * sb), r7 = _mm256_loadu_ps(s + 7 * sb);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
               t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
               t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE),
               u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE),
               u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE),
               u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(d + da, _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(d + 2 * da, _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(d + 3 * da, _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(d + 4 * da, _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(d + 5 * da, _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(d + 6 * da, _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(d + 7 * da, _mm256_permute2f128_ps(u3, u7, 0x31));
}

#endif  // defined(__x86_64__)

void copy_tiles_u32(uint32_t* d, const uint32_t* s, int64_t na, int64_t nb, int64_t da, int64_t sb) {
#if !defined(__x86_64__)
  return copy_tiles(d, s, na, nb, da, sb);
#else
  static const bool avx2 = isa::cpu().avx2;
  if (!avx2 || na < 8 || nb < 8) return copy_tiles(d, s, na, nb, da, sb);
  const int64_t a8 = na / 8 * 8, b8 = nb / 8 * 8;
  for (int64_t a0 = 0; a0 < a8; a0 += 8)
    for (int64_t b0 = 0; b0 < b8; b0 += 8)
      transpose8_avx2(reinterpret_cast<float*>(d + a0 * da + b0), reinterpret_cast<const float*>(s + a0 + b0 * sb), da, sb);
  if (b8 < nb) copy_tiles(d + b8, s + b8 * sb, a8, nb - b8, da, sb);  // right edge of the whole rows
  if (a8 < na) copy_tiles(d + a8 * da, s + a8, na - a8, nb, da, sb);  // bottom rows
#endif
}

template <class U>  // U: an unsigned integer of the element's size
void copy_bytes(void* dst, const View& dv, const void* src, const View& sv) {
  U* d = static_cast<U*>(dst);
  const U* s = static_cast<const U*>(src);
  // A transpose (dst contiguous in one dim, src in another, both long enough) goes by tiles.
  const View* v[2] = {&dv, &sv};
  int64_t sz[kMaxViewDims], st[kMaxViewDims][2];
  const int n = canonical_dims<2>(v, false, sz, st);
  if (n >= 2 && st[n - 1][0] == 1 && st[n - 1][1] != 1 && sz[n - 1] >= 8) {
    int j = -1;
    for (int k = 0; k < n - 1; ++k)
      if (st[k][1] == 1 && sz[k] >= 8) j = k;
    if (j >= 0) {
      View od, os;  // the other dims
      od.dim = os.dim = 0;
      od.offset = dv.offset;
      os.offset = sv.offset;
      for (int k = 0; k < n - 1; ++k) {
        if (k == j) continue;
        od.sizes[od.dim] = os.sizes[os.dim] = sz[k];
        od.strides[od.dim++] = st[k][0];
        os.strides[os.dim++] = st[k][1];
      }
      const int64_t na = sz[j], nb = sz[n - 1], da = st[j][0], sb = st[n - 1][1];
      walk2(od, os, [&](int64_t o_d, int64_t o_s, int64_t cnt, int64_t step_d, int64_t step_s) {
        for (int64_t k = 0; k < cnt; ++k) {
          if constexpr (sizeof(U) == 4)
            copy_tiles_u32(d + o_d + k * step_d, s + o_s + k * step_s, na, nb, da, sb);
          else
            copy_tiles(d + o_d + k * step_d, s + o_s + k * step_s, na, nb, da, sb);
        }
      });
      return;
    }
  }
  walk2(dv, sv, [&](int64_t od, int64_t os, int64_t cnt, int64_t sd, int64_t ss) {
    if (sd == 1 && ss == 1) {
      std::memcpy(d + od, s + os, static_cast<size_t>(cnt) * sizeof(U));
    } else if (ss == 0) {
      const U x = s[os];
      for (int64_t k = 0; k < cnt; ++k) d[od + k * sd] = x;
    } else {
      for (int64_t k = 0; k < cnt; ++k) d[od + k * sd] = s[os + k * ss];
    }
  });
}

// Dtype conversion through one exact intermediate C (float for f32/f16/bf16 sources,
// double for f64, int64 for the integers and bool): convert<D>(C(s)) == convert<D>(s)
// for every pair, so one loop per C replaces one per (D, S) pair.
template <class C>
void load_seg(DType dt, const void* src, int64_t os, int64_t ss, int64_t n, C* buf) {
  dispatch_dtype(dt, [&](auto tag) {
    using S = decltype(tag);
    const S* s = static_cast<const S*>(src) + os;
    for (int64_t k = 0; k < n; ++k) buf[k] = convert<C>(s[k * ss]);
  });
}

template <class C>
void store_seg(DType dt, void* dst, int64_t od, int64_t sd, int64_t n, const C* buf) {
  dispatch_dtype(dt, [&](auto tag) {
    using D = decltype(tag);
    D* d = static_cast<D*>(dst) + od;
    for (int64_t k = 0; k < n; ++k) d[k * sd] = convert<D>(buf[k]);
  });
}

template <class C>
void copy_convert(DType ddt, void* dst, const View& dv, DType sdt, const void* src, const View& sv) {
  constexpr int64_t kChunk = 256;
  C buf[kChunk];
  walk2(dv, sv, [&](int64_t od, int64_t os, int64_t n, int64_t sd, int64_t ss) {
    for (int64_t k = 0; k < n; k += kChunk) {
      const int64_t m = n - k < kChunk ? n - k : kChunk;
      load_seg(sdt, src, os + k * ss, ss, m, buf);
      store_seg(ddt, dst, od + k * sd, sd, m, buf);
    }
  });
}

bool copy_same_dtype(void* dst, const View& dv, const void* src, const View& sv, size_t es) {
  switch (es) {
    case 1: copy_bytes<uint8_t>(dst, dv, src, sv); return true;
    case 2: copy_bytes<uint16_t>(dst, dv, src, sv); return true;
    case 4: copy_bytes<uint32_t>(dst, dv, src, sv); return true;
    case 8: copy_bytes<uint64_t>(dst, dv, src, sv); return true;
    default: return false;
  }
}

}  // namespace

bool copy_view(KernelContext& ctx, const Tensor& dst, const View& dv, const Tensor& src, const View& sv) {
  if (!dst.data || !src.data) {
    for (int d = 0; d < dv.dim; ++d)
      if (dv.sizes[d] == 0) return true;
    return ctx.fail("copy: %s tensor has no data", dst.data ? "input" : "output");
  }
  if (dst.dtype == src.dtype) {
    if (copy_same_dtype(dst.data, dv, src.data, sv, dtype_size(dst.dtype))) return true;
    return ctx.fail("copy: unsupported element type %s", dtype_name(dst.dtype));
  }
  const bool dst_ok = dispatch_dtype(dst.dtype, [](auto) {});
  const bool src_ok = dispatch_dtype(src.dtype, [](auto) {});
  if (dst_ok && src_ok) {
    if (src.dtype == DType::Double)
      copy_convert<double>(dst.dtype, dst.data, dv, src.dtype, src.data, sv);
    else if (src.dtype == DType::Float || src.dtype == DType::Half || src.dtype == DType::BFloat16)
      copy_convert<float>(dst.dtype, dst.data, dv, src.dtype, src.data, sv);
    else
      copy_convert<int64_t>(dst.dtype, dst.data, dv, src.dtype, src.data, sv);
  }
  if (!dst_ok || !src_ok) return ctx.fail("cannot convert %s to %s", dtype_name(src.dtype), dtype_name(dst.dtype));
  return true;
}

bool copy_tensor(KernelContext& ctx, const Tensor& dst, const Tensor& src) {
  if (dst.dtype == src.dtype && dst.dim == src.dim) {
    bool same_layout = true;
    for (int d = 0; d < dst.dim && same_layout; ++d) same_layout = dst.strides[d] == src.strides[d] || dst.sizes[d] == 1;
    if (same_layout) {
      if (dst.data != src.data) std::memcpy(dst.data, src.data, src.nbytes());
      return true;
    }
  }
  return copy_view(ctx, dst, view_of(dst), src, view_of(src));
}

bool copy_reshape(KernelContext& ctx, const Tensor& dst, const Tensor& src) {
  const bool dc = dst.contiguous_order(), sc = src.contiguous_order();
  if (dc && sc && dst.dtype == src.dtype) {
    if (dst.data != src.data) std::memcpy(dst.data, src.data, src.nbytes());
    return true;
  }
  if (sc)  // read src row-major in dst's shape
    return copy_view(ctx, dst, view_of(dst), src, contiguous_view(dst.sizes, dst.dim));
  if (dc)  // write dst row-major in src's shape
    return copy_view(ctx, dst, contiguous_view(src.sizes, src.dim), src, view_of(src));
  // Both permuted: walk the logical index with one counter per side.
  if (dst.dtype != src.dtype) return ctx.fail("reshape copy between two non-contiguous tensors needs one dtype");
  const size_t es = dtype_size(dst.dtype);
  const int64_t n = src.numel();
  int64_t ci[kMaxDims] = {0}, co[kMaxDims] = {0};
  int64_t oi = 0, oo = 0;
  auto* d = static_cast<uint8_t*>(dst.data);
  auto* s = static_cast<const uint8_t*>(src.data);
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(d + oo * es, s + oi * es, es);
    for (int j = src.dim - 1; j >= 0; --j) {
      oi += src.strides[j];
      if (++ci[j] < src.sizes[j]) break;
      oi -= src.strides[j] * src.sizes[j];
      ci[j] = 0;
    }
    for (int j = dst.dim - 1; j >= 0; --j) {
      oo += dst.strides[j];
      if (++co[j] < dst.sizes[j]) break;
      oo -= dst.strides[j] * dst.sizes[j];
      co[j] = 0;
    }
  }
  return true;
}

namespace {
template <class U>
void fill_bytes(void* dst, const View& dv, const void* elem) {
  U v;
  std::memcpy(&v, elem, sizeof(U));
  U* d = static_cast<U*>(dst);
  walk2(dv, dv, [&](int64_t od, int64_t, int64_t n, int64_t sd, int64_t) {
    for (int64_t k = 0; k < n; ++k) d[od + k * sd] = v;
  });
}
}  // namespace

void fill_view(const Tensor& dst, const View& dv, const void* elem) {
  switch (dtype_size(dst.dtype)) {
    case 1: fill_bytes<uint8_t>(dst.data, dv, elem); break;
    case 2: fill_bytes<uint16_t>(dst.data, dv, elem); break;
    case 4: fill_bytes<uint32_t>(dst.data, dv, elem); break;
    case 8: fill_bytes<uint64_t>(dst.data, dv, elem); break;
    default: break;
  }
}

bool scalar_to_element(KernelContext& ctx, const EValue* v, DType dt, void* elem, const char* arg) {
  if (!v || (v->tag != Tag::Int && v->tag != Tag::Double && v->tag != Tag::Bool))
    return ctx.fail("argument %s: expected a Scalar (Int, Double or Bool), got %s", arg, v ? tag_name(v->tag) : "nothing");
  std::memset(elem, 0, 8);
  bool ok = dispatch_dtype(dt, [&](auto t) {
    using T = decltype(t);
    T x = v->tag == Tag::Int ? convert<T>(v->i) : v->tag == Tag::Bool ? convert<T>(v->b) : convert<T>(v->d);
    std::memcpy(elem, &x, sizeof(T));
  });
  if (!ok) return ctx.fail("argument %s: cannot write a Scalar as %s", arg, dtype_name(dt));
  return true;
}

bool arg_tensor(KernelContext& ctx, EValue* v, const char* name, Tensor*& t) {
  if (!expect_tag(ctx, v, Tag::Tensor, name)) return false;
  t = v->t;
  return true;
}

bool arg_int(KernelContext& ctx, const EValue* v, const char* name, int64_t& out) {
  if (v && v->tag == Tag::Bool) {  // a bool passed where an int is expected
    out = v->b;
    return true;
  }
  if (!expect_tag(ctx, v, Tag::Int, name)) return false;
  out = v->i;
  return true;
}

bool arg_opt_int(KernelContext& ctx, const EValue* v, const char* name, int64_t& out, bool& present) {
  present = v && v->tag != Tag::None;
  if (!present) return true;
  return arg_int(ctx, v, name, out);
}

bool arg_bool(KernelContext& ctx, const EValue* v, const char* name, bool& out) {
  if (v && v->tag == Tag::Int) {
    out = v->i != 0;
    return true;
  }
  if (!expect_tag(ctx, v, Tag::Bool, name)) return false;
  out = v->b;
  return true;
}

bool arg_int_list(KernelContext& ctx, const EValue* v, const char* name, const int64_t*& data, size_t& n) {
  if (v && v->tag == Tag::Int) {  // an int[1] argument given as a single int
    data = &v->i;
    n = 1;
    return true;
  }
  if (!expect_tag(ctx, v, Tag::IntList, name)) return false;
  data = v->int_list(&n);
  return true;
}

bool arg_dim(KernelContext& ctx, const EValue* v, const char* name, int64_t rank, int64_t& dim) {
  if (!arg_int(ctx, v, name, dim)) return false;
  int64_t d = dim;
  if (!normalize_dim(d, rank))
    return ctx.fail("argument %s: dimension %lld out of range for a %lld-d tensor", name, static_cast<long long>(dim),
                    static_cast<long long>(rank));
  dim = d;
  return true;
}

bool fail_index(KernelContext& ctx, const char* op, int64_t i, int64_t d, int64_t size) {
  return ctx.fail("%s: index %lld is out of bounds for dimension %lld with size %lld", op, static_cast<long long>(i),
                  static_cast<long long>(d), static_cast<long long>(size));
}

const char* shape_string(const int64_t* sizes, int32_t dim, char* buf, size_t cap) {
  size_t p = 0;
  if (cap == 0) return buf;
  buf[0] = 0;
  p += std::snprintf(buf + p, cap - p, "[");
  for (int i = 0; i < dim && p < cap; ++i)
    p += std::snprintf(buf + p, cap - p, i ? ",%lld" : "%lld", static_cast<long long>(sizes[i]));
  if (p < cap) std::snprintf(buf + p, cap - p, "]");
  return buf;
}

}  // namespace pte::shape
