// pte-run linalg: a fully connected layer with half-precision weights read in place
// (the fp16 graphs of the XNNPACK delegate): y = x W^T (+ bias), x and y fp32, W [N, K]
// IEEE fp16 bits. Widening W to fp32 at load doubles the bytes every decode step reads
// and the resident weights; here the kernels convert each weight as they read it.
//
//   fc_f16w_ref        plain loops: each weight converted, products summed in k order in
//                      float, then the bias added. The reference.
//   f16w_dots_*        M <= 8 (decode): each weight row read once for all M rows, two rows
//                      at a time; scalar, AVX2+F16C, AVX-512F, NEON (aarch64).
//   f16w_dots_avx512f  also 9 <= M <= 32 (short prompts): tiles of 4 rows x 6 weight rows, each
//                      weight converted as loaded, the next tile's weight rows prefetched.
//   sliver             AVX-512F, M > 32, and aarch64 NEON, M > 8 (prefill): per tile of 32 columns and K block the
//                      weights converted straight into a packed 32-column sliver on the stack
//                      (f16_to_sliver), then conv_nhwc's micro-kernel (conv_nhwc.h) over
//                      the rows, bias first, while the next block's weight rows are
//                      requested a slice per micro-tile.
//   blocked            M > 8 elsewhere (AVX2, armv7 NEON, scalar): per column tile and K block, the
//                      weights converted to fp32 on the stack (32 x 256), then the fp32 GEMM
//                      tile of the same ISA (gemm.h) accumulates into y.
//   fc_f16w(threads)   picks the variant and splits columns (and row tiles) over the
//                      caller and the claim pool's helpers (claim_pool.h).
//   convert_f16_to_f32 / convert_f32_to_f16   rows of values (AVX-512F, F16C, NEON or scalar; round
//                      to nearest even, as ops/util.h's half_bits_to_float / float_to_half_bits).
#pragma once
#include <cstdint>

namespace pte::linalg {

struct FcF16w {
  int64_t M = 0, N = 0, K = 0;
  const float* x = nullptr;  // row m at x + m * x_rs, K contiguous values
  int64_t x_rs = 0;
  const uint16_t* w = nullptr;  // [N, K], row n at w + n * K
  const float* bias = nullptr;  // N values, or null
  float* y = nullptr;           // row m at y + m * y_rs, N contiguous values
  int64_t y_rs = 0;
};

enum class F16wIsa { Auto, Scalar, Avx2F16c, Avx512f, Neon };
// The widest variant this CPU runs (AVX-512F, AVX2+FMA+F16C, NEON on aarch64, scalar);
// PTE_GEMM_ISA=scalar|avx2 caps it as it caps gemm_auto_isa().
F16wIsa f16w_auto_isa();
bool f16w_isa_supported(F16wIsa isa);

void fc_f16w_ref(const FcF16w& p);
// threads: the caller and threads - 1 helpers. isa: a variant the CPU has (tests), or Auto.
void fc_f16w(int threads, const FcF16w& p, F16wIsa isa = F16wIsa::Auto);

void convert_f16_to_f32(const uint16_t* h, float* f, int64_t n);
void convert_f32_to_f16(const float* f, uint16_t* h, int64_t n);
// y = x rounded to fp16 and back (fp32 -> fp16 -> fp32 in one pass; y may be x).
void round_through_f16(const float* x, float* y, int64_t n);

// The per-ISA pieces (fc_f16w's; declared for the tests). Columns [n0, n1), all M rows.
void f16w_dots_scalar(const FcF16w& p, int64_t n0, int64_t n1);
void f16w_dots_avx2(const FcF16w& p, int64_t n0, int64_t n1);
void f16w_dots_avx512f(const FcF16w& p, int64_t n0, int64_t n1);
void f16w_dots_neon(const FcF16w& p, int64_t n0, int64_t n1);  // aarch64
// sum_{k0 <= k < K} x[k] w[k] in k order (the SIMD variants' K tail past their vector width)
float f16w_tail_dot(const float* x, const uint16_t* w, int64_t k0, int64_t K);
// Weight rows [nc <= 32][kc] (row stride K) into a sliver [kc][32] of fp32, columns nc..31
// zero (the layout of conv_nhwc's micro-kernels): the reference, AVX-512F (16 x 16 blocks
// transposed in registers) and NEON (4 x 4 blocks).
void f16_to_sliver_scalar(const uint16_t* w, int64_t K, int64_t nc, int64_t kc, float* sl);
void f16_to_sliver_avx512f(const uint16_t* w, int64_t K, int64_t nc, int64_t kc, float* sl);  // x86-64
void f16_to_sliver_neon(const uint16_t* w, int64_t K, int64_t nc, int64_t kc, float* sl);     // aarch64
void f16_to_f32_scalar(const uint16_t* h, float* f, int64_t n);
void f32_to_f16_scalar(const float* f, uint16_t* h, int64_t n);
void f16_to_f32_f16c(const uint16_t* h, float* f, int64_t n);  // x86-64 with F16C
void f32_to_f16_f16c(const float* f, uint16_t* h, int64_t n);
void f16_to_f32_avx512f(const uint16_t* h, float* f, int64_t n);  // x86-64 with AVX-512F
void f32_to_f16_avx512f(const float* f, uint16_t* h, int64_t n);
void f16_to_f32_neon(const uint16_t* h, float* f, int64_t n);  // aarch64
void f32_to_f16_neon(const float* f, uint16_t* h, int64_t n);

}  // namespace pte::linalg
