#include "ops/quantized/quant_util.h"

namespace pte::quant {

bool qrange(DType dt, int64_t* lo, int64_t* hi) {
  switch (dt) {
    case DType::UInt8: *lo = 0, *hi = 255; return true;
    case DType::Int8: *lo = -128, *hi = 127; return true;
    case DType::Int16: *lo = -32768, *hi = 32767; return true;
    case DType::UInt16:
    case DType::Bits16: *lo = 0, *hi = 65535; return true;
    case DType::Int32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    default: return false;
  }
}

bool read_dtype(KernelContext& ctx, const EValue* v, const char* what, DType* out) {
  if (!v || v->tag != Tag::Int) return ctx.fail("%s: expected a dtype (int), got %s", what, v ? tag_name(v->tag) : "nothing");
  if (!dtype_valid(static_cast<int>(v->i))) return ctx.fail("%s: unknown dtype %lld", what, (long long)v->i);
  *out = static_cast<DType>(v->i);
  return true;
}

bool read_optional_dtype(KernelContext& ctx, const EValue* v, const char* what, DType* out, bool* has) {
  *has = v && v->tag != Tag::None;
  return !*has || read_dtype(ctx, v, what, out);
}

double element(const Tensor& t, int64_t i) {
  const int64_t o = strided_offset(t, i);
  switch (t.dtype) {
    PTE_FLOAT_CASES(return convert<double>(t.ptr<T>()[o]))
    PTE_INT_CASES(return static_cast<double>(t.ptr<T>()[o]))
    PTE_BOOL_CASES(return t.ptr<T>()[o] ? 1.0 : 0.0)
    default:
      return 0.0;
  }
  return 0.0;
}

bool check_qparams(KernelContext& ctx, const char* op, DType qdt, int64_t qmin, int64_t qmax) {
  int64_t lo, hi;
  if (!qrange(qdt, &lo, &hi)) return ctx.fail("%s: unsupported quantized dtype %s", op, dtype_name(qdt));
  if (qmin < lo || qmax > hi)
    return ctx.fail("%s: quant range [%lld, %lld] exceeds %s [%lld, %lld]", op, (long long)qmin, (long long)qmax,
                    dtype_name(qdt), (long long)lo, (long long)hi);
  if (qmin > qmax) return ctx.fail("%s: quant_min %lld > quant_max %lld", op, (long long)qmin, (long long)qmax);
  return true;
}

namespace {

constexpr int64_t kChunk = 256;

bool is_qfloat(DType t) { return t == DType::Float || t == DType::Double || t == DType::Half || t == DType::BFloat16; }
bool is_qint(DType t) {
  return t == DType::UInt8 || t == DType::Int8 || t == DType::Int16 || t == DType::UInt16 || t == DType::Bits16 ||
         t == DType::Int32;
}

// dst[k] = element i0 + k of float tensor t (logical order), converted to C.
template <class C>
void load_floats(const Tensor& t, bool contig, int64_t i0, int64_t m, C* dst) {
  switch (t.dtype) {
    PTE_QFLOAT_CASES({
      const F* p = t.ptr<F>();
      if (contig)
        for (int64_t k = 0; k < m; ++k) dst[k] = static_cast<C>(static_cast<std::conditional_t<std::is_same_v<F, double>, double, float>>(p[i0 + k]));
      else
        for (int64_t k = 0; k < m; ++k) dst[k] = static_cast<C>(static_cast<std::conditional_t<std::is_same_v<F, double>, double, float>>(p[strided_offset(t, i0 + k)]));
    })
    default: break;
  }
}

void store_floats(const float* src, Tensor& t, bool contig, int64_t i0, int64_t m) {
  switch (t.dtype) {
    PTE_QFLOAT_CASES({
      F* p = t.ptr<F>();
      for (int64_t k = 0; k < m; ++k) p[offset_of(t, contig, i0 + k)] = convert<F>(src[k]);
    })
    default: break;
  }
}

void load_qints(const Tensor& t, bool contig, int64_t i0, int64_t m, int32_t* dst) {
  switch (t.dtype) {
    PTE_QUANT_CASES({
      const Q* p = t.ptr<Q>();
      for (int64_t k = 0; k < m; ++k) dst[k] = static_cast<int32_t>(p[offset_of(t, contig, i0 + k)]);
    })
    default: break;
  }
}

void store_qints(const int64_t* src, Tensor& t, bool contig, int64_t i0, int64_t m) {
  switch (t.dtype) {
    PTE_QUANT_CASES({
      Q* p = t.ptr<Q>();
      for (int64_t k = 0; k < m; ++k) p[offset_of(t, contig, i0 + k)] = static_cast<Q>(src[k]);
    })
    default: break;
  }
}

// C: the type x * inv_scale is computed in (double for a double input, float otherwise).
template <class C>
void quantize_blocks(const Tensor& x, Tensor& y, int64_t block, int64_t qmin, int64_t qmax, ParamsFn params,
                     const void* state) {
  const bool cx = x.contiguous_order(), cy = y.contiguous_order();
  const int64_t n = x.numel();
  C xb[kChunk];
  int64_t qb[kChunk];
  for (int64_t b0 = 0, b = 0; b0 < n; b0 += block, ++b) {
    double scale;
    int64_t zp;
    params(state, b, &scale, &zp);
    const float inv = 1.0f / static_cast<float>(scale);
    const int64_t end = b0 + block < n ? b0 + block : n;
    for (int64_t i0 = b0; i0 < end; i0 += kChunk) {
      const int64_t m = end - i0 < kChunk ? end - i0 : kChunk;
      load_floats(x, cx, i0, m, xb);
      for (int64_t k = 0; k < m; ++k) qb[k] = quantize_val<int64_t>(inv, zp, xb[k], qmin, qmax);
      store_qints(qb, y, cy, i0, m);
    }
  }
}

}  // namespace

bool quantize_run(KernelContext& ctx, const char* op, const Tensor& x, Tensor& y, int64_t block, int64_t qmin,
                  int64_t qmax, ParamsFn params, const void* state) {
  if (!is_qfloat(x.dtype)) return ctx.fail("%s: input must be a floating-point tensor, got %s", op, dtype_name(x.dtype));
  if (!is_qint(y.dtype)) return ctx.fail("%s: unsupported quantized dtype %s", op, dtype_name(y.dtype));
  if (x.dtype == DType::Double)
    quantize_blocks<double>(x, y, block, qmin, qmax, params, state);
  else
    quantize_blocks<float>(x, y, block, qmin, qmax, params, state);
  return true;
}

bool dequantize_run(KernelContext& ctx, const char* op, const Tensor& x, Tensor& y, int64_t block, ParamsFn params,
                    const void* state) {
  if (!is_qint(x.dtype)) return ctx.fail("%s: unsupported quantized input dtype %s", op, dtype_name(x.dtype));
  if (!is_qfloat(y.dtype)) return ctx.fail("%s: output must be a floating-point tensor, got %s", op, dtype_name(y.dtype));
  const bool cx = x.contiguous_order(), cy = y.contiguous_order();
  const int64_t n = x.numel();
  int32_t qb[kChunk];
  float yb[kChunk];
  for (int64_t b0 = 0, b = 0; b0 < n; b0 += block, ++b) {
    double scale;
    int64_t zp;
    params(state, b, &scale, &zp);
    const float s = static_cast<float>(scale);
    const int64_t end = b0 + block < n ? b0 + block : n;
    for (int64_t i0 = b0; i0 < end; i0 += kChunk) {
      const int64_t m = end - i0 < kChunk ? end - i0 : kChunk;
      load_qints(x, cx, i0, m, qb);
      for (int64_t k = 0; k < m; ++k) yb[k] = dequantize_val(qb[k], zp, s);
      store_floats(yb, y, cy, i0, m);
    }
  }
  return true;
}

}  // namespace pte::quant
