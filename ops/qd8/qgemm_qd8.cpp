// qd8 GEMM: ISA choice at run time, activation preparation, threads (see qgemm_qd8.h).
#include "ops/qd8/qgemm_qd8.h"

#include <pthreadpool.h>

#include <algorithm>
#include <cstring>

#include "ops/linalg/claim_pool.h"
#include "ops/isa.h"
#include "ops/linalg/gemm.h"

namespace pte::xnn {

bool cpu_has_avx512_vnni() { return pte::isa::cpu().avx512_vnni(); }
bool cpu_has_amx_int8() { return pte::isa::cpu().amx_int8; }

bool qd8_simd_supported(const QGemm& q) {
  if (q.M <= 0 || q.N <= 0 || q.K <= 0 || q.block <= 0 || q.K % q.block != 0) return false;
  if (q.wkind == QWeights::U4) return q.wp && q.block % 8 == 0;
  return q.block % 16 == 0 && q.w_row_bytes == q.K && qd8_meta_stride(q) >= q.N && qd8_has_wsum(q) &&
         (q.w_scale || q.w_scale_bf16);
}

size_t qd8_packed_u4_bytes(int64_t N, int64_t K, int64_t block, bool bf16) {
  return static_cast<size_t>((N + 15) / 16 * (K / block) * qd8_u4_block_bytes(block, bf16));
}

void qd8_pack_u4(const uint8_t* w, const float* scales, bool bf16, int64_t N, int64_t K, int64_t block, int64_t S,
                 uint8_t* out, int32_t* wsum32, int16_t* wsum16) {
#if defined(__x86_64__)
  if (cpu_has_avx512_vnni()) return qd8_pack_u4_avx512(w, scales, bf16, N, K, block, S, out, wsum32, wsum16);
#endif
  qd8_pack_u4_scalar(w, scales, bf16, N, K, block, S, out, wsum32, wsum16);
}

bool qd8_ksum_u4_packed(const uint8_t* wp, bool bf16, int64_t N, int64_t K, int64_t block, float* ksum) {
#if defined(__x86_64__)
  return cpu_has_avx512_vnni() && qd8_ksum_u4_packed_avx512(wp, bf16, N, K, block, ksum);
#else
  (void)wp, (void)bf16, (void)N, (void)K, (void)block, (void)ksum;
  return false;
#endif
}

void qd8_pack_u4_scalar(const uint8_t* w, const float* scales, bool bf16, int64_t N, int64_t K, int64_t block, int64_t S,
                        uint8_t* out, int32_t* wsum32, int16_t* wsum16) {
  const int64_t rb = K / 2, nb = K / block, spb = block / 8;
  for (int64_t g = 0; g < (N + 15) / 16; ++g)
    for (int64_t b = 0; b < nb; ++b) {
      for (int64_t s = b * spb; s < (b + 1) * spb; ++s)
        for (int64_t c = 0; c < 16; ++c, out += 4) {
          const int64_t n = g * 16 + c;
          if (n < N)
            std::memcpy(out, w + n * rb + s * 4, 4);
          else
            std::memset(out, 0x88, 4);  // value 0
        }
      for (int64_t c = 0; c < 16; ++c) {
        const int64_t n = g * 16 + c;
        const float sc = n < N ? scales[n * nb + b] : 0.0f;
        uint32_t u;
        std::memcpy(&u, &sc, 4);
        if (bf16) {
          const uint16_t h = static_cast<uint16_t>(u >> 16);
          std::memcpy(out, &h, 2), out += 2;
        } else {
          std::memcpy(out, &u, 4), out += 4;
        }
      }
    }
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t n = 0; n < S; ++n) {
      int32_t sum = 0;
      if (n < N) {
        const uint8_t* row = w + n * rb;
        for (int64_t i = b * block / 2; i < (b + 1) * block / 2; ++i) sum += (row[i] & 15) + (row[i] >> 4);
        sum -= static_cast<int32_t>(8 * block);
      }
      if (wsum32) wsum32[b * S + n] = sum;
      if (wsum16) wsum16[b * S + n] = static_cast<int16_t>(sum);
    }
}

namespace {
size_t xsum_offset(const QGemm& q) { return (static_cast<size_t>(q.M * q.K) + 63) & ~size_t(63); }
}  // namespace

const int32_t* qd8_prepared_xcorr(const QGemm& q, const uint8_t* xp) {
  return reinterpret_cast<const int32_t*>(xp + xsum_offset(q));
}

void qd8_prepare_x(const QGemm& q, uint8_t* xp, [[maybe_unused]] QIsa isa) {
#if defined(__x86_64__)
  if (isa == QIsa::Avx512 || isa == QIsa::Amx) return qd8_prepare_x_avx512(q, xp);
#endif
  const uint8_t* x = reinterpret_cast<const uint8_t*>(q.x);
  const int64_t n = q.M * q.K;
  if (q.wkind == QWeights::I8) {
    for (int64_t i = 0; i < n; ++i) xp[i] = x[i] ^ 0x80;
    return;
  }
  for (int64_t c = 0; c < n; c += 8)
    for (int i = 0; i < 4; ++i) xp[c + i] = x[c + 2 * i], xp[c + 4 + i] = x[c + 2 * i + 1];
  int32_t* xs = reinterpret_cast<int32_t*>(xp + xsum_offset(q));
  const int64_t nb = q.K / q.block;
  for (int64_t m = 0; m < q.M; ++m)
    for (int64_t b = 0; b < nb; ++b) {
      int32_t sum = 0;
      for (int64_t k = b * q.block; k < (b + 1) * q.block; ++k) sum += q.x[m * q.K + k];
      xs[m * nb + b] = 8 * (sum - qd8_dot_zp(q, m) * static_cast<int32_t>(q.block));
    }
}

size_t qgemm_qd8_scratch_bytes(const QGemm& q) {
  if (q.M <= 0 || q.K <= 0) return 0;
  const int64_t nb = q.block > 0 ? q.K / q.block : 0;
  return xsum_offset(q) + static_cast<size_t>(q.M * nb) * 4;
}

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
#if defined(__x86_64__)
    case QIsa::Amx: qgemm_qd8_amx(*t.q, t.xp, a, b, c, d); break;
    case QIsa::Avx512: qgemm_qd8_avx512(*t.q, t.xp, a, b, c, d); break;
    case QIsa::Avx2: qgemm_qd8_avx2(*t.q, t.xp, a, b, c, d); break;
#endif
#if defined(__aarch64__) || defined(__arm__)
    case QIsa::Neon: qgemm_qd8_neon(*t.q, a, b, c, d); break;
#endif
#if defined(__aarch64__)
    case QIsa::NeonDot: qgemm_qd8_neondot(*t.q, a, b, c, d); break;
    case QIsa::NeonI8mm: qgemm_qd8_neoni8mm(*t.q, a, b, c, d); break;
#endif
    default: qgemm_qd8_scalar(*t.q, a, b, c, d); break;
  }
}

}  // namespace

namespace {
struct Tiles {
  Task* t;
  size_t M, N, tm, tn, cols;
};
void run_tile_index(void* ctx, size_t i) {
  const Tiles& g = *static_cast<const Tiles*>(ctx);
  const size_t m0 = (i / g.cols) * g.tm, n0 = (i % g.cols) * g.tn;
  run_tile(g.t, m0, n0, std::min(g.tm, g.M - m0), std::min(g.tn, g.N - n0));
}
struct Quarters {
  Task* t;
  int64_t quarter, chunk, tasks;  // groups per quarter, per task; tasks over the quarters
};
void run_quarters(void* ctx, size_t i) {
  const Quarters& g = *static_cast<const Quarters*>(ctx);
  const QGemm& q = *g.t->q;
  const int64_t k = static_cast<int64_t>(i);
  if (k == g.tasks)
    return run_tile(g.t, 0, static_cast<size_t>(64 * g.quarter), static_cast<size_t>(q.M),
                    static_cast<size_t>(q.N - 64 * g.quarter));
#if defined(__x86_64__)
  qgemm_qd8_avx512_u4_quarters(q, g.t->xp, 0, q.M, k * g.chunk, std::min(g.quarter, (k + 1) * g.chunk), g.quarter);
#else
  (void)q, (void)k;  // only chosen with Avx512
#endif
}
}  // namespace

namespace {

// The kernel family for q on this CPU (*simd: the activations are prepared in scratch first).
QIsa choose_isa(const QGemm& q, const void* scratch, QIsa isa, bool* simd_out) {
#if defined(__aarch64__)
  // NEON: any shape, no prepared activations (scratch null: the scalar reference, as documented)
  const bool neon = scratch && pte::isa::cpu().neon, dot = neon && pte::isa::cpu().dotprod;
  const bool mm = dot && pte::isa::cpu().i8mm;
  // Auto: SMMLA (2 x 4 tiles) for two rows or more where the CPU has i8mm, else SDOT over
  // four columns a call: under qemu max the i8mm kernel executed fewer instructions on
  // SmolLM2's prefill (bench/results/arm_insn.md). One row (decode) has no row pair: SDOT.
  if (isa == QIsa::Auto) isa = mm && q.M >= 2 ? QIsa::NeonI8mm : dot ? QIsa::NeonDot : neon ? QIsa::Neon : QIsa::Scalar;
  if ((isa == QIsa::NeonI8mm && !mm) || (isa == QIsa::NeonDot && !dot) || (isa == QIsa::Neon && !neon)) isa = QIsa::Scalar;
  if (isa != QIsa::Neon && isa != QIsa::NeonDot && isa != QIsa::NeonI8mm) isa = QIsa::Scalar;
  const bool simd = false;  // (no x86 preparation)
#elif defined(__arm__)
  // armv7 NEON (with VFPv4): the widening-multiply kernel; no SDOT or SMMLA in AArch32 here
  const bool neon = scratch && pte::isa::cpu().neon;
  if (isa == QIsa::Auto) isa = neon ? QIsa::Neon : QIsa::Scalar;
  if (isa != QIsa::Neon || !neon) isa = QIsa::Scalar;
  const bool simd = false;
#elif !defined(__x86_64__)
  (void)q, (void)scratch;
  isa = QIsa::Scalar;  // (other CPUs: the reference)
  const bool simd = false;
#else
  if (isa == QIsa::Neon || isa == QIsa::NeonDot || isa == QIsa::NeonI8mm) isa = QIsa::Scalar;
  const bool simd = scratch && qd8_simd_supported(q);
  // AMX for 16 rows or more (prefill): a tile is 16 rows
  if (isa == QIsa::Auto && simd && q.M >= 16 && qd8_amx_supported(q) && cpu_has_amx_int8()) isa = QIsa::Amx;
  if (isa == QIsa::Amx && !(simd && qd8_amx_supported(q) && cpu_has_amx_int8())) isa = QIsa::Avx512;
  if (isa == QIsa::Auto) isa = !simd ? QIsa::Scalar : cpu_has_avx512_vnni() ? QIsa::Avx512 : linalg::cpu_has_avx2_fma() ? QIsa::Avx2 : QIsa::Scalar;
  if (!simd || (isa == QIsa::Avx512 && !cpu_has_avx512_vnni()) || (isa == QIsa::Avx2 && !linalg::cpu_has_avx2_fma()))
    isa = QIsa::Scalar;
#endif
  *simd_out = simd;
  return isa;
}

// One product's share of a parallel region: its tasks in a row of the region's task list.
// Tiles: rows in 32s (the kernels walk rows inside a column group, so a group's weights
// stay in cache); columns in multiples of 16 (every kernel's width), about 4 tiles per
// thread when few rows. Whole: the product in one task (no threads).
struct Job {
  Task t;
  enum class Kind : uint8_t { Whole, Quarters, Tiles } kind = Kind::Whole;
  Quarters qu{};
  Tiles ti{};
  size_t tasks = 1;
};

void plan_job(Job& j, size_t threads) {
  const QGemm& q = *j.t.q;
  const QIsa isa = j.t.isa;
  const size_t M = static_cast<size_t>(q.M), N = static_cast<size_t>(q.N);
  const bool quarters = M < 4 && q.wkind == QWeights::U4 && isa == QIsa::Avx512 && q.N >= 128 && q.block <= 32768;
  if (threads <= 1 && !quarters) {
    j.kind = Job::Kind::Whole, j.tasks = 1;
    return;
  }
  size_t tm = 32;
  size_t tn = 64;
  if (isa == QIsa::Amx) {  // all rows (up to 256: their activations stay in L2) in one task, each group's
    tm = std::min<size_t>(M, 256);  // weights decoded once; ~4 tasks per thread
    tn = std::max<size_t>(16, (N / (4 * threads) + 15) / 16 * 16);
  }
  if (M < 4 && q.wkind == QWeights::U4 && isa == QIsa::Avx512)  // decode: whole 64-column tiles (4 groups), ~6 per thread
    tn = std::max<size_t>(64, (N / (6 * threads) + 63) / 64 * 64);
  else if (M <= 8)
    tn = std::max<size_t>(16, (N / (4 * threads) + 15) / 16 * 16);
  if (quarters) {
    // decode: each task takes the same run of groups in each quarter of the columns (four
    // long streams at once; SmolLM2 8da4w decode ~5% faster than 64-column tiles); the
    // columns past the quarters (< 64) are one more task. One thread too: one task (the
    // whole filter in four adjacent groups at a time read ~26 GB/s on one core of the Zen 5
    // VM, four quarters ~34: Qwen3-0.6B's 3072 x 1024 filters, cold)
    const int64_t quarter = q.N / 64,
                  chunk = threads <= 1 ? quarter
                                       : std::max<int64_t>(1, (quarter + static_cast<int64_t>(6 * threads) - 1) /
                                                                  static_cast<int64_t>(6 * threads));
    j.kind = Job::Kind::Quarters;
    j.qu = Quarters{&j.t, quarter, chunk, (quarter + chunk - 1) / chunk};
    j.tasks = static_cast<size_t>(j.qu.tasks) + (4 * quarter * 16 < q.N ? 1 : 0);
    return;
  }
  j.kind = Job::Kind::Tiles;
  j.ti = Tiles{&j.t, M, N, tm, tn, (N + tn - 1) / tn};
  j.tasks = ((M + tm - 1) / tm) * j.ti.cols;
}

void run_job(Job& j, size_t i) {
  switch (j.kind) {
    case Job::Kind::Whole: run_tile(&j.t, 0, 0, static_cast<size_t>(j.t.q->M), static_cast<size_t>(j.t.q->N)); break;
    case Job::Kind::Quarters: run_quarters(&j.qu, i); break;
    case Job::Kind::Tiles: run_tile_index(&j.ti, i); break;
  }
}

struct Region {
  Job* jobs;
  int count;
  size_t first[kQd8GroupMax + 1];  // task index where each job starts
};

void run_region(void* ctx, size_t i) {
  Region& r = *static_cast<Region*>(ctx);
  int j = 0;
  while (j + 1 < r.count && i >= r.first[j + 1]) ++j;
  run_job(r.jobs[j], i - r.first[j]);
}

bool same_activations(const QGemm& a, const QGemm& b) {
  return a.M == b.M && a.K == b.K && a.block == b.block && a.wkind == b.wkind && a.x == b.x && a.x_scale == b.x_scale &&
         a.x_zp == b.x_zp;
}

}  // namespace

namespace {

// Products of the same activations (qgemm_qd8_group checked), kernel family `chosen`, each
// with rows and columns, as one parallel region.
void run_group(pthreadpool* pool, const QGemm* qs, int count, void* scratch, QIsa chosen, bool simd, int helpers) {
  const uint8_t* xp = static_cast<const uint8_t*>(scratch);
  if (simd && chosen != QIsa::Scalar) qd8_prepare_x(qs[0], static_cast<uint8_t*>(scratch), chosen);
  // Threads only for at least 2^18 multiply-adds in all (tens of microseconds: a parallel
  // region costs a few, more when the worker has to be woken).
  const bool helper = helpers > 0;
  double work = 0.0;
  for (int i = 0; i < count; ++i)
    work += static_cast<double>(qs[i].M) * static_cast<double>(qs[i].N) * static_cast<double>(qs[i].K);
  size_t threads = helper ? static_cast<size_t>(helpers) + 1 : pool ? pthreadpool_get_threads_count(pool) : 1;
  if (work < 262144.0) threads = 1;
  Job jobs[kQd8GroupMax];
  Region r{jobs, count, {}};
  for (int i = 0; i < count; ++i) {
    jobs[i].t = Task{qs + i, xp, chosen};
    plan_job(jobs[i], threads);
    r.first[i + 1] = r.first[i] + jobs[i].tasks;
  }
  const size_t tasks = r.first[count];
  if (threads <= 1) {
    for (size_t i = 0; i < tasks; ++i) run_region(&r, i);
  } else if (helper) {
    linalg::claim_parallel_for(helpers, static_cast<int64_t>(tasks), run_region, &r);
  } else {
    pthreadpool_parallelize_1d(pool, run_region, &r, tasks, 0);
  }
}

}  // namespace

void qgemm_qd8_group(pthreadpool* pool, const QGemm* qs, int count, void* scratch, QIsa isa, int helpers) {
  if (count <= 0) return;
  bool simd = false;
  const QIsa chosen = choose_isa(qs[0], scratch, isa, &simd);
  bool together = count <= kQd8GroupMax;
  for (int i = 0; together && i < count; ++i) {
    bool si = false;
    together = qs[i].M > 0 && qs[i].N > 0 && same_activations(qs[0], qs[i]) && choose_isa(qs[i], scratch, isa, &si) == chosen &&
               si == simd;
  }
  if (!together) {  // one after the other
    for (int i = 0; i < count; ++i) qgemm_qd8(pool, qs[i], scratch, isa, helpers);
    return;
  }
  run_group(pool, qs, count, scratch, chosen, simd, helpers);
}

void qgemm_qd8(pthreadpool* pool, const QGemm& q, void* scratch, QIsa isa, int helpers) {
  if (q.M <= 0 || q.N <= 0) return;
  bool simd = false;
  const QIsa chosen = choose_isa(q, scratch, isa, &simd);
  run_group(pool, &q, 1, scratch, chosen, simd, helpers);
}

}  // namespace pte::xnn
