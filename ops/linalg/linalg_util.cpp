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
