#include "ops/linalg/linalg_util.h"

namespace pte::linalg {

bool read_int_list(KernelContext& ctx, const EValue* v, const char* what, int64_t* out, size_t max_n, bool expand,
                   const int64_t* dflt) {
  if (!v || v->tag != Tag::IntList) return ctx.fail("%s: expected an int list, got %s", what, v ? tag_name(v->tag) : "nothing");
  size_t n = 0;
  const int64_t* items = v->int_list(&n);
  if (n == 0 && dflt) {
    for (size_t i = 0; i < max_n; ++i) out[i] = dflt[i];
    return true;
  }
  if (n == 1 && expand) {
    for (size_t i = 0; i < max_n; ++i) out[i] = items[0];
    return true;
  }
  if (n != max_n) return ctx.fail("%s: expected %zu values, got %zu", what, max_n, n);
  for (size_t i = 0; i < n; ++i) out[i] = items[i];
  return true;
}

bool prepare_matmul(KernelContext& ctx, EValue** args, const int* idx, const char* const* names, int n, int rank_a,
                    int rank_b, const char* op) {
  for (int i = 0; i < n; ++i)
    if (!expect_tag(ctx, args[idx[i]], Tag::Tensor, names[i])) return false;
  const Tensor& a = *args[idx[0]]->t;
  const Tensor& b = *args[idx[1]]->t;
  if ((rank_a < 0 ? a.dim < 1 : a.dim != rank_a) || b.dim != rank_b)
    return ctx.fail("%s: expected %s and %d-D tensors, got %d-D and %d-D", op, rank_a < 0 ? "rank >= 1" : rank_a == 2 ? "2-D" : "3-D",
                    rank_b, a.dim, b.dim);
  for (int i = 1; i < n; ++i)
    if (args[idx[i]]->t->dtype != a.dtype)
      return ctx.fail("%s: dtypes differ (%s %s, %s %s)", op, names[0], dtype_name(a.dtype), names[i],
                      dtype_name(args[idx[i]]->t->dtype));
  switch (a.dtype) {
    case DType::Float: case DType::Half: case DType::BFloat16: case DType::Double: case DType::Int64:
    case DType::Int32: case DType::Int16: case DType::Int8: case DType::UInt8:
      return true;
    default:
      return ctx.fail("%s: unsupported dtype %s", op, dtype_name(a.dtype));
  }
}

bool optional_tensor(KernelContext& ctx, const EValue* v, const char* what, const Tensor** out) {
  if (!v || v->tag == Tag::None) {
    *out = nullptr;
    return true;
  }
  if (v->tag != Tag::Tensor) return ctx.fail("%s: expected a tensor or None, got %s", what, tag_name(v->tag));
  *out = v->t;
  return true;
}

}  // namespace pte::linalg
