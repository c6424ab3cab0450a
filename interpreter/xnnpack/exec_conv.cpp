// pte-run XNNPACK delegate: NHWC convolutions and NHWC pooling. Where each convolution runs is
// chosen at load (attach_library_conv): plain ones on ops/linalg/conv_nhwc (filter packed in
// slivers), depthwise on dwconv_nhwc, others on the XNNPACK library or on ops/linalg's strided
// im2col + GEMM engine (filters OHWI as XNNPACK stores them; transposed ones packed at load).
#include <algorithm>
#include <cmath>
#include <limits>

#include "interpreter/xnnpack/exec.h"
#include "ops/linalg/conv.h"
#include "ops/linalg/conv_nhwc.h"
#include "ops/linalg/dwconv_nhwc.h"
#include "ops/linalg/maxpool_nhwc.h"

namespace pte::xnn {

Status prepare_conv(const Graph& g, const Node& n, Prepared* p) {
  const char* name = op_name(n.op);
  const Value& x = g.values[n.in[0]];
  const Value& w = g.values[n.in[1]];
  const ConvParams& c = n.conv;
  auto fail = [&](const std::string& m) { return Status::error(std::string(name) + ": " + m); };
  if (x.dtype != DT::F32 || w.dtype != DT::F32 || g.values[n.out].dtype != DT::F32)
    return fail(std::string("only fp32 is supported (input ") + dt_name(x.dtype) + ", filter " + dt_name(w.dtype) + ")");
  if (!w.is_constant()) return fail("the filter must be a constant");
  if (w.dims.n != 4) return fail("the filter has " + std::to_string(w.dims.n) + " dims");
  if (n.in[2] >= 0) {
    const Value& b = g.values[n.in[2]];
    if (b.dtype != DT::F32 || !b.is_constant()) return fail("the bias must be an fp32 constant");
    if (b.dims.numel() != static_cast<int64_t>(c.groups) * c.goc) return fail("bias size does not match the output channels");
  }
  const int64_t OC = static_cast<int64_t>(c.groups) * c.goc, KH = c.kh, KW = c.kw;
  const float* f = reinterpret_cast<const float*>(w.data);
  if (n.op == Op::ConvTranspose2d) {
    // XNNPACK deconvolution filter [groups * goc, KH, KW, gic] -> [Cin = groups * gic, goc, KH, KW]
    // (torch's transposed layout, one dense row per input channel).
    const int64_t G = c.groups, IC = c.gic, OCG = c.goc;
    if (w.dims.d[0] != OC || w.dims.d[1] != KH || w.dims.d[2] != KW || w.dims.d[3] != IC)
      return fail("filter dims do not match the kernel size and channels");
    if (!p) return Status::ok();  // checks only
    p->w.resize(static_cast<size_t>(G * IC * OCG * KH * KW));
    for (int64_t gr = 0; gr < G; ++gr)
      for (int64_t o = 0; o < OCG; ++o)
        for (int64_t h = 0; h < KH; ++h)
          for (int64_t ww = 0; ww < KW; ++ww)
            for (int64_t i = 0; i < IC; ++i)
              p->w[static_cast<size_t>((((gr * IC + i) * OCG + o) * KH + h) * KW + ww)] =
                  f[(((gr * OCG + o) * KH + h) * KW + ww) * IC + i];
  } else if (n.op == Op::Conv2d) {
    // XNNPACK filter [OC, KH, KW, IC/g], kept: with NHWC input each (kh, kw) of a column
    // row is then one contiguous run of input channels (im2col copies runs)
    const int64_t IC = c.gic;
    if (w.dims.d[0] != OC || w.dims.d[1] != KH || w.dims.d[2] != KW || w.dims.d[3] != IC)
      return fail("filter dims do not match the kernel size and channels");
    if (!p) return Status::ok();  // checks only
    p->w.assign(f, f + OC * KH * KW * IC);
  } else {
    // depthwise: filter [1, KH, KW, OC] -> [OC, 1, KH, KW]
    if (c.gic != 1) return fail("depthwise convolution with " + std::to_string(c.gic) + " input channels per group");
    if (w.dims.d[0] != 1 || w.dims.d[1] != KH || w.dims.d[2] != KW || w.dims.d[3] != OC)
      return fail("filter dims do not match the kernel size and channels");
    if (!p) return Status::ok();  // checks only
    if (c.goc == 1) {  // dwconv_nhwc reads the blob's filter as it is
      p->dw_nhwc = true;
      return Status::ok();
    }
    p->w.resize(static_cast<size_t>(OC * KH * KW));
    for (int64_t o = 0; o < OC; ++o)
      for (int64_t h = 0; h < KH; ++h)
        for (int64_t ww = 0; ww < KW; ++ww) p->w[static_cast<size_t>((o * KH + h) * KW + ww)] = f[(h * KW + ww) * OC + o];
  }
  return Status::ok();
}

namespace {

// Output size of a window op (0 when the window does not fit).
int64_t out_size(int64_t in, uint32_t pa, uint32_t pb, uint32_t k, uint32_t s, uint32_t d) {
  int64_t eff = static_cast<int64_t>(d) * (k - 1) + 1, padded = in + pa + pb;
  return padded < eff ? 0 : (padded - eff) / s + 1;
}

// Output size of a transposed convolution (<= 0 when the padding removes everything).
int64_t deconv_out_size(int64_t in, uint32_t pa, uint32_t pb, uint32_t adj, uint32_t k, uint32_t s, uint32_t d) {
  if (in <= 0) return 0;
  return (in - 1) * static_cast<int64_t>(s) + adj + static_cast<int64_t>(d) * (k - 1) + 1 - pa - pb;
}

// A convolution node's output height and width for an H x W input (<= 0: none).
void conv_out_hw(const Node& n, int64_t H, int64_t W, int64_t* OH, int64_t* OW) {
  const ConvParams& c = n.conv;
  const bool tr = n.op == Op::ConvTranspose2d;
  *OH = tr ? deconv_out_size(H, c.pad_top, c.pad_bottom, c.adj_h, c.kh, c.sh, c.dh)
           : out_size(H, c.pad_top, c.pad_bottom, c.kh, c.sh, c.dh);
  *OW = tr ? deconv_out_size(W, c.pad_left, c.pad_right, c.adj_w, c.kw, c.sw, c.dw)
           : out_size(W, c.pad_left, c.pad_right, c.kw, c.sw, c.dw);
}

}  // namespace

Status attach_library_conv(const Graph& g, const Node& n, XnnpackPolicy policy, Prepared* p, bool* candidate,
                           MatmulPath* path) {
  *candidate = false;
  if (n.op != Op::Conv2d && n.op != Op::DepthwiseConv2d && n.op != Op::ConvTranspose2d) return Status::ok();
  if (p->w.empty() && !p->dw_nhwc) return Status::ok();  // not an fp32 convolution prepared by prepare_conv
  const ConvParams& c = n.conv;
  *candidate = true;
  path->op = op_name(n.op);
  path->n = static_cast<int64_t>(c.groups) * c.goc;
  path->k = static_cast<int64_t>(c.gic) * c.kh * c.kw;
  std::string why;
  // Depthwise filters over 25 taps (ConvNeXt's 7x7): Debian's 2022 XNNPACK has no depthwise
  // micro-kernel that wide and runs them as a grouped GEMM of one output channel a group;
  // dwconv_nhwc took ConvNeXt-T from 97-105 to 74-76 ms a forward (Zen 4 VM, 2 threads).
  //
  // On a CPU with our SIMD implicit GEMM (AVX-512F; aarch64, where the library is not used
  // anyway) auto runs every plain and depthwise convolution on our kernels, the claim pool's
  // threads: node by node the library was faster on small ones (MobileNetV2's 27-long stem
  // 0.12 against our 0.24 ms, 1 x 1 32 -> 16 0.07 against 0.14 ms, 3 x 3 depthwise 0.37
  // against 0.55 ms in all) and ours on large ones (ResNet-50's convolutions 0.95-1.14x the
  // library's time), but a graph mixing both pays a pool switch at each change (MobileNetV2
  // with only its 1 x 1 layers on ours: 2.4 -> 3.0 ms) and the library's pthreadpool waits for
  // a descheduled worker on a busy machine. MobileNetV2 whole, Zen 5 VM, 2 threads, 5
  // interleaved pairs: idle 2.65 (library) against 2.61 ms (ours), with a busy process on one
  // core 5.39 against 4.11 ms. Transposed and grouped convolutions stay on the library.
  const XnnpackPolicy resolved = linalg::xnnlib::resolve(policy);
  const bool lib = linalg::xnnlib::choose_conv(policy, &why);
  const bool simd = linalg::conv_nhwc_has_simd();
  const bool ours_auto = resolved != XnnpackPolicy::On;  // auto or off (or no library: lib false)
  if (p->dw_nhwc && lib && ours_auto && (simd || static_cast<int64_t>(c.kh) * c.kw > 25)) {
    path->why = simd ? "ours: auto: depthwise on the claim pool (with the convolutions, see exec_conv.cpp)"
                     : "ours: auto: depthwise over 25 taps (the 2022 library runs it as a grouped GEMM)";
    return Status::ok();
  }
  if (n.op == Op::Conv2d && c.groups == 1 && simd && (!lib || ours_auto)) {
    const int64_t OC = c.goc, Kc = static_cast<int64_t>(c.kh) * c.kw * c.gic;
    std::vector<float> packed(linalg::conv_nhwc_packed_floats(OC, Kc));
    const float* bias = n.in[2] >= 0 ? reinterpret_cast<const float*>(g.values[static_cast<size_t>(n.in[2])].data) : nullptr;
    linalg::conv_nhwc_pack_f32(p->w.data(), bias, OC, Kc, packed.data());
    p->w.swap(packed);
    p->conv_nhwc = true;
    path->why = lib ? "ours: auto: implicit GEMM (conv_nhwc)" : "ours (" + why + "): implicit GEMM (conv_nhwc)";
    return Status::ok();
  }
  if (!lib) {
    path->why = "ours: " + why;
    return Status::ok();
  }
  linalg::xnnlib::ConvShape cs;
  cs.kind = n.op == Op::ConvTranspose2d   ? linalg::xnnlib::ConvKind::Transposed
            : n.op == Op::DepthwiseConv2d ? linalg::xnnlib::ConvKind::Depthwise
                                          : linalg::xnnlib::ConvKind::Conv;
  cs.pad_top = c.pad_top, cs.pad_right = c.pad_right, cs.pad_bottom = c.pad_bottom, cs.pad_left = c.pad_left;
  cs.kh = c.kh, cs.kw = c.kw, cs.sh = c.sh, cs.sw = c.sw, cs.dh = c.dh, cs.dw = c.dw;
  cs.groups = c.groups, cs.gic = c.gic, cs.goc = c.goc, cs.adj_h = c.adj_h, cs.adj_w = c.adj_w;
  // The filter in the blob's (XNNPACK's) layout, as prepare_conv checked it.
  const float* filter = reinterpret_cast<const float*>(g.values[static_cast<size_t>(n.in[1])].data);
  const float* bias = n.in[2] >= 0 ? reinterpret_cast<const float*>(g.values[static_cast<size_t>(n.in[2])].data) : nullptr;
  PTE_TRY(linalg::xnnlib::ConvolutionF32::create(cs, filter, bias, n.out_min, n.out_max, &p->conv_lib));
  // Sized at load for the largest input the graph allows, when the output that input gives
  // fits the output value (run_conv checks each call's output against it again) and the
  // indirection buffer stays under 1 GiB; otherwise the first run of a shape sizes it.
  const Value& x = g.values[static_cast<size_t>(n.in[0])];
  const Value& y = g.values[static_cast<size_t>(n.out)];
  if (x.dims.n == 4 && y.dims.n == 4) {
    const bool tr = n.op == Op::ConvTranspose2d;
    const int64_t N = x.dims.d[0], H = x.dims.d[1], W = x.dims.d[2];
    int64_t OH, OW;
    conv_out_hw(n, H, W, &OH, &OW);
    const double outputs = static_cast<double>(N) * static_cast<double>(OH) * static_cast<double>(OW);
    double capacity = 1.0;
    for (int i = 0; i < y.dims.n; ++i) capacity *= static_cast<double>(y.dims.d[i]);
    const double oc = static_cast<double>(c.groups) * c.goc, taps = static_cast<double>(c.kh) * c.kw;
    if (N > 0 && OH > 0 && OW > 0 && x.dims.d[3] == static_cast<int64_t>(c.groups) * c.gic && outputs * oc <= capacity &&
        (outputs + 64.0) * taps * (tr ? static_cast<double>(c.sh) * c.sw : 1.0) * sizeof(void*) <= 1073741824.0)
      PTE_TRY(p->conv_lib->reserve(N, H, W));
  }
  std::vector<float>().swap(p->w);  // the library holds its own packed copy
  p->dw_nhwc = false;
  path->library = true;
  path->why = "XNNPACK library: " + why;
  return Status::ok();
}

// Convolution and transposed convolution: NHWC activations, the filter packed at load
// ([Cout, gic, KH, KW], or [Cin, goc, KH, KW] transposed), one ConvGeom for both.
bool run_conv(State& s, const Node& n) {
  const bool transposed = n.op == Op::ConvTranspose2d;
  const ConvParams& c = n.conv;
  const Shape xs = s.v(n.in[0]).shape;
  if (xs.n != 4) return s.ctx->fail("%s: input has %d dims, expected NHWC", op_name(n.op), xs.n);
  const int64_t N = xs.d[0], H = xs.d[1], W = xs.d[2], C = xs.d[3];
  const int64_t OC = static_cast<int64_t>(c.groups) * c.goc;
  if (C != static_cast<int64_t>(c.groups) * c.gic)
    return s.ctx->fail("%s: input has %lld channels, expected %lld", op_name(n.op), (long long)C, (long long)c.groups * c.gic);
  int64_t OH, OW;
  conv_out_hw(n, H, W, &OH, &OW);
  if (OH <= 0 || OW <= 0) {
    if (transposed)
      return s.ctx->fail("%s: the padding leaves no output for the %lldx%lld input", op_name(n.op), (long long)H, (long long)W);
    return s.ctx->fail("%s: the %lldx%lld input is smaller than the kernel", op_name(n.op), (long long)H, (long long)W);
  }
  Shape ys;
  ys.n = 4, ys.d[0] = N, ys.d[1] = OH, ys.d[2] = OW, ys.d[3] = OC;
  if (!s.set_shape(n.out, ys)) return false;
  linalg::ConvGeom g;
  g.transposed = transposed;
  g.N = N, g.Cin = C, g.Cout = OC, g.G = c.groups, g.icg = c.gic, g.ocg = c.goc;
  g.in[1] = H, g.in[2] = W, g.out[1] = OH, g.out[2] = OW, g.k[1] = c.kh, g.k[2] = c.kw;
  g.stride[1] = c.sh, g.stride[2] = c.sw, g.pad[1] = c.pad_top, g.pad[2] = c.pad_left, g.dil[1] = c.dh, g.dil[2] = c.dw;
  g.xs[0] = H * W * C, g.xs[1] = 1, g.xs[2] = 0, g.xs[3] = W * C, g.xs[4] = C;
  if (transposed) {  // [Cin, goc, KH, KW]
    g.ws[0] = static_cast<int64_t>(c.goc) * c.kh * c.kw, g.ws[1] = static_cast<int64_t>(c.kh) * c.kw;
    g.ws[2] = 0, g.ws[3] = c.kw, g.ws[4] = 1;
  } else {  // [OC, KH, KW, gic] (depthwise: gic = 1)
    g.ws[0] = static_cast<int64_t>(c.gic) * c.kh * c.kw, g.ws[1] = 1;
    g.ws[2] = 0, g.ws[3] = static_cast<int64_t>(c.kw) * c.gic, g.ws[4] = c.gic;
  }
  g.ys[0] = OH * OW * OC, g.ys[1] = 1, g.ys[2] = 0, g.ys[3] = OW * OC, g.ys[4] = OC;
  g.bias_stride = 1;
  g.weight_rows_dense = true;
  const float* x = s.ptr<float>(n.in[0]);
  const float* w = s.p().w.data();
  const float* b = n.in[2] >= 0 ? s.ptr<float>(n.in[2]) : nullptr;
  float* y = s.ptr<float>(n.out);
  if (N == 0) return true;
  if (s.p().conv_lib) return s.p().conv_lib->run(*s.ctx, N, H, W, x, y);  // bias and clamp included
  if (s.p().conv_nhwc) {  // filter and bias packed at load; bias, a fused Add (in[3]) and clamp included
    linalg::ConvNhwc q;
    if (n.nin > 3 && n.in[3] >= 0) {
      if (!(s.v(n.in[3]).shape == ys))
        return s.ctx->fail("%s: the fused Add's other operand has another shape than the convolution's output", op_name(n.op));
      q.residual = s.ptr<float>(n.in[3]);
    }
    q.N = N, q.H = H, q.W = W, q.C = C, q.OH = OH, q.OW = OW, q.OC = OC, q.KH = c.kh, q.KW = c.kw;
    q.sh = c.sh, q.sw = c.sw, q.pad_top = c.pad_top, q.pad_left = c.pad_left, q.dh = c.dh, q.dw = c.dw;
    q.out_min = n.out_min, q.out_max = n.out_max;
    q.plan = &s.p().conv_plan;
    linalg::conv_nhwc_f32(s.ctx->claim_threads, q, w, x, y);
    return true;
  }
  if (s.p().dw_nhwc) {
    linalg::DwconvNhwc d;
    d.N = N, d.H = H, d.W = W, d.C = C, d.OH = OH, d.OW = OW, d.KH = c.kh, d.KW = c.kw;
    d.sh = c.sh, d.sw = c.sw, d.pad_top = c.pad_top, d.pad_left = c.pad_left, d.dh = c.dh, d.dw = c.dw;
    d.out_min = n.out_min, d.out_max = n.out_max;
    linalg::dwconv_nhwc_f32(s.ctx->claim_threads, d, x, reinterpret_cast<const float*>(s.g->values[n.in[1]].data), b, y);
    return true;
  }
  if (!transposed && g.icg == 1 && g.G > 1)
    linalg::conv_depthwise_f32(s.ctx->threadpool, g, x, w, b, y);
  else if (!linalg::conv_f32_gemm(*s.ctx, g, x, w, b, y))
    linalg::conv_direct<float>(s.ctx->threadpool, g, x, w, b, y);
  clamp_output(n, y, ys.numel());
  return true;
}

bool run_pooling(State& s, const Node& n) {
  const ConvParams& c = n.conv;
  if (s.meta(n.in[0]).dtype != DT::F32) return s.ctx->fail("%s: only fp32 is supported", op_name(n.op));
  const Shape xs = s.v(n.in[0]).shape;
  if (xs.n != 4) return s.ctx->fail("%s: input has %d dims, expected NHWC", op_name(n.op), xs.n);
  const int64_t N = xs.d[0], H = xs.d[1], W = xs.d[2], C = xs.d[3];
  const int64_t OH = out_size(H, c.pad_top, c.pad_bottom, c.kh, c.sh, c.dh);
  const int64_t OW = out_size(W, c.pad_left, c.pad_right, c.kw, c.sw, c.dw);
  if (OH <= 0 || OW <= 0) return s.ctx->fail("%s: the input is smaller than the window", op_name(n.op));
  Shape ys;
  ys.n = 4, ys.d[0] = N, ys.d[1] = OH, ys.d[2] = OW, ys.d[3] = C;
  if (!s.set_shape(n.out, ys)) return false;
  const float* x = s.ptr<float>(n.in[0]);
  float* y = s.ptr<float>(n.out);
  if (n.op == Op::MaxPooling2d) {  // (the node's clamp fused)
    linalg::MaxPoolNhwc m;
    m.N = N, m.H = H, m.W = W, m.C = C, m.OH = OH, m.OW = OW, m.KH = c.kh, m.KW = c.kw, m.sh = c.sh, m.sw = c.sw;
    m.pad_top = c.pad_top, m.pad_left = c.pad_left, m.dh = c.dh, m.dw = c.dw;
    m.out_min = n.out_min, m.out_max = n.out_max;
    linalg::maxpool_nhwc_f32(s.ctx->claim_threads, m, x, y);
    return true;
  } else {
    // XNNPACK's average pooling (avgpool_minmax 9p kernels): the window's taps in its
    // indirection order (kernel column major, row minor; padding taps read zeros), summed
    // nine at a time as ((t0 + t1) + t8 + (t6 + t7)) + ((t2 + t3) + (t4 + t5)) onto the
    // running sum (0 at first), times 1 / (valid taps) (1 / (kh kw) without padding).
    const int64_t taps = static_cast<int64_t>(c.kh) * c.kw;
    for (int64_t b = 0; b < N; ++b)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          float* py = y + ((b * OH + oh) * OW + ow) * C;
          int64_t cnt = 0;
          for (int64_t k0 = 0; k0 < taps; k0 += 9) {
            const float* t[9];
            for (int j = 0; j < 9; ++j) {
              t[j] = nullptr;
              if (k0 + j >= taps) continue;
              const int64_t kw = (k0 + j) / c.kh, kh = (k0 + j) % c.kh;
              const int64_t ih = oh * c.sh - static_cast<int64_t>(c.pad_top) + kh * c.dh;
              const int64_t iw = ow * c.sw - static_cast<int64_t>(c.pad_left) + kw * c.dw;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              t[j] = x + ((b * H + ih) * W + iw) * C;
              ++cnt;
            }
            const bool first = k0 == 0;
            for (int64_t ch = 0; ch < C; ++ch) {
              float v[9];
              for (int j = 0; j < 9; ++j) v[j] = t[j] ? t[j][ch] : 0.0f;
              const float s018 = (v[0] + v[1]) + v[8], s2345 = (v[2] + v[3]) + (v[4] + v[5]);
              const float sum = s2345 + (s018 + (v[6] + v[7]));
              py[ch] = (first ? 0.0f : py[ch]) + sum;
            }
          }
          const float r = cnt ? 1.0f / static_cast<float>(cnt) : 0.0f;
          for (int64_t ch = 0; ch < C; ++ch) py[ch] *= r;
        }
  }
  clamp_output(n, y, ys.numel());
  return true;
}

bool run_global_avg_pool(State& s, const Node& n) {
  if (s.meta(n.in[0]).dtype != DT::F32) return s.ctx->fail("XNNGlobalAvgPooling2d: only fp32 is supported");
  const Shape xs = s.v(n.in[0]).shape;
  if (xs.n != 4) return s.ctx->fail("XNNGlobalAvgPooling2d: input has %d dims, expected NHWC", xs.n);
  const int64_t N = xs.d[0], HW = xs.d[1] * xs.d[2], C = xs.d[3];
  Shape ys;
  if (s.meta(n.out).dims.n == 4 || (n.flags & kFlagKeepDims)) {
    ys.n = 4, ys.d[0] = N, ys.d[1] = 1, ys.d[2] = 1, ys.d[3] = C;
  } else {
    ys.n = 2, ys.d[0] = N, ys.d[1] = C;
  }
  if (!s.set_shape(n.out, ys)) return false;
  const float* x = s.ptr<float>(n.in[0]);
  float* y = s.ptr<float>(n.out);
  for (int64_t b = 0; b < N; ++b) {
    float* py = y + b * C;
    for (int64_t ch = 0; ch < C; ++ch) py[ch] = 0.0f;
    for (int64_t p = 0; p < HW; ++p) {
      const float* px = x + (b * HW + p) * C;
      for (int64_t ch = 0; ch < C; ++ch) py[ch] += px[ch];
    }
    const float r = HW ? 1.0f / static_cast<float>(HW) : 0.0f;
    for (int64_t ch = 0; ch < C; ++ch) py[ch] *= r;
  }
  clamp_output(n, y, ys.numel());
  return true;
}

}  // namespace pte::xnn
