// claim_parallel_for: every tile exactly once, from the caller and helpers, also
// back to back (the helpers' spin/sleep/wake cycle) and from concurrent callers.
#include "ops/linalg/claim_pool.h"
#include "ops/isa.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace pte::linalg;

namespace {
struct Hits {
  std::vector<std::atomic<int>> n;
  explicit Hits(size_t k) : n(k) {}
};
void hit(void* p, int64_t t) { static_cast<Hits*>(p)->n[t].fetch_add(1); }
bool all_once(Hits& h) {
  for (auto& x : h.n)
    if (x.load() != 1) return false;
  return true;
}
}  // namespace

TEST_CASE("claim_parallel_for runs every tile exactly once") {
  for (int64_t tiles : {0, 1, 2, 7, 64, 1000}) {
    Hits h(static_cast<size_t>(tiles));
    claim_parallel_for(1, tiles, hit, &h);
    CHECK(all_once(h));
  }
  Hits inl(5);
  claim_parallel_for(0, 5, hit, &inl);  // no helpers: inline
  CHECK(all_once(inl));
}

TEST_CASE("claim_parallel_for: many back-to-back jobs, with pauses that let the helpers sleep") {
  for (int rep = 0; rep < 2000; ++rep) {
    Hits h(16);
    claim_parallel_for(1, 16, hit, &h);
    REQUIRE(all_once(h));
    if (rep % 500 == 499) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST_CASE("claim_parallel_for from two threads at once (the second may run inline)") {
  std::atomic<int> bad{0};
  auto worker = [&] {
    for (int rep = 0; rep < 300; ++rep) {
      Hits h(33);
      claim_parallel_for(1, 33, hit, &h);
      if (!all_once(h)) bad.fetch_add(1);
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  CHECK(bad.load() == 0);
}

TEST_CASE("claim_parallel_for nested inside a tile runs inline (no self-deadlock)") {
  struct Outer {
    std::atomic<int> inner_tiles{0};
  } o;
  claim_parallel_for(
      1, 4,
      [](void* p, int64_t) {
        auto* op = static_cast<Outer*>(p);
        Hits h(3);
        claim_parallel_for(1, 3, hit, &h);
        if (all_once(h)) op->inner_tiles.fetch_add(3);
      },
      &o);
  CHECK(o.inner_tiles.load() == 12);
}

namespace {
struct FpProbe {
  std::thread::id caller;
  std::atomic<int> tiles{0}, on_helper{0}, ftz{0};
};
void fp_probe(void* p, int64_t) {
  auto& f = *static_cast<FpProbe*>(p);
  const auto t0 = std::chrono::steady_clock::now();  // ~50 us a tile: long enough for a helper to join
  while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(50)) pte::isa::spin_pause();
  f.tiles.fetch_add(1);
  f.on_helper.fetch_add(std::this_thread::get_id() != f.caller);
  f.ftz.fetch_add(pte::isa::DenormalsOff::on());
}
}  // namespace

TEST_CASE("claim_parallel_for: helpers run the tiles in the caller's floating-point mode (flush-to-zero on or off)") {
  // The XNNPACK delegate runs with flush-to-zero, portable kernels without; a helper thread
  // was started in whichever mode its first caller had. Each job's tiles run in the mode
  // of that job's caller, on every thread.
  bool supported;
  {
    pte::isa::DenormalsOff daz;
    supported = pte::isa::DenormalsOff::on();  // (false where the build has no such mode)
  }
  REQUIRE(!pte::isa::DenormalsOff::on());  // the test thread runs without it
  int helper_tiles = 0;
  for (int rep = 0; rep < 4; ++rep)
    for (bool flush : {true, false}) {
      FpProbe f;
      f.caller = std::this_thread::get_id();
      if (flush) {
        pte::isa::DenormalsOff daz;
        claim_parallel_for(1, 64, fp_probe, &f);
      } else {
        claim_parallel_for(1, 64, fp_probe, &f);
      }
      CHECK(f.tiles.load() == 64);
      CHECK(f.ftz.load() == (flush && supported ? 64 : 0));
      helper_tiles += f.on_helper.load();
    }
  // the helper normally takes some of 64 tiles of 50 us; on a starved machine it may take none
  if (helper_tiles == 0) WARN_MESSAGE(false, "no tile ran on a helper thread: the floating-point mode was not exercised there");
}
