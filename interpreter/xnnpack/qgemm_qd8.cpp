// qd8 GEMM: ISA choice at run time, activation preparation, threads (see qgemm_qd8.h).
#include "interpreter/xnnpack/qgemm_qd8.h"

#include <cpuinfo.h>
#include <pthreadpool.h>

#include <algorithm>

#include "ops/linalg/gemm.h"

namespace pte::xnn {

bool cpu_has_avx512_vnni() {
  static const bool has = cpuinfo_initialize() && cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() &&
                          cpuinfo_has_x86_avx512vl() && cpuinfo_has_x86_avx512vnni();
  return has;
}

bool qd8_simd_supported(const QGemm& q) {
  if (q.M <= 0 || q.N <= 0 || q.K <= 0 || q.block <= 0 || q.K % q.block != 0) return false;
  if (q.wkind == QWeights::U4) return q.block % 32 == 0 && q.w_row_bytes == q.K / 2;
  return q.block % 16 == 0 && q.w_row_bytes == q.K;
}

void qd8_prepare_x(const QGemm& q, uint8_t* xp) {
  const uint8_t* x = reinterpret_cast<const uint8_t*>(q.x);
  const int64_t n = q.M * q.K;
  if (q.wkind == QWeights::I8) {
    for (int64_t i = 0; i < n; ++i) xp[i] = x[i] ^ 0x80;
    return;
  }
  // per 32 k (K % 32 == 0): the 16 even k, then the 16 odd k (low, high nibbles of 16 bytes)
  for (int64_t c = 0; c < n; c += 32)
    for (int i = 0; i < 16; ++i) {
      xp[c + i] = x[c + 2 * i] ^ 0x80;
      xp[c + 16 + i] = x[c + 2 * i + 1] ^ 0x80;
    }
}

size_t qgemm_qd8_scratch_bytes(const QGemm& q) { return static_cast<size_t>(std::max<int64_t>(q.M * q.K, 0)); }

namespace {

struct Task {
  const QGemm* q;
  const uint8_t* xp;
  QIsa isa;
};

void run_tile(void* ctx, size_t m0, size_t n0, size_t tm, size_t tn) {
  const Task& t = *static_cast<const Task*>(ctx);
  const int64_t a = static_cast<int64_t>(m0), b = a + static_cast<int64_t>(tm);
  const int64_t c = static_cast<int64_t>(n0), d = c + static_cast<int64_t>(tn);
  switch (t.isa) {
    case QIsa::Avx512: qgemm_qd8_avx512(*t.q, t.xp, a, b, c, d); break;
    case QIsa::Avx2: qgemm_qd8_avx2(*t.q, t.xp, a, b, c, d); break;
    default: qgemm_qd8_scalar(*t.q, a, b, c, d); break;
  }
}

}  // namespace

void qgemm_qd8(pthreadpool* pool, const QGemm& q, void* scratch, QIsa isa) {
  if (q.M <= 0 || q.N <= 0) return;
  const bool simd = scratch && qd8_simd_supported(q);
  if (isa == QIsa::Auto) isa = !simd ? QIsa::Scalar : cpu_has_avx512_vnni() ? QIsa::Avx512 : linalg::cpu_has_avx2_fma() ? QIsa::Avx2 : QIsa::Scalar;
  if (!simd || (isa == QIsa::Avx512 && !cpu_has_avx512_vnni()) || (isa == QIsa::Avx2 && !linalg::cpu_has_avx2_fma()))
    isa = QIsa::Scalar;
  Task t{&q, static_cast<const uint8_t*>(scratch), isa};
  if (isa != QIsa::Scalar) qd8_prepare_x(q, static_cast<uint8_t*>(scratch));
  // Tiles: 64 columns (a multiple of every kernel's width) x 32 rows; the kernels walk
  // rows inside a column group, so a tile's weights stay in cache across its rows.
  const size_t tn = 64, tm = 32;
  const size_t M = static_cast<size_t>(q.M), N = static_cast<size_t>(q.N);
  const size_t tiles = ((M + tm - 1) / tm) * ((N + tn - 1) / tn);
  const double work = static_cast<double>(q.M) * static_cast<double>(q.N) * static_cast<double>(q.K);
  if (!pool || tiles <= 1 || pthreadpool_get_threads_count(pool) <= 1 || work < 65536.0) {
    run_tile(&t, 0, 0, M, N);
    return;
  }
  pthreadpool_parallelize_2d_tile_2d(pool, run_tile, &t, M, N, tm, tn, 0);
}

}  // namespace pte::xnn
