// aten::native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group,
//                             float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
//
// input [N, C, *] is split into `group` groups of C/group channels; per (n, group):
// mean, biased var, rstd = 1/sqrt(var + eps) (two passes in double);
// out0 = (x - mean) * rstd * weight[c] + bias[c]; out1 = mean, out2 = rstd, both
// [N, group]. The return slot is a TensorList of the outs and is not read.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

template <class T>
void group_norm_typed(const Tensor& in, const Tensor* weight, const Tensor* bias, int64_t N, int64_t C, int64_t G,
                      double eps, Tensor& out, Tensor& mean_out, Tensor& rstd_out) {
  using Cm = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const T* x = in.ptr<T>();
  T* y = out.ptr<T>();
  // spatial dims 2.. : a = input strides, b = output strides
  DimIter sp;
  for (int d = 2; d < in.dim; ++d) sp.push(in.sizes[d], in.strides[d], out.strides[d]);
  sp.simplify();
  // one group: channels x spatial
  const int64_t cpg = C / G;
  DimIter grp;
  grp.push(cpg, in.strides[1], out.strides[1]);
  for (int d = 0; d < sp.n; ++d) grp.push(sp.size[d], sp.sa[d], sp.sb[d]);
  grp.simplify();
  const double count = static_cast<double>(grp.numel);
  const int64_t sn_in = in.strides[0], sn_out = out.strides[0];
  const int64_t sc_in = in.strides[1], sc_out = out.strides[1];
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t g = 0; g < G; ++g) {
      const int64_t a0 = n * sn_in + g * cpg * sc_in, b0 = n * sn_out + g * cpg * sc_out;
      double s = 0;
      for_each(grp, a0, 0, [&](int64_t ia, int64_t) { s += convert<double>(x[ia]); });
      const double mean = s / count;
      double m2 = 0;
      for_each(grp, a0, 0, [&](int64_t ia, int64_t) {
        double d = convert<double>(x[ia]) - mean;
        m2 += d * d;
      });
      const double rstd = 1.0 / std::sqrt(m2 / count + eps);
      for (int64_t cc = 0; cc < cpg; ++cc) {
        const int64_t c = g * cpg + cc;
        const double wv = weight ? load_f64(*weight, linear_offset(*weight, c)) : 1.0;
        const double bv = bias ? load_f64(*bias, linear_offset(*bias, c)) : 0.0;
        // out = x * scale + shift
        const Cm scale = static_cast<Cm>(rstd * wv), shift = static_cast<Cm>(bv - mean * rstd * wv);
        for_each(sp, a0 + cc * sc_in, b0 + cc * sc_out, [&](int64_t ia, int64_t ib) {
          y[ib] = convert<T>(static_cast<Cm>(x[ia]) * scale + shift);
        });
      }
      const int64_t k = n * G + g;
      store_as(mean_out, linear_offset(mean_out, k), mean);
      store_as(rstd_out, linear_offset(rstd_out, k), rstd);
    }
  }
}

}  // namespace

bool native_group_norm_out(KernelContext& ctx, EValue** args) {
  const char* op = "native_group_norm.out";
  if (!expect_tag(ctx, args[0], Tag::Tensor, "input") || !expect_tag(ctx, args[3], Tag::Int, "N") ||
      !expect_tag(ctx, args[4], Tag::Int, "C") || !expect_tag(ctx, args[5], Tag::Int, "HxW") ||
      !expect_tag(ctx, args[6], Tag::Int, "group") || !expect_tag(ctx, args[8], Tag::Tensor, "out0") ||
      !expect_tag(ctx, args[9], Tag::Tensor, "out1") || !expect_tag(ctx, args[10], Tag::Tensor, "out2"))
    return false;
  if (args[7]->tag != Tag::Double && args[7]->tag != Tag::Int)
    return ctx.fail("%s: eps must be a float, got %s", op, tag_name(args[7]->tag));
  const Tensor& in = *args[0]->t;
  const Tensor* weight = args[1]->is_tensor() ? args[1]->t : nullptr;
  const Tensor* bias = args[2]->is_tensor() ? args[2]->t : nullptr;
  const int64_t N = args[3]->i, C = args[4]->i, HxW = args[5]->i, G = args[6]->i;
  const double eps = args[7]->to_double();
  Tensor& out = *args[8]->t;
  Tensor& mean_out = *args[9]->t;
  Tensor& rstd_out = *args[10]->t;
  if (in.dim < 2 || in.sizes[0] != N || in.sizes[1] != C || in.numel() != N * C * HxW)
    return ctx.fail("%s: input shape does not match N=%lld C=%lld HxW=%lld", op, static_cast<long long>(N),
                    static_cast<long long>(C), static_cast<long long>(HxW));
  if (G <= 0 || C % G != 0)
    return ctx.fail("%s: C=%lld is not divisible into %lld groups", op, static_cast<long long>(C),
                    static_cast<long long>(G));
  for (const Tensor* t : {weight, bias})
    if (t && (t->numel() != C || !is_float_dtype(t->dtype)))
      return ctx.fail("%s: weight/bias must be floating with C=%lld elements", op, static_cast<long long>(C));
  if (!is_float_dtype(in.dtype) || out.dtype != in.dtype)
    return ctx.fail("%s: input and out0 must share a floating dtype, got %s and %s", op, dtype_name(in.dtype),
                    dtype_name(out.dtype));
  if (!is_float_dtype(mean_out.dtype) || !is_float_dtype(rstd_out.dtype))
    return ctx.fail("%s: mean/rstd outs must be floating", op);
  const int64_t stat_sizes[2] = {N, G};
  if (!resize_output_like(ctx, out, in) || !resize_output(ctx, mean_out, stat_sizes, 2) ||
      !resize_output(ctx, rstd_out, stat_sizes, 2))
    return false;
  visit_float_dtype(in.dtype, [&](auto tag) {
    group_norm_typed<typename decltype(tag)::type>(in, weight, bias, N, C, G, eps, out, mean_out, rstd_out);
  });
  return true;
}

}  // namespace pte
