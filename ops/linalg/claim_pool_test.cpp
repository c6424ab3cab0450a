// claim_parallel_for: every tile exactly once, from the caller and helpers, also
// back to back (the helpers' spin/sleep/wake cycle) and from concurrent callers.
#include "ops/linalg/claim_pool.h"

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
