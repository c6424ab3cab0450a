// pte-run: does this method's next call share its work with helper threads, or run on the
// calling thread alone? Decided by measuring the method's own calls, not by guessing from
// the load average.
//
// On an idle machine sharing wins and nothing is tried: a call's calling thread is on a
// CPU for (nearly) all of its wall time. When it is not (its CPU time below kStarved of
// the wall time over the last kWindow calls of the same input shapes: other threads want
// the cores), the policy tries: kTrial calls alone, then kTrial calls shared, and keeps the
// faster for the calls that follow (alone must win by kMargin; a tie keeps sharing). The
// first starved window tries at once; later ones after a pause that starts at kMinPause calls and doubles, up to kMaxPause,
// each time the same answer comes back: a machine whose state does not change pays a
// shrinking cost for asking. While running alone it tries sharing again after the pause.
// Calls whose inputs have other shapes (a prefill chunk among decode steps) are not
// compared with each other: a new shape restarts the window (the mode stays).
//
// The arithmetic is here, apart from the clock, so tests can feed it times.
#pragma once
#include <cstdint>

namespace pte {

class ThreadPolicy {
 public:
  static constexpr int kWindow = 4;          // calls watched for starvation
  static constexpr double kStarved = 0.85;   // CPU time / wall time below this: try
  static constexpr int kTrial = 3;           // calls per mode in a trial
  static constexpr double kMargin = 0.92;    // alone must take < kMargin of shared's time
  static constexpr int kMinPause = 16;       // calls between trials, doubling
  static constexpr int kMaxPause = 1024;

  // Before a call: its input shapes' signature; true: share the work.
  bool share(uint64_t signature);
  // After it: wall time and the calling thread's CPU time (ns; cpu_ns < 0: not measured,
  // taken as not starved).
  void record(int64_t wall_ns, int64_t cpu_ns);

  int64_t calls_alone() const { return calls_alone_; }
  int64_t calls_shared() const { return calls_shared_; }
  int64_t trials() const { return trials_; }
  bool sharing() const { return mode_shared_; }

 private:
  enum class Phase { Steady, TryAlone, TryShared };
  void restart_window() { win_n_ = 0, win_wall_ = 0, win_cpu_ = 0; }
  void decide();

  bool mode_shared_ = true;  // the steady mode
  Phase phase_ = Phase::Steady;
  bool current_shared_ = true;  // the mode of the call being run
  uint64_t signature_ = 0;
  int win_n_ = 0;
  int64_t win_wall_ = 0, win_cpu_ = 0;
  int trial_n_ = 0;
  int64_t trial_alone_ = 0, trial_shared_ = 0;
  int since_trial_ = kMinPause;  // the first starved window may try at once
  int pause_ = kMinPause;
  int64_t calls_alone_ = 0, calls_shared_ = 0, trials_ = 0;
};

}  // namespace pte
