// pte-run: the system XNNPACK library's fp32 NHWC convolution and transposed convolution
// operators (xnn_library.h: the same library, initialisation and policy as the fully
// connected one), for the XNNPACK delegate's Conv2d / DepthwiseConv2d / ConvTranspose2d nodes.
//
// Created at load from the node's constant filter, in the layout the delegate's blob
// stores (XNNPACK's own): convolution [groups * goc, KH, KW, gic], depthwise [1, KH, KW,
// groups * goc] (XNN_FLAG_DEPTHWISE_CONVOLUTION), transposed [groups * goc, KH, KW, gic].
// The library packs the filter into its own buffer, so the file's pages need not stay.
// `reserve` sets the operator up once at load for the largest input shape the graph allows
// (the library sizes its indirection buffer there), so a run only recomputes it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "ops/kernel.h"
#include "pte/program.h"
#include "pte/status.h"

namespace pte::linalg::xnnlib {

enum class ConvKind : uint8_t { Conv, Depthwise, Transposed };

struct ConvShape {
  ConvKind kind = ConvKind::Conv;
  uint32_t pad_top = 0, pad_right = 0, pad_bottom = 0, pad_left = 0;
  uint32_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  uint32_t groups = 1, gic = 1, goc = 1;
  uint32_t adj_h = 0, adj_w = 0;  // transposed: output_padding
};

// Whether convolutions run on the library under policy `p` (`why`: the reason shown by
// `pte-run info`).
bool choose_conv(XnnpackPolicy p, std::string* why);

class ConvolutionF32 {
 public:
  ~ConvolutionF32();
  ConvolutionF32(const ConvolutionF32&) = delete;
  ConvolutionF32& operator=(const ConvolutionF32&) = delete;

  // filter: in the layout above; bias: groups * goc floats or null.
  static Status create(const ConvShape& c, const float* filter, const float* bias, float out_min, float out_max,
                       std::unique_ptr<ConvolutionF32>* out);
  // One setup for an N x H x W input (at load: the graph's largest), with a placeholder pointer.
  Status reserve(int64_t N, int64_t H, int64_t W);
  // y (NHWC, groups * goc channels) from x (NHWC, groups * gic channels) on ctx.threadpool;
  // false with ctx.fail on a library error.
  bool run(KernelContext& ctx, int64_t N, int64_t H, int64_t W, const float* x, float* y) const;

 private:
  ConvolutionF32() = default;
  void* op_ = nullptr;  // xnn_operator_t
  ConvShape c_;
};

}  // namespace pte::linalg::xnnlib
