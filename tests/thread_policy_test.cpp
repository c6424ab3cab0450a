// The per-method thread policy (interpreter/thread_policy.h): no trial while the calling
// thread has its CPU; when starved, a trial alone against shared keeps the faster, asks
// again after a pause that doubles while the answer stays; a new input shape restarts.
#include "interpreter/thread_policy.h"

#include <doctest/doctest.h>

using pte::ThreadPolicy;

namespace {
constexpr int64_t ms = 1'000'000;
// Runs one call: the wall time depends on the mode the policy picked; the CPU time is
// `cpu_share` of it. Returns whether it shared.
bool call(ThreadPolicy& p, uint64_t sig, int64_t shared_ns, int64_t alone_ns, double cpu_share) {
  const bool share = p.share(sig);
  const int64_t wall = share ? shared_ns : alone_ns;
  p.record(wall, static_cast<int64_t>(cpu_share * static_cast<double>(wall)));
  return share;
}
}  // namespace

TEST_CASE("thread policy: an idle machine never tries running alone") {
  ThreadPolicy p;
  for (int k = 0; k < 5000; ++k) CHECK(call(p, 7, 10 * ms, 16 * ms, 0.99));
  CHECK(p.trials() == 0);
  CHECK(p.calls_alone() == 0);
  CHECK(p.calls_shared() == 5000);
}

TEST_CASE("thread policy: starved and alone faster -> alone; sharing is probed again later") {
  ThreadPolicy p;
  // the first starved window (kWindow calls) starts a trial at once: kTrial alone, kTrial shared
  for (int j = 0; j < ThreadPolicy::kWindow - 1; ++j) CHECK(call(p, 7, 20 * ms, 12 * ms, 0.5));
  CHECK(p.trials() == 0);
  CHECK(call(p, 7, 20 * ms, 12 * ms, 0.5));
  CHECK(p.trials() == 1);
  int alone = 0;
  for (int j = 0; j < 40; ++j) alone += call(p, 7, 20 * ms, 12 * ms, 0.5) ? 0 : 1;
  CHECK_FALSE(p.sharing());
  CHECK(alone >= 30);  // after the trial every call ran alone, but for the next probe's 3
  // while alone, sharing is tried again after the pause (it loses again: pause doubles)
  const int64_t t0 = p.trials();
  for (int j = 0; j < 200; ++j) call(p, 7, 20 * ms, 12 * ms, 0.5);
  CHECK(p.trials() > t0);
  CHECK(p.trials() - t0 <= 4);  // pauses of 16, 32, 64, 128 calls (+ trial and window)
  CHECK_FALSE(p.sharing());
  // the machine gets idle: sharing wins the next probe and stays
  for (int j = 0; j < 2000; ++j) call(p, 7, 10 * ms, 16 * ms, 0.99);
  CHECK(p.sharing());
  const int64_t alone_calls = p.calls_alone();
  for (int j = 0; j < 200; ++j) CHECK(call(p, 7, 10 * ms, 16 * ms, 0.99));
  CHECK(p.calls_alone() == alone_calls);
}

TEST_CASE("thread policy: starved but sharing still faster -> keeps sharing, asks less often") {
  ThreadPolicy p;
  for (int j = 0; j < 3000; ++j) call(p, 7, 10 * ms, 13 * ms, 0.6);
  CHECK(p.sharing());
  // pauses double up to kMaxPause: 16+32+...+1024 calls ~ 2000, plus the last long pause
  CHECK(p.trials() >= 6);
  CHECK(p.trials() <= 9);
  // a tie keeps sharing: alone must win by kMargin
  ThreadPolicy q;
  for (int j = 0; j < 200; ++j) call(q, 7, 10 * ms, static_cast<int64_t>(9.5 * ms), 0.5);
  CHECK(q.trials() >= 1);
  CHECK(q.sharing());
}

TEST_CASE("thread policy: a call of other shapes aborts a trial and restarts the window") {
  ThreadPolicy p;
  for (int j = 0; j < ThreadPolicy::kWindow + 2; ++j) call(p, 7, 20 * ms, 10 * ms, 0.5);
  REQUIRE(p.trials() == 1);
  // a trial is under way (alone first); a prefill-like call of other shapes ends it
  CHECK_FALSE(call(p, 7, 20 * ms, 10 * ms, 0.5));
  CHECK(call(p, 9, 200 * ms, 100 * ms, 0.5));  // steady mode: still sharing (no decision yet)
  CHECK(p.sharing());
  // failed calls are not recorded: a zero wall time changes nothing
  p.share(9);
  p.record(0, 0);
  CHECK(p.sharing());
}
