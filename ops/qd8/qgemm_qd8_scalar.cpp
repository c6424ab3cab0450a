// qd8 GEMM, the scalar reference (see qgemm_qd8.h). Any shape and block size.
#if !defined(__clang__)  // (the build passes -ffp-contract=off; clang has no optimize pragma)
#pragma GCC optimize("fp-contract=off")
#endif
#include "ops/qd8/qgemm_qd8.h"
#include "ops/qd8/qgemm_qd8_epilogue.h"

namespace pte::xnn {

namespace {
inline int32_t weight(const QGemm& q, const uint8_t* row, int64_t k) {
  if (q.wkind == QWeights::I8) return static_cast<int8_t>(row[k]);
  const uint8_t b = row[k >> 1];
  return static_cast<int32_t>((k & 1) ? (b >> 4) : (b & 15)) - 8;
}
}  // namespace

void qgemm_qd8_scalar(const QGemm& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  const int64_t nb = q.block ? q.K / q.block : 0;
  const bool has_wsum = qd8_has_wsum(q);
  for (int64_t m = m0; m < m1; ++m) {
    const int8_t* x = q.x + m * q.K;
    const int32_t xz = qd8_dot_zp(q, m);
    for (int64_t n = n0; n < n1; ++n) {
      const uint8_t* w = q.w + n * q.w_row_bytes;
      const float bias = q.bias ? q.bias[n] : 0.0f;
      float acc = q.ksum ? qd8_acc_init<Qd8Ops1>(q.ksum[n], q.x_zp[m]) : 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        int32_t dot = 0, wsum = 0;
        for (int64_t k = b * q.block; k < (b + 1) * q.block; ++k) {
          const int32_t wk = weight(q, w, k);
          dot += static_cast<int32_t>(x[k]) * wk, wsum += wk;
        }
        dot -= xz * (has_wsum ? qd8_wsum(q, b, n) : wsum);
        if (!q.ksum) {  // per channel: one block
          acc = qd8_output_channel<Qd8Ops1>(dot, q.x_scale[m], qd8_scale(q, b, n), bias);
          continue;
        }
        acc = qd8_block_step<Qd8Ops1>(acc, dot, qd8_scale(q, b, n));
      }
      q.y[m * q.N + n] = q.ksum ? qd8_output<Qd8Ops1>(acc, q.x_scale[m], bias) : acc;
    }
  }
}

float qd8_ksum_u4(const uint8_t* row, int64_t K, int64_t block, const float* block_scales) {
  float acc = 0.0f;
  if (block % 16 == 0 && K % 16 == 0) {  // whole bytes: 16 values = 8 bytes, nibble sums by table
    static const struct Table {
      uint8_t v[256];
      Table() {
        for (int b = 0; b < 256; ++b) v[b] = static_cast<uint8_t>((b & 15) + (b >> 4));
      }
    } t;
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      const uint8_t* p = row + k0 / 2;
      int32_t sum = -128;  // 16 x the zero point 8
      for (int i = 0; i < 8; ++i) sum += t.v[p[i]];
      acc = acc - static_cast<float>(sum) * block_scales[k0 / block];
    }
    return acc;
  }
  for (int64_t k0 = 0; k0 < K;) {
    int64_t end = k0 + 16;
    if (end > (k0 / block + 1) * block) end = (k0 / block + 1) * block;
    if (end > K) end = K;
    int32_t sum = 0;
    for (int64_t k = k0; k < end; ++k) sum += static_cast<int32_t>((k & 1) ? (row[k >> 1] >> 4) : (row[k >> 1] & 15)) - 8;
    acc = acc - static_cast<float>(sum) * block_scales[k0 / block];
    k0 = end;
  }
  return acc;
}

}  // namespace pte::xnn
