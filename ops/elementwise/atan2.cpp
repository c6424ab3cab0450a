// aten::atan2.out(Tensor self, Tensor other, *, Tensor(a!) out)
//
// out = atan2(self, other), broadcast; integer and bool inputs are promoted to float32.
#include "ops/elementwise/elementwise.h"

namespace pte {
namespace {

template <class C>
struct Atan2 {
  C operator()(C a, C b) const { return std::atan2(a, b); }
};

}  // namespace

// args: self, other, out, return
bool atan2_out(KernelContext& ctx, EValue** args) {
  Tensor* out;
  ew::Operand a, b;
  DType common;
  if (!ew::setup_binary(ctx, args[0], args[1], args[2], out, a, b, common)) return false;
  const DType result = ew::is_floating(common) ? common : DType::Float;
  if (!ew::check_cast(ctx, result, *out)) return false;
  const ew::Operand in[2] = {a, b};
  if (result == DType::Double) {
    Atan2<double> op;
    return ew::map<double>(ctx, *out, in, op);
  }
  Atan2<float> op;
  return ew::map<float>(ctx, *out, in, op);
}

}  // namespace pte
