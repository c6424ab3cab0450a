// pte-run linalg: claim_parallel_for (see claim_pool.h).
//
// One job at a time. `word_` packs generation (24 bits), tile count (20 bits) and the
// next unclaimed tile (20 bits). A helper reads the word, then the job fields, then
// claims with a CAS on the same word: a CAS that succeeds with next < count proves
// the job was live (unexhausted) from that read on, and the caller writes the fields
// of a new job only after the old one's tiles are all done (then publishes the new
// generation), so the fields the helper read are that job's.
#include "ops/linalg/claim_pool.h"
#include "ops/isa.h"

#include <atomic>
#include <memory>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>


namespace pte::linalg {

namespace {

thread_local bool t_in_job = false;  // a tile calling claim_parallel_for runs it inline

constexpr int kTileBits = 20;
constexpr uint64_t kTileMask = (uint64_t(1) << kTileBits) - 1;
constexpr int kGenShift = 2 * kTileBits;
inline uint64_t gen_of(uint64_t w) { return w >> kGenShift; }
inline int64_t count_of(uint64_t w) { return static_cast<int64_t>((w >> kTileBits) & kTileMask); }
inline int64_t next_of(uint64_t w) { return static_cast<int64_t>(w & kTileMask); }

class ClaimPool {
 public:
  explicit ClaimPool(int helpers) {
    if (const char* e = std::getenv("PTE_CLAIM_SPIN_US")) spin_ = std::chrono::microseconds(std::atoi(e));
    for (int i = 0; i < helpers; ++i) threads_.emplace_back([this] { loop(); });
  }
  ~ClaimPool() {
    stop_.store(true);
    word_.fetch_add(uint64_t(1) << kGenShift);  // a new generation wakes the sleepers
    word_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int helpers() const { return static_cast<int>(threads_.size()); }

  void run(int64_t ntiles, void (*fn)(void*, int64_t), void* ctx) {
    fn_.store(fn, std::memory_order_relaxed);
    ctx_.store(ctx, std::memory_order_relaxed);
    fpc_.store(isa::DenormalsOff::control(), std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    const uint64_t gen = (gen_of(word_.load(std::memory_order_relaxed)) + 1) & ((uint64_t(1) << (64 - kGenShift)) - 1);
    // seq_cst store and load: either a helper about to sleep sees the new generation,
    // or this sees it counted in sleepers_ and wakes it
    word_.store(gen << kGenShift | static_cast<uint64_t>(ntiles) << kTileBits);
    if (sleepers_.load() > 0) word_.notify_all();
    int64_t mine = 0;
    for (;;) {
      const int64_t t = next_of(word_.fetch_add(1, std::memory_order_acq_rel));
      if (t >= ntiles) break;
      fn(ctx, t);
      ++mine;
    }
    // wait for the tiles helpers claimed (only those: a sleeping helper claims none)
    done_.fetch_add(mine, std::memory_order_acq_rel);
    for (int spin = 0; done_.load(std::memory_order_acquire) < ntiles; ++spin) {
      if (spin < 4096)
        pte::isa::spin_pause();
      else
        std::this_thread::yield();
    }
  }

 private:
  void loop() {
    t_in_job = true;  // tiles run here call nested parallel loops inline
    uint64_t seen = 0;  // last generation this helper worked on
    uint64_t fpc_now = isa::DenormalsOff::control();  // this thread's floating-point control word
    while (!stop_.load(std::memory_order_relaxed)) {
      uint64_t w = word_.load(std::memory_order_acquire);
      if (gen_of(w) == seen) {
        // spin a little (back-to-back GEMVs of a decode step), then sleep
        bool fresh = false;
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; !fresh; ++i) {
          pte::isa::spin_pause();
          w = word_.load(std::memory_order_acquire);
          fresh = gen_of(w) != seen;
          if ((i & 63) == 63 && std::chrono::steady_clock::now() - t0 > spin_) break;
        }
        if (!fresh) {
          sleepers_.fetch_add(1);
          w = word_.load();
          if (gen_of(w) == seen && !stop_.load()) word_.wait(w);
          sleepers_.fetch_sub(1);
          continue;  // re-read: the wait may return for a tile claim of the same generation
        }
      }
      if (stop_.load(std::memory_order_relaxed)) break;
      seen = gen_of(w);
      int64_t mine = 0;  // counted into done_ once, when this job has no tiles left
      for (;;) {
        auto fn = fn_.load(std::memory_order_relaxed);
        void* ctx = ctx_.load(std::memory_order_relaxed);
        const uint64_t fpc = fpc_.load(std::memory_order_relaxed);
        if (gen_of(w) != seen || next_of(w) >= count_of(w)) break;
        if (!word_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
        // the caller's floating-point mode (the XNNPACK delegate runs with flush-to-zero,
        // portable kernels without): a tile gives the same bits on either thread
        if (fpc != fpc_now) isa::DenormalsOff::set_control(fpc), fpc_now = fpc;
        fn(ctx, next_of(w));
        ++mine;
        w = word_.load(std::memory_order_acquire);
      }
      if (mine) done_.fetch_add(mine, std::memory_order_acq_rel);
    }
  }

  // word_ with the job fields a claim reads (one cache line); the completion count on
  // a line of its own, so finishing a tile does not take the claim line from the caller
  alignas(64) std::atomic<uint64_t> word_{0};
  std::atomic<void (*)(void*, int64_t)> fn_{nullptr};
  std::atomic<void*> ctx_{nullptr};
  std::atomic<uint64_t> fpc_{0};  // the caller's floating-point control word
  alignas(64) std::atomic<int64_t> done_{0};
  std::atomic<int> sleepers_{0};
  alignas(64) std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
  std::chrono::microseconds spin_{50};
};

std::mutex g_mu;  // one job at a time; guards the pool's creation
}  // namespace

void claim_parallel_for(int helpers, int64_t ntiles, void (*fn)(void*, int64_t), void* ctx) {
  std::unique_lock<std::mutex> lock(g_mu, std::defer_lock);
  static ClaimPool* pool = nullptr;  // grows never; sized by the first threaded call
  if (helpers > 0 && ntiles > 1 && ntiles < static_cast<int64_t>(kTileMask) && !t_in_job && lock.try_lock()) {
    static std::unique_ptr<ClaimPool> owner;
    if (!pool) {
      owner = std::make_unique<ClaimPool>(helpers);
      pool = owner.get();
    }
    t_in_job = true;
    pool->run(ntiles, fn, ctx);
    t_in_job = false;
    return;
  }
  for (int64_t t = 0; t < ntiles; ++t) fn(ctx, t);
}

void claim_parallel_for(int helpers, int64_t ntiles, void (*fn)(void*, size_t), void* ctx) {
  struct Adapter {
    void (*fn)(void*, size_t);
    void* ctx;
  } ad{fn, ctx};
  claim_parallel_for(
      helpers, ntiles,
      [](void* p, int64_t i) {
        const Adapter& a = *static_cast<const Adapter*>(p);
        a.fn(a.ctx, static_cast<size_t>(i));
      },
      &ad);
}

}  // namespace pte::linalg
