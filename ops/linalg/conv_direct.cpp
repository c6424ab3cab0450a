// pte-run linalg: direct convolution loops (the reference, and the path for
// depthwise, non-f32 dtypes and layouts the GEMM path does not take).
#include <pthreadpool.h>

#include "ops/linalg/conv.h"
#include "ops/linalg/linalg_util.h"

namespace pte::linalg {

template <class T>
void conv_direct(pthreadpool* pool, const ConvGeom& g, const T* x, const T* w, const T* bias, T* y) {
  using A = Acc<T>;
  auto plane = [&](size_t n, size_t oc) {
    const int64_t grp = static_cast<int64_t>(oc) / g.ocg, ocl = static_cast<int64_t>(oc) % g.ocg;
    const T* xn = x + n * g.xs[0];
    T* yo = y + n * g.ys[0] + oc * g.ys[1];
    const A b = bias ? convert<A>(bias[oc * g.bias_stride]) : A(0);
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          A acc = 0;
          for (int64_t icl = 0; icl < g.icg; ++icl) {
            const int64_t c = grp * g.icg + icl;
            const T* xc = xn + c * g.xs[1];
            // non-transposed: weight [Cout, icg, k...]; transposed: [Cin, ocg, k...]
            const T* wc = g.transposed ? w + c * g.ws[0] + ocl * g.ws[1] : w + oc * g.ws[0] + icl * g.ws[1];
            for (int64_t kd = 0; kd < g.k[0]; ++kd) {
              int64_t id;
              if (!g.transposed) {
                id = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
              } else {
                int64_t t = od + g.pad[0] - kd * g.dil[0];
                if (t < 0 || t % g.stride[0]) continue;
                id = t / g.stride[0];
              }
              if (id < 0 || id >= g.in[0]) continue;
              for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                int64_t ih;
                if (!g.transposed) {
                  ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
                } else {
                  int64_t t = oh + g.pad[1] - kh * g.dil[1];
                  if (t < 0 || t % g.stride[1]) continue;
                  ih = t / g.stride[1];
                }
                if (ih < 0 || ih >= g.in[1]) continue;
                const T* xr = xc + id * g.xs[2] + ih * g.xs[3];
                const T* wr = wc + kd * g.ws[2] + kh * g.ws[3];
                for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                  int64_t iw;
                  if (!g.transposed) {
                    iw = ow * g.stride[2] - g.pad[2] + kw * g.dil[2];
                  } else {
                    int64_t t = ow + g.pad[2] - kw * g.dil[2];
                    if (t < 0 || t % g.stride[2]) continue;
                    iw = t / g.stride[2];
                  }
                  if (iw < 0 || iw >= g.in[2]) continue;
                  acc += convert<A>(xr[iw * g.xs[4]]) * convert<A>(wr[kw * g.ws[4]]);
                }
              }
            }
          }
          yo[od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4]] = convert<T>(acc + b);
        }
  };
  const double work = static_cast<double>(g.N) * g.Cout * g.out[0] * g.out[1] * g.out[2] * g.icg * g.k[0] * g.k[1] * g.k[2];
  pthreadpool_parallelize_2d(work >= 1.0e6 ? pool : nullptr, plane, static_cast<size_t>(g.N), static_cast<size_t>(g.Cout),
                             0);
}

template void conv_direct<float>(pthreadpool*, const ConvGeom&, const float*, const float*, const float*, float*);
template void conv_direct<double>(pthreadpool*, const ConvGeom&, const double*, const double*, const double*, double*);
template void conv_direct<Half>(pthreadpool*, const ConvGeom&, const Half*, const Half*, const Half*, Half*);
template void conv_direct<BFloat16>(pthreadpool*, const ConvGeom&, const BFloat16*, const BFloat16*, const BFloat16*,
                                    BFloat16*);

}  // namespace pte::linalg
