// aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean,
//     Tensor running_var, float momentum, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
// aten::_native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean,
//     Tensor(b!) running_var, bool training, float momentum, float eps, *, Tensor(d!) out, Tensor(e!) save_mean,
//     Tensor(f!) save_invstd)
// aten::_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias, bool training,
//     float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean, Tensor(c!) save_invstd)
// aten::native_batch_norm.out(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var,
//     bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean, Tensor(c!) save_invstd)
//
// Channels are dim 1 of input [N, C, *]. Inference: out = (x - running_mean[c]) /
// sqrt(running_var[c] + eps) * weight[c] + bias[c]; save_mean/save_invstd are resized
// to [0] (as ExecuTorch and ATen's CPU kernel return them). Training (or no running
// stats): per-channel batch mean and biased var (double, two passes) normalise, are
// written to save_mean/save_invstd ([C]), and the running stats, when given, are
// updated in place: r = (1 - momentum) * r + momentum * stat, with the unbiased var.
// The return slot is a TensorList of the outs and is not read.
#include "ops/reduce/reduce_util.h"

namespace pte {

namespace {

struct BatchNormArgs {
  const Tensor* in;
  const Tensor* weight;
  const Tensor* bias;
  Tensor* running_mean;  // null: none
  Tensor* running_var;
  bool training;
  double momentum;
  double eps;
  Tensor* out;
  Tensor* save_mean;
  Tensor* save_invstd;
};

// Cm: the type of the affine part (double for a double input, float otherwise);
// statistics in double; rows converted at the edges.
template <class Cm>
void batch_norm_run(const BatchNormArgs& a) {
  const Tensor& in = *a.in;
  // every element of one channel: dim 0 and dims 2..
  DimIter ch;
  ch.push(in.sizes[0], in.strides[0], a.out->strides[0]);
  for (int d = 2; d < in.dim; ++d) ch.push(in.sizes[d], in.strides[d], a.out->strides[d]);
  ch.simplify();
  const int64_t C = in.sizes[1];
  const double count = static_cast<double>(ch.numel);
  for (int64_t c = 0; c < C; ++c) {
    const int64_t a0 = c * in.strides[1], b0 = c * a.out->strides[1];
    double mean, invstd;
    if (a.training) {
      double s = 0;
      for_chunks<double>(in.dtype, in.data, ch, a0, [&](const double* x, int64_t m, int64_t) {
        for (int64_t i = 0; i < m; ++i) s += x[i];
      });
      mean = s / count;
      double m2 = 0;
      for_chunks<double>(in.dtype, in.data, ch, a0, [&](const double* x, int64_t m, int64_t) {
        for (int64_t i = 0; i < m; ++i) {
          const double d = x[i] - mean;
          m2 += d * d;
        }
      });
      invstd = 1.0 / std::sqrt(m2 / count + a.eps);
      store_as(*a.save_mean, linear_offset(*a.save_mean, c), mean);
      store_as(*a.save_invstd, linear_offset(*a.save_invstd, c), invstd);
      if (a.running_mean) {
        int64_t o = linear_offset(*a.running_mean, c);
        store_as(*a.running_mean, o, (1 - a.momentum) * load_f64(*a.running_mean, o) + a.momentum * mean);
      }
      if (a.running_var) {
        int64_t o = linear_offset(*a.running_var, c);
        double unbiased = count > 1 ? m2 / (count - 1) : NAN;
        store_as(*a.running_var, o, (1 - a.momentum) * load_f64(*a.running_var, o) + a.momentum * unbiased);
      }
    } else {
      mean = load_f64(*a.running_mean, linear_offset(*a.running_mean, c));
      invstd = 1.0 / std::sqrt(load_f64(*a.running_var, linear_offset(*a.running_var, c)) + a.eps);
    }
    const double wv = a.weight ? load_f64(*a.weight, linear_offset(*a.weight, c)) : 1.0;
    const double bv = a.bias ? load_f64(*a.bias, linear_offset(*a.bias, c)) : 0.0;
    const Cm scale = static_cast<Cm>(invstd * wv), shift = static_cast<Cm>(bv - mean * invstd * wv);
    for_chunks<Cm>(in.dtype, in.data, ch, a0, [&](const Cm* x, int64_t m, int64_t i0) {
      Cm y[kChunk];
      for (int64_t i = 0; i < m; ++i) y[i] = x[i] * scale + shift;
      scatter(*a.out, ch, b0, i0, m, y);
    });
  }
}

const Tensor* opt(const EValue* v) { return v && v->is_tensor() ? v->t : nullptr; }

bool batch_norm_common(KernelContext& ctx, const char* op, BatchNormArgs& a) {
  const Tensor& in = *a.in;
  if (in.dim < 2) return ctx.fail("%s: input must have at least 2 dims [N, C, ...], got %d", op, in.dim);
  const int64_t C = in.sizes[1];
  if (!is_float_dtype(in.dtype) || a.out->dtype != in.dtype)
    return ctx.fail("%s: input and out must share a floating dtype, got %s and %s", op, dtype_name(in.dtype),
                    dtype_name(a.out->dtype));
  const Tensor* per_channel[] = {a.weight, a.bias, a.running_mean, a.running_var};
  for (const Tensor* t : per_channel)
    if (t && (t->numel() != C || !is_float_dtype(t->dtype)))
      return ctx.fail("%s: weight, bias and running stats must be floating with C=%lld elements", op,
                      static_cast<long long>(C));
  if (!a.training && (!a.running_mean || !a.running_var))
    return ctx.fail("%s: inference needs running_mean and running_var", op);
  if (!is_float_dtype(a.save_mean->dtype) || !is_float_dtype(a.save_invstd->dtype))
    return ctx.fail("%s: save_mean/save_invstd outs must be floating", op);
  const int64_t stat_size = a.training ? C : 0;
  if (!resize_output_like(ctx, *a.out, in) || !resize_output(ctx, *a.save_mean, &stat_size, 1) ||
      !resize_output(ctx, *a.save_invstd, &stat_size, 1))
    return false;
  if (in.dtype == DType::Double)
    batch_norm_run<double>(a);
  else
    batch_norm_run<float>(a);
  return true;
}

bool number(KernelContext& ctx, const EValue* v, const char* name, double* r) {
  if (v->tag != Tag::Double && v->tag != Tag::Int) return ctx.fail("argument %s: expected a float, got %s", name, tag_name(v->tag));
  *r = v->to_double();
  return true;
}

bool tensors(KernelContext& ctx, EValue** args, std::initializer_list<int> idx) {
  for (int i : idx)
    if (!expect_tag(ctx, args[i], Tag::Tensor, "tensor argument")) return false;
  return true;
}

}  // namespace

bool native_batch_norm_legit_no_training_out(KernelContext& ctx, EValue** args) {
  if (!tensors(ctx, args, {0, 3, 4, 7, 8, 9})) return false;
  BatchNormArgs a{args[0]->t, opt(args[1]), opt(args[2]), args[3]->t, args[4]->t, false, 0, 0,
                  args[7]->t, args[8]->t,   args[9]->t};
  if (!number(ctx, args[5], "momentum", &a.momentum) || !number(ctx, args[6], "eps", &a.eps)) return false;
  return batch_norm_common(ctx, "_native_batch_norm_legit_no_training.out", a);
}

bool native_batch_norm_legit_out(KernelContext& ctx, EValue** args) {
  if (!tensors(ctx, args, {0, 3, 4, 8, 9, 10}) || !expect_tag(ctx, args[5], Tag::Bool, "training")) return false;
  BatchNormArgs a{args[0]->t, opt(args[1]), opt(args[2]), args[3]->t, args[4]->t, args[5]->b, 0, 0,
                  args[8]->t, args[9]->t,   args[10]->t};
  if (!number(ctx, args[6], "momentum", &a.momentum) || !number(ctx, args[7], "eps", &a.eps)) return false;
  return batch_norm_common(ctx, "_native_batch_norm_legit.out", a);
}

bool native_batch_norm_legit_no_stats_out(KernelContext& ctx, EValue** args) {
  if (!tensors(ctx, args, {0, 6, 7, 8}) || !expect_tag(ctx, args[3], Tag::Bool, "training")) return false;
  // Without running stats the batch statistics are always used.
  BatchNormArgs a{args[0]->t, opt(args[1]), opt(args[2]), nullptr, nullptr, true, 0, 0,
                  args[6]->t, args[7]->t,   args[8]->t};
  if (!number(ctx, args[4], "momentum", &a.momentum) || !number(ctx, args[5], "eps", &a.eps)) return false;
  return batch_norm_common(ctx, "_native_batch_norm_legit.no_stats_out", a);
}

bool native_batch_norm_out(KernelContext& ctx, EValue** args) {
  if (!tensors(ctx, args, {0, 8, 9, 10}) || !expect_tag(ctx, args[5], Tag::Bool, "training")) return false;
  BatchNormArgs a{args[0]->t, opt(args[1]), opt(args[2]), const_cast<Tensor*>(opt(args[3])),
                  const_cast<Tensor*>(opt(args[4])), args[5]->b, 0, 0, args[8]->t, args[9]->t, args[10]->t};
  if (!number(ctx, args[6], "momentum", &a.momentum) || !number(ctx, args[7], "eps", &a.eps)) return false;
  return batch_norm_common(ctx, "native_batch_norm.out", a);
}

}  // namespace pte
