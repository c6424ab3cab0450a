// pte-run: the XNNPACK library's fp32 convolutions (xnn_library_conv.h).
#include "ops/linalg/xnn_library_conv.h"

#include "ops/linalg/xnn_library.h"
#include "pte_config.h"

#if PTE_HAVE_XNNPACK
#include <xnnpack.h>
#endif

namespace pte::linalg::xnnlib {

bool choose_conv(XnnpackPolicy p, std::string* why) {
#if defined(__arm__) || defined(__aarch64__)
  return decide(p, false, "auto: ARM, our kernels (the library not yet measured here; --xnnpack on uses it)", why);
#else
  // The library's indirect convolutions and depthwise kernels against our im2col + GEMM
  // and direct depthwise loops (pte-bench forward, Zen 4 VM): the committed conv fixtures
  // 2.3-4.1x faster (cnn_xnnpack 0.037 -> 0.009 ms, a transposed convolution 0.080 ->
  // 0.021 ms), the published-size vision programs of bench/results/vision.md 1.1-4.5x
  // (whole forwards, idle); the filter's packed copy replaces ours (no extra memory).
  return decide(p, true, "auto: x86-64, the library's convolutions measured faster", why);
#endif
}

ConvolutionF32::~ConvolutionF32() {
#if PTE_HAVE_XNNPACK
  if (op_) xnn_delete_operator(static_cast<xnn_operator_t>(op_));
#endif
}

Status ConvolutionF32::create(const ConvShape& c, const float* filter, const float* bias, float out_min, float out_max,
                              std::unique_ptr<ConvolutionF32>* out) {
#if PTE_HAVE_XNNPACK
  std::string why;
  if (!ready(&why)) return Status::error(why);
  if (!filter || c.groups < 1 || c.gic < 1 || c.goc < 1) return Status::error("XNNPACK convolution: empty filter");
  const size_t cin = static_cast<size_t>(c.groups) * c.gic, cout = static_cast<size_t>(c.groups) * c.goc;
  xnn_operator_t op = nullptr;
  enum xnn_status st;
  const char* what;
  if (c.kind == ConvKind::Transposed) {
    what = "xnn_create_deconvolution2d_nhwc_f32";
    st = xnn_create_deconvolution2d_nhwc_f32(c.pad_top, c.pad_right, c.pad_bottom, c.pad_left, c.kh, c.kw, c.sh, c.sw, c.dh,
                                             c.dw, c.groups, c.gic, c.goc, cin, cout, filter, bias, out_min, out_max, 0, &op);
  } else {
    what = "xnn_create_convolution2d_nhwc_f32";
    st = xnn_create_convolution2d_nhwc_f32(c.pad_top, c.pad_right, c.pad_bottom, c.pad_left, c.kh, c.kw, c.sh, c.sw, c.dh,
                                           c.dw, c.groups, c.gic, c.goc, cin, cout, filter, bias, out_min, out_max,
                                           c.kind == ConvKind::Depthwise ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0, &op);
  }
  if (st != xnn_status_success)
    return Status::error(std::string("XNNPACK: ") + what + " (" + std::to_string(c.kh) + "x" + std::to_string(c.kw) + ", " +
                         std::to_string(cin) + " -> " + std::to_string(cout) + " channels, " + std::to_string(c.groups) +
                         " groups) failed (status " + std::to_string(static_cast<int>(st)) + ")");
  std::unique_ptr<ConvolutionF32> conv(new ConvolutionF32());
  conv->op_ = op, conv->c_ = c;
  *out = std::move(conv);
  return Status::ok();
#else
  (void)c, (void)filter, (void)bias, (void)out_min, (void)out_max, (void)out;
  return Status::error("this build has no XNNPACK library");
#endif
}

#if PTE_HAVE_XNNPACK
namespace {
enum xnn_status setup(xnn_operator_t op, const ConvShape& c, int64_t N, int64_t H, int64_t W, const float* x, float* y,
                      pthreadpool_t pool) {
  if (c.kind == ConvKind::Transposed)
    return xnn_setup_deconvolution2d_nhwc_f32(op, static_cast<size_t>(N), static_cast<size_t>(H), static_cast<size_t>(W),
                                              c.adj_h, c.adj_w, x, y, pool);
  return xnn_setup_convolution2d_nhwc_f32(op, static_cast<size_t>(N), static_cast<size_t>(H), static_cast<size_t>(W), x, y,
                                          pool);
}
}  // namespace
#endif

Status ConvolutionF32::reserve(int64_t N, int64_t H, int64_t W) {
#if PTE_HAVE_XNNPACK
  if (N <= 0 || H <= 0 || W <= 0) return Status::ok();
  // The setup only computes input / output addresses (the indirection buffer); nothing is
  // read or written through this placeholder.
  static float placeholder[1];
  const enum xnn_status st = setup(static_cast<xnn_operator_t>(op_), c_, N, H, W, placeholder, placeholder, nullptr);
  if (st != xnn_status_success)
    return Status::error("XNNPACK convolution: setup for a " + std::to_string(N) + "x" + std::to_string(H) + "x" +
                         std::to_string(W) + " input failed (status " + std::to_string(static_cast<int>(st)) + ")");
  return Status::ok();
#else
  (void)N, (void)H, (void)W;
  return Status::error("this build has no XNNPACK library");
#endif
}

bool ConvolutionF32::run(KernelContext& ctx, int64_t N, int64_t H, int64_t W, const float* x, float* y) const {
#if PTE_HAVE_XNNPACK
  auto* op = static_cast<xnn_operator_t>(op_);
  enum xnn_status st = setup(op, c_, N, H, W, x, y, ctx.threadpool);
  if (st == xnn_status_success) st = xnn_run_operator(op, ctx.threadpool);
  if (st != xnn_status_success)
    return ctx.fail("XNNPACK convolution %ux%u (%u groups) on a %lldx%lldx%lld input failed (status %d)", c_.kh, c_.kw,
                    c_.groups, (long long)N, (long long)H, (long long)W, static_cast<int>(st));
  return true;
#else
  (void)N, (void)H, (void)W, (void)x, (void)y;
  return ctx.fail("this build has no XNNPACK library");
#endif
}

}  // namespace pte::linalg::xnnlib
