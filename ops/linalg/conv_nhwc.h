// pte-run linalg: f32 2-D convolution on NHWC tensors (groups of 1) as an implicit GEMM, the
// way the XNNPACK delegate stores it: input [N, H, W, C], filter OHWI [OC, KH, KW, C], output
// [N, OH, OW, OC], bias and the node's clamp fused into the last store.
//
// Rows of the product are output pixels, columns output channels, the reduction runs over
// Kc = KH * KW * C in the filter's (kh, kw, c) order. At load the filter is packed into
// slivers of kConvNhwcNr output channels ([Kc][32] each, zero-padded) followed by the bias
// (padded, zeros without one): conv_nhwc_pack_f32. Per call each task takes a block of output
// pixels and a range of slivers, and per K block of at most 256 points the micro-kernel at
// each pixel's row of A: a 1x1 stride-1 convolution's pixels in place; without dilation each
// kernel row of a window in place (KW * C contiguous floats; zeros for rows outside the
// image, a copy for a window that leaves it sideways); otherwise (dilation, or neighbouring
// pixels a multiple of 4 KB apart) the pixels' patches gathered into a row-major block on
// the task's stack (im2col for that block only). The micro-kernel runs MR pixels x 32
// channels, the B sliver read contiguously from the packed filter; the first K block starts
// from the bias, the last one clamps: one pass over the output. The gathered block (at most
// 96 pixels x 288 floats, 110 KB) and the row pointers (6 KB) live on the stack of the
// thread running the task: nothing is allocated per call, but a caller's thread needs that
// much stack (glibc's default is 8 MB; the claim pool's helpers have it).
//
// Micro-kernels (conv_nhwc_ukernel_<isa>) are tested against the scalar reference
// (ops/linalg/conv_nhwc_test.cpp), the whole convolution against plain loops.
#pragma once
#include <cstddef>
#include <cstdint>

namespace pte::linalg {

constexpr int64_t kConvNhwcNr = 32;  // output channels per packed sliver

// The task plan of the last call (conv_nhwc_f32 fills it; reused while the output's pixels
// and the thread count stay the same): the caller keeps one per convolution so the list
// schedule's search (3% of a MobileNetV2 forward's samples) runs once, not every call.
struct ConvNhwcPlan {
  int64_t M = -1, tm = 0, ns = 0;
  int threads = 0, mr = 0;
};

struct ConvNhwc {
  int64_t N = 0, H = 0, W = 0, C = 0;  // input
  int64_t OH = 0, OW = 0, OC = 0;      // output (the caller's conv arithmetic)
  int64_t KH = 1, KW = 1;
  int64_t sh = 1, sw = 1, pad_top = 0, pad_left = 0, dh = 1, dw = 1;
  float out_min = -__builtin_inff(), out_max = __builtin_inff();
  // A residual added before the clamp (a following Add fused at load), laid out as the
  // output ([N, OH, OW, OC]); null: none. Added to the finished sum, as the Add would.
  const float* residual = nullptr;
  // Where the plan is kept between calls (null: planned every call). Not shared by calls
  // that run at the same time.
  ConvNhwcPlan* plan = nullptr;
};

// Floats of the packed filter + bias for OC output channels and Kc = KH * KW * C.
size_t conv_nhwc_packed_floats(int64_t OC, int64_t Kc);
// filter: [OC][Kc] (OHWI, read with its row stride Kc); bias: OC floats or null.
void conv_nhwc_pack_f32(const float* filter, const float* bias, int64_t OC, int64_t Kc, float* packed);

// C[mr x nc] (+)= A[mr x kc] @ B[kc x 32], B the packed sliver (rows 32 floats apart), C rows
// c_rs apart, nc <= 32 columns stored. Each row of A is kc / seg segments of seg contiguous
// floats: segment s of row r starts at a[s * a_ss + r] (one segment when seg == kc: a
// gathered block's rows, or pixels read in place; several: a window's kernel rows read
// where they lie in the input, as an indirect GEMM). first: C = bias + A@B (bias: 32 floats)
// instead of C += A@B; last: then + res (when not null: rows c_rs apart, as C) and the
// result clamped to [lo, hi]. pf: pf_lines cache lines from there are requested into L2, one
// a k step while the product runs (the filter block the caller multiplies next; the scalar
// kernel ignores them).
using ConvNhwcUkernel = void (*)(int mr, int64_t kc, int64_t seg, const float* const* a, int64_t a_ss, const float* b,
                                 float* c, int64_t c_rs, int64_t nc, const float* bias, const float* res, bool first,
                                 bool last, float lo, float hi, const char* pf, int64_t pf_lines);
constexpr int kConvNhwcMrScalar = 4;
void conv_nhwc_ukernel_scalar(int mr, int64_t kc, int64_t seg, const float* const* a, int64_t a_ss, const float* b, float* c, int64_t c_rs,
                              int64_t nc, const float* bias, const float* res, bool first, bool last, float lo, float hi, const char* pf, int64_t pf_lines);
#if defined(__x86_64__)
constexpr int kConvNhwcMrAvx512f = 8;
void conv_nhwc_ukernel_avx512f(int mr, int64_t kc, int64_t seg, const float* const* a, int64_t a_ss, const float* b,
                               float* c, int64_t c_rs, int64_t nc, const float* bias, const float* res, bool first, bool last,
                               float lo, float hi, const char* pf, int64_t pf_lines);
#endif
#if defined(__aarch64__)
constexpr int kConvNhwcMrNeon = 4;
void conv_nhwc_ukernel_neon(int mr, int64_t kc, int64_t seg, const float* const* a, int64_t a_ss, const float* b, float* c, int64_t c_rs,
                            int64_t nc, const float* bias, const float* res, bool first, bool last, float lo, float hi, const char* pf, int64_t pf_lines);
#endif

enum class ConvNhwcIsa { Auto, Scalar };

// This CPU's SIMD micro-kernel (AVX-512F; NEON on aarch64) and its most rows (*mr), or null.
ConvNhwcUkernel conv_nhwc_simd_ukernel(int* mr);
// True when this CPU has a SIMD micro-kernel here: the delegate's policy runs convolutions
// here only then (elsewhere the XNNPACK library or the strided engine of conv.h).
bool conv_nhwc_has_simd();

namespace detail {
// The patch block of one task: a[q * lda + r - p0] = the input under column r (tap (kh, kw),
// channel c) of output pixel m0 + q, zero where the tap falls in the padding, for columns
// [p0, p0 + kc); nothing else of `a` is written.
void conv_nhwc_gather(const ConvNhwc& p, const float* x, int64_t m0, int64_t rows, int64_t p0, int64_t kc, float* a,
                      int64_t lda);
}  // namespace detail

// The whole output on the calling thread and up to threads - 1 claim-pool helpers.
// packed: conv_nhwc_pack_f32's output for this OC and Kc.
void conv_nhwc_f32(int threads, const ConvNhwc& p, const float* packed, const float* x, float* y,
                   ConvNhwcIsa isa = ConvNhwcIsa::Auto);

}  // namespace pte::linalg
