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

}  // namespace pte::quant
