// pte-run linalg: f32 NHWC convolution as an implicit GEMM (conv_nhwc.h): the filter packing,
// the scalar micro-kernel (the reference of the SIMD ones), the patch gather and the
// threaded driver. The SIMD micro-kernels: conv_nhwc_x86.cpp (AVX-512F), conv_nhwc_neon.cpp
// (aarch64).
#include "ops/linalg/conv_nhwc.h"

#include <algorithm>
#include <cstring>

#include "ops/isa.h"
#include "ops/linalg/claim_pool.h"

namespace pte::linalg {

namespace {

constexpr int64_t kKc = 256;  // K block: a 32-channel sliver of it is 32 KB (L1)
constexpr int64_t kTm = 96;   // output pixels per task at most

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Row stride of the gathered block: the K block rounded to 16 floats plus 16, so the rows a
// micro-kernel reads at once do not share L1 sets (a plain 256-float stride puts every
// fourth row in the same set).
int64_t block_stride(int64_t kb) { return round_up(kb, 16) + 16; }

// Where a task's rows of A come from.
enum class Rows {
  Gather,    // each K block gathered into the stack block (im2col of that block only)
  Direct,    // a 1x1, stride 1, unpadded convolution: the pixels' rows in place
  Indirect,  // without dilation: each kernel row of a window in place (one segment of KW * C
             // floats), zeros for rows outside the image, a gathered copy where the window
             // leaves the image at the left or right
};

constexpr int64_t kMaxSeg = 8;  // kernel rows (segments) in one K block at most
alignas(64) const float kZeros[kKc] = {};

struct Job {
  const ConvNhwc* p;
  const float *packed, *x;
  float* y;
  ConvNhwcUkernel uk;
  int mr;
  int64_t M, Kc, S, tm, ns, nst;
  Rows rows;
  int64_t kb;   // K block (Gather, Direct); Indirect: a block is whole kernel rows, or part of one
  int64_t row;  // Indirect: floats of one kernel row (KW * C)
};

// Indirect: the length of the K block starting at p0 (whole kernel rows while they fit in
// kKc, else an equal part of one) and its segment length.
void indirect_block(const Job& j, int64_t p0, int64_t* kc, int64_t* seg) {
  if (j.row <= kKc) {
    const int64_t g = std::min<int64_t>(kMaxSeg, kKc / j.row);
    *kc = std::min(g * j.row, j.Kc - p0), *seg = j.row;
    return;
  }
  const int64_t parts = (j.row + kKc - 1) / kKc, part = (j.row + parts - 1) / parts, e = p0 % j.row;
  *kc = std::min(part, j.row - e), *seg = *kc;
}

// Indirect: the segment pointers of K block [p0, p0 + kc) for pixels m0 .. m0 + rows - 1,
// ptr[s * rows + q]; pixels whose window leaves the image sideways are gathered into buf.
void indirect_rows(const Job& j, int64_t m0, int64_t rows, int64_t p0, int64_t kc, int64_t seg, float* buf,
                   int64_t lda, const float** ptr) {
  const ConvNhwc& p = *j.p;
  const int64_t ohw = p.OH * p.OW, kh0 = p0 / j.row, e = p0 - kh0 * j.row, nseg = kc / seg;
  for (int64_t q = 0; q < rows; ++q) {
    const int64_t m = m0 + q, n = m / ohw, rem = m - n * ohw, oh = rem / p.OW, ow = rem - oh * p.OW;
    const int64_t ih0 = oh * p.sh - p.pad_top, iw0 = ow * p.sw - p.pad_left;
    const bool inside = iw0 >= 0 && iw0 + p.KW <= p.W;
    if (!inside) detail::conv_nhwc_gather(p, j.x, m, 1, p0, kc, buf + q * lda, lda);
    for (int64_t s = 0; s < nseg; ++s) {
      const int64_t ih = ih0 + (kh0 + s) * p.dh;
      const float* a;
      if (!inside) a = buf + q * lda + s * seg;
      else if (ih < 0 || ih >= p.H) a = kZeros;
      else a = j.x + ((n * p.H + ih) * p.W + iw0) * p.C + e;
      ptr[s * rows + q] = a;
    }
  }
}

void run_task(const Job& j, int64_t t) {
  const ConvNhwc& p = *j.p;
  const int64_t m0 = t / j.nst * j.tm, rows = std::min(j.tm, j.M - m0);
  const int64_t s0 = t % j.nst * j.ns, s1 = std::min(j.S, s0 + j.ns);
  alignas(64) float buf[kTm * (kKc + 32)];  // 110 KB of the thread's stack (conv_nhwc.h)
  const float* ptr[kTm * kMaxSeg];
  const float* bias = j.packed + j.S * j.Kc * kConvNhwcNr;
  const int64_t lda = block_stride(j.rows == Rows::Indirect ? kKc : j.kb);
  int64_t kc = 0, seg = 0;
  for (int64_t p0 = 0; p0 < j.Kc; p0 += kc) {
    if (j.rows == Rows::Indirect) {
      indirect_block(j, p0, &kc, &seg);
      indirect_rows(j, m0, rows, p0, kc, seg, buf, lda, ptr);
    } else {
      kc = seg = std::min(j.kb, j.Kc - p0);
      if (j.rows == Rows::Direct)
        for (int64_t q = 0; q < rows; ++q) ptr[q] = j.x + (m0 + q) * p.C + p0;
      else {
        detail::conv_nhwc_gather(p, j.x, m0, rows, p0, kc, buf, lda);
        for (int64_t q = 0; q < rows; ++q) ptr[q] = buf + q * lda;
      }
    }
    const bool first = p0 == 0, last = p0 + kc == j.Kc;
    for (int64_t s = s0; s < s1; ++s) {
      const float* b = j.packed + (s * j.Kc + p0) * kConvNhwcNr;
      const int64_t nc = std::min(kConvNhwcNr, p.OC - s * kConvNhwcNr);
      // The filter block this task multiplies next (the next sliver, or the first of the next
      // K block) is requested a slice per micro-tile, a line each k step inside the product,
      // while this block is read from L1.
      const int64_t sn = s + 1 < s1 ? s + 1 : s0, pn = s + 1 < s1 ? p0 : p0 + kc;
      const char* nb = pn < j.Kc ? reinterpret_cast<const char*>(j.packed + (sn * j.Kc + pn) * kConvNhwcNr) : nullptr;
      const int64_t nbytes = nb ? std::min(kKc, j.Kc - pn) * kConvNhwcNr * static_cast<int64_t>(sizeof(float)) : 0;
      const int64_t tiles = (rows + j.mr - 1) / j.mr, slice = (nbytes / tiles + 63) / 64 * 64;
      int64_t pf = 0;
      for (int64_t i = 0; i < rows; i += j.mr) {
        const int mr = static_cast<int>(std::min<int64_t>(j.mr, rows - i));
        const int64_t lines = (std::min(nbytes, pf + slice) - pf + 63) / 64;
        const int64_t at = (m0 + i) * p.OC + s * kConvNhwcNr;
        j.uk(mr, kc, seg, ptr + i, rows, b, j.y + at, p.OC, nc, bias + s * kConvNhwcNr,
             p.residual ? p.residual + at : nullptr, first, last, p.out_min, p.out_max, nb + pf, std::max<int64_t>(0, lines));
        pf += lines * 64;
      }
    }
  }
}

// Pixel rows (tm, a multiple of mr, at most kTm) and slivers (ns) per task. Tasks are claimed
// in order (pixel blocks outer) by `threads` threads as each gets free; the plan with the
// earliest finish of that list schedule wins, ties to fewer tasks. A task costs its
// multiply-adds, plus its patch gather (kGatherCost a gathered element) and its slivers'
// stream in (kStreamCost a filter element when the filter does not stay in L2, once a
// task): from 3x3 256 -> 256 at 14 x 14 on 2 threads, where 3 pixel blocks of all slivers
// took 0.51 ms, 24 single-sliver tasks 0.71 ms and 8 half-sliver tasks 0.63 ms.
// Many pixel blocks (8 a thread): blocks of kTm, every sliver, no search.
constexpr double kGatherCost = 16, kStreamCost = 24, kStreamCostL2 = 4;

double list_schedule(int64_t M, int64_t S, int64_t Kc, int64_t rows, int64_t per, int threads, double stream) {
  double busy[16] = {};
  const int nt = std::min(threads, 16);
  const int64_t mtasks = (M + rows - 1) / rows, nst = (S + per - 1) / per;
  for (int64_t t = 0; t < mtasks * nst; ++t) {
    const int64_t r = std::min(rows, M - t / nst * rows), sl = std::min(per, S - t % nst * per);
    const double cost = static_cast<double>(Kc) * (static_cast<double>(r) * (sl * kConvNhwcNr + kGatherCost) +
                                                   stream * static_cast<double>(sl) * kConvNhwcNr);
    int first = 0;
    for (int i = 1; i < nt; ++i)
      if (busy[i] < busy[first]) first = i;
    busy[first] += cost;
  }
  double span = 0;
  for (int i = 0; i < nt; ++i) span = std::max(span, busy[i]);
  return span;
}

void plan_tasks(int64_t M, int64_t S, int64_t Kc, int mr, int threads, int64_t* tm, int64_t* ns) {
  const int64_t tm_max = kTm / mr * mr, mt_min = (M + tm_max - 1) / tm_max;
  *tm = std::min(tm_max, round_up((M + mt_min - 1) / mt_min, mr));
  *ns = S;
  if (threads <= 1 || mt_min >= 8 * threads) return;
  const double stream = static_cast<double>(S) * kConvNhwcNr * Kc * sizeof(float) > 512.0 * 1024 ? kStreamCost : kStreamCostL2;
  double best = 0;
  int64_t best_tasks = 0;
  for (int64_t rows = mr; rows <= tm_max; rows += mr) {
    const int64_t mtasks = (M + rows - 1) / rows;
    if (rows - mr >= M) break;  // the previous block size already held every pixel
    for (int64_t nst : {1, 2, 3, 4, 6, 8, 12, 16}) {
      if (nst > S) break;
      const int64_t per = (S + nst - 1) / nst, tasks = mtasks * ((S + per - 1) / per);
      if (tasks > 64 && best_tasks) continue;
      const double span = list_schedule(M, S, Kc, rows, per, threads, stream);
      if (best_tasks == 0 || span < best * 0.999 || (span <= best * 1.001 && tasks < best_tasks)) {
        best = span, best_tasks = tasks;
        *tm = rows, *ns = per;
      }
    }
  }
}

}  // namespace

namespace detail {

// (conv_nhwc.h) Without dilation the taps of one kernel row lie side by side in an NHWC row
// (KW * C floats): one copy a kernel row, its ends clipped to the image (a 3-channel 7 x 7
// stem: 7 copies of 21 floats a pixel, not 49 of 3).
void conv_nhwc_gather(const ConvNhwc& p, const float* x, int64_t m0, int64_t rows, int64_t p0, int64_t kc, float* a,
                      int64_t lda) {
  const int64_t ohw = p.OH * p.OW, C = p.C;
  const int64_t run = p.dw == 1 ? p.KW * C : C;  // floats of one contiguous stretch of taps
  for (int64_t q = 0; q < rows; ++q) {
    const int64_t m = m0 + q, n = m / ohw, rem = m - n * ohw, oh = rem / p.OW, ow = rem - oh * p.OW;
    const int64_t ih0 = oh * p.sh - p.pad_top, iw0 = ow * p.sw - p.pad_left;
    const float* xn = x + n * p.H * p.W * C;
    float* dst = a + q * lda;
    int64_t r = p0;
    const int64_t end = p0 + kc;
    while (r < end) {
      const int64_t tap = r / C, kh = tap / p.KW, kw = tap - kh * p.KW;
      // this stretch: from (kw, c) to the end of the kernel row (dw == 1) or of the tap
      const int64_t e0 = p.dw == 1 ? kw * C + (r - tap * C) : r - tap * C;
      const int64_t len = std::min(run - e0, end - r);
      const int64_t ih = ih0 + kh * p.dh;
      const int64_t iw = p.dw == 1 ? iw0 : iw0 + kw * p.dw;  // the input column of the stretch's element 0
      // valid elements of [e0, e0 + len): 0 <= iw * C + e < W * C
      const int64_t lo = ih < 0 || ih >= p.H ? e0 + len : std::min(e0 + len, std::max(e0, -iw * C));
      const int64_t hi = std::max(lo, std::min(e0 + len, (p.W - iw) * C));
      if (lo > e0) std::memset(dst, 0, static_cast<size_t>(lo - e0) * sizeof(float));
      if (hi > lo) std::memcpy(dst + (lo - e0), xn + (ih * p.W + iw) * C + lo, static_cast<size_t>(hi - lo) * sizeof(float));
      if (e0 + len > hi) std::memset(dst + (hi - e0), 0, static_cast<size_t>(e0 + len - hi) * sizeof(float));
      dst += len;
      r += len;
    }
  }
}

}  // namespace detail

size_t conv_nhwc_packed_floats(int64_t OC, int64_t Kc) {
  const int64_t S = (OC + kConvNhwcNr - 1) / kConvNhwcNr;
  return static_cast<size_t>(S * kConvNhwcNr * (Kc + 1));
}

void conv_nhwc_pack_f32(const float* filter, const float* bias, int64_t OC, int64_t Kc, float* packed) {
  const int64_t S = (OC + kConvNhwcNr - 1) / kConvNhwcNr;
  for (int64_t s = 0; s < S; ++s)
    for (int64_t r = 0; r < Kc; ++r)
      for (int64_t j = 0; j < kConvNhwcNr; ++j) {
        const int64_t o = s * kConvNhwcNr + j;
        packed[(s * Kc + r) * kConvNhwcNr + j] = o < OC ? filter[o * Kc + r] : 0.0f;
      }
  float* pb = packed + S * Kc * kConvNhwcNr;
  for (int64_t o = 0; o < S * kConvNhwcNr; ++o) pb[o] = bias && o < OC ? bias[o] : 0.0f;
}

void conv_nhwc_ukernel_scalar(int mr, int64_t kc, int64_t seg, const float* const* a, int64_t a_ss, const float* b,
                              float* c, int64_t c_rs, int64_t nc, const float* bias, const float* res, bool first,
                              bool last, float lo, float hi, const char*, int64_t) {
  constexpr int MR = kConvNhwcMrScalar, NR = static_cast<int>(kConvNhwcNr);
  float acc[MR][NR] = {};
  for (int64_t k = 0; k < kc; ++k)
    for (int r = 0; r < mr; ++r) {
      const float av = a[k / seg * a_ss + r][k % seg];
      for (int j = 0; j < NR; ++j) acc[r][j] += av * b[k * NR + j];
    }
  for (int r = 0; r < mr; ++r)
    for (int64_t j = 0; j < nc; ++j) {
      float v = (first ? bias[j] : c[r * c_rs + j]) + acc[r][j];
      if (last && res) v += res[r * c_rs + j];
      if (last) v = std::min(std::max(v, lo), hi);
      c[r * c_rs + j] = v;
    }
}

ConvNhwcUkernel conv_nhwc_simd_ukernel(int* mr) {
  const isa::Features& f = isa::cpu();
  (void)f;
#if defined(__x86_64__)
  if (f.avx512f && f.avx2_fma()) return *mr = kConvNhwcMrAvx512f, conv_nhwc_ukernel_avx512f;
#elif defined(__aarch64__)
  if (f.neon) return *mr = kConvNhwcMrNeon, conv_nhwc_ukernel_neon;
#endif
  *mr = 0;
  return nullptr;
}

bool conv_nhwc_has_simd() {
  int mr;
  return conv_nhwc_simd_ukernel(&mr) != nullptr;
}

void conv_nhwc_f32(int threads, const ConvNhwc& p, const float* packed, const float* x, float* y, ConvNhwcIsa isa) {
  const int64_t M = p.N * p.OH * p.OW;
  if (M <= 0 || p.OC <= 0) return;
  Job j{&p, packed, x, y, conv_nhwc_ukernel_scalar, kConvNhwcMrScalar, M, p.KH * p.KW * p.C, 0, 0, 0, 0,
        Rows::Gather, 0, p.KW * p.C};
  // Pixels in place (1x1) or kernel rows in place (indirect), unless neighbouring pixels lie
  // a multiple of 4 KB apart (a micro-tile's rows would all share one L1 set): then gathered.
  // ResNet-50, 4 interleaved pairs: the 1 KB rule of the in-place 1x1 extended to 4 KB and
  // the 3x3 layers read in place, 19.6 -> 19.3 ms.
  const bool l1_ok = (p.sw * p.C * static_cast<int64_t>(sizeof(float))) % 4096 != 0;
  if (p.KH == 1 && p.KW == 1 && p.sh == 1 && p.sw == 1 && p.pad_top == 0 && p.pad_left == 0 && p.OH == p.H &&
      p.OW == p.W && l1_ok)
    j.rows = Rows::Direct;
  else if (p.dw == 1 && l1_ok)
    j.rows = Rows::Indirect;
  const int64_t nkb = (j.Kc + kKc - 1) / kKc;
  j.kb = std::min(kKc, round_up((j.Kc + nkb - 1) / nkb, 16));  // equal K blocks: 576 = 3 x 192
  int simd_mr = 0;
  ConvNhwcUkernel simd = isa == ConvNhwcIsa::Auto ? conv_nhwc_simd_ukernel(&simd_mr) : nullptr;
  if (simd) {
    j.uk = simd, j.mr = simd_mr;
#if defined(__x86_64__)
    // Tiles of 8 pixels, or 7 when that leaves the smaller partial tile: images of 7 x 2^k
    // (ResNet's 56, 28, 14, 7) have 49 * 4^k pixels, and 49 = 6 x 8 + a lone pixel, whose
    // one-row tile does 2 FMAs a k for 3 loads (3x3 512 -> 512 at 7 x 7: 0.51 -> 0.48 ms).
    if ((M + 6) / 7 * 7 - M < (M + 7) / 8 * 8 - M) j.mr = 7;
#endif
  }
  j.S = (p.OC + kConvNhwcNr - 1) / kConvNhwcNr;
  const double macs = static_cast<double>(M) * p.OC * static_cast<double>(j.Kc);
  const int threads_used = macs >= 1.0e6 ? std::max(1, threads) : 1;
  if (p.plan && p.plan->M == M && p.plan->threads == threads_used && p.plan->mr == j.mr) {
    j.tm = p.plan->tm, j.ns = p.plan->ns;
  } else {
    plan_tasks(M, j.S, j.Kc, j.mr, threads_used, &j.tm, &j.ns);
    if (p.plan) *p.plan = ConvNhwcPlan{M, j.tm, j.ns, threads_used, j.mr};
  }
  j.nst = (j.S + j.ns - 1) / j.ns;
  const int64_t mtasks = (M + j.tm - 1) / j.tm;
  auto run = [](void* ctx, int64_t t) { run_task(*static_cast<const Job*>(ctx), t); };
  claim_parallel_for(threads_used - 1, mtasks * j.nst, run, &j);
}

}  // namespace pte::linalg
