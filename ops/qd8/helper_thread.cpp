// One helper thread for opportunistic parallel loops (see helper_thread.h).
//
// state_ = epoch << 32 | next unclaimed task (even epochs; odd while a loop is being
// published). The caller retires the last loop, publishes one (fn, ctx, n, done = 0)
// and sets the next even epoch; caller and helper claim tasks by compare-and-swap of
// state_, so a claim fails once the epoch moved on, and a successful claim in epoch e
// means the caller is still inside epoch e's loop (it returns only when done == n).
#include "ops/qd8/helper_thread.h"
#include "ops/isa.h"


#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <thread>

namespace pte::xnn {

namespace {

class Helper {
 public:
  Helper() {
    if (const char* e = std::getenv("PTE_HELPER_SPIN_US")) spin_ = std::chrono::microseconds(std::atoi(e));
    try {  // no exceptions across the library boundary: without a thread the caller does it all
      std::thread([this] { loop(); }).detach();
      started_ = true;
    } catch (...) {
      started_ = false;
    }
  }
  bool started() const { return started_; }

  void run(void (*fn)(void*, size_t), void* ctx, size_t n) {
    // Retire the last loop first (odd epoch: nothing can be claimed), then publish. Else a
    // helper holding the last loop's state (epoch e, index n_old) could read the new n and
    // claim "task n_old" of epoch e by CAS before the new epoch is stored: a task of the new
    // loop run twice and counted as done (a flaky test under ASan found it).
    const uint64_t epoch = (state_.load(std::memory_order_relaxed) >> 32) + 2;
    state_.store((epoch - 1) << 32, std::memory_order_seq_cst);
    fn_.store(fn, std::memory_order_relaxed);
    ctx_.store(ctx, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    n_.store(static_cast<uint32_t>(n), std::memory_order_release);
    state_.store(epoch << 32, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lk(mu_);
      posted_ = epoch;
    }
    cv_.notify_one();
    work(epoch);
    // a task the helper holds: spin a little, then yield (it may be waiting for this core)
    for (int k = 0; done_.load(std::memory_order_acquire) < n; ++k)
      if (k < 256)
        pte::isa::spin_pause();
      else
        std::this_thread::yield();
  }

 private:
  // Claims and runs tasks of `epoch` until none is left (or the epoch moved on).
  void work(uint64_t epoch) {
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
      if ((s >> 32) != epoch) return;
      const uint32_t i = static_cast<uint32_t>(s);
      auto fn = fn_.load(std::memory_order_relaxed);
      void* ctx = ctx_.load(std::memory_order_relaxed);
      const uint32_t n = n_.load(std::memory_order_acquire);
      if (i >= n) return;
      if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      fn(ctx, i);
      done_.fetch_add(1, std::memory_order_release);
      s = state_.load(std::memory_order_acquire);
    }
  }

  void loop() {
    uint64_t seen = 0;
    for (;;) {
      // a spin of spin_ (200 us) catches the next loop of a decode step without a wake-up
      // (a futex wake costs the caller a syscall and the helper the scheduler's latency:
      // 5.6 us of spinning, 256 PAUSEs of 22 ns here, left the 8da4w decode ~4% slower),
      // without taking the core from others for long
      // (odd epochs: a loop being published; posted_ only holds even ones)
      auto idle = [&](uint64_t ep) { return ep == seen || (ep & 1) != 0; };
      const auto t0 = std::chrono::steady_clock::now();
      for (int k = 1; idle(state_.load(std::memory_order_acquire) >> 32); ++k) {
        pte::isa::spin_pause();
        if ((k & 63) == 0 && std::chrono::steady_clock::now() - t0 > spin_) break;
      }
      uint64_t e = state_.load(std::memory_order_acquire) >> 32;
      if (idle(e)) {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return posted_ != seen; });
        e = posted_;
      }
      seen = e;
      work(e);
    }
  }

  std::atomic<uint64_t> state_{0};
  std::atomic<uint32_t> done_{0};
  std::atomic<void (*)(void*, size_t)> fn_{nullptr};
  std::atomic<void*> ctx_{nullptr};
  std::atomic<uint32_t> n_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t posted_ = 0;
  bool started_ = false;
  std::chrono::microseconds spin_{200};
};

}  // namespace

void helper_parallel_for(void (*fn)(void*, size_t), void* ctx, size_t n) {
  if (n == 0) return;
  if (n == 1) return fn(ctx, 0);
  static Helper* h = new (std::nothrow) Helper;  // never destroyed: the detached thread may outlive main
  static std::mutex one_caller;                  // one loop at a time (methods on several threads)
  if (!h || !h->started()) {
    for (size_t i = 0; i < n; ++i) fn(ctx, i);
    return;
  }
  std::lock_guard<std::mutex> lk(one_caller);
  h->run(fn, ctx, n);
}

}  // namespace pte::xnn
