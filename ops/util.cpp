#include "ops/util.h"

#include <string>

namespace pte {

static std::string shape_str(const int64_t* s, int32_t n) {
  std::string r = "[";
  for (int i = 0; i < n; ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

bool resize_output(KernelContext& ctx, Tensor& out, const int64_t* sizes, int32_t dim) {
  if (resize_tensor(out, sizes, dim)) return true;
  return ctx.fail("cannot resize output %s %s to %s (static shape or over its planned bound)",
                  dtype_name(out.dtype), shape_str(out.sizes, out.dim).c_str(), shape_str(sizes, dim).c_str());
}

bool expect_tag(KernelContext& ctx, const EValue* v, Tag tag, const char* arg) {
  if (v && v->tag == tag) return true;
  return ctx.fail("argument %s: expected %s, got %s", arg, tag_name(tag), v ? tag_name(v->tag) : "nothing");
}

}  // namespace pte
