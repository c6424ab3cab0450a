// pte-run: the per-method thread policy (see thread_policy.h).
#include "interpreter/thread_policy.h"

namespace pte {

bool ThreadPolicy::share(uint64_t signature) {
  if (signature != signature_) {
    signature_ = signature;
    restart_window();
    if (phase_ != Phase::Steady) phase_ = Phase::Steady;  // a trial compares one shape only
  }
  current_shared_ = phase_ == Phase::TryAlone ? false : phase_ == Phase::TryShared ? true : mode_shared_;
  (current_shared_ ? calls_shared_ : calls_alone_)++;
  return current_shared_;
}

void ThreadPolicy::record(int64_t wall_ns, int64_t cpu_ns) {
  if (wall_ns <= 0) return;
  if (phase_ != Phase::Steady) {
    (current_shared_ ? trial_shared_ : trial_alone_) += wall_ns;
    if (++trial_n_ == kTrial) {
      trial_n_ = 0;
      if (phase_ == Phase::TryAlone)
        phase_ = Phase::TryShared;
      else
        decide();
    }
    return;
  }
  ++since_trial_;
  if (cpu_ns < 0) cpu_ns = wall_ns;  // not measured: not starved
  win_wall_ += wall_ns, win_cpu_ += cpu_ns;
  if (++win_n_ < kWindow) return;
  // sharing: try when the calling thread was starved of CPU; alone: probe sharing again
  const bool starved = static_cast<double>(win_cpu_) < kStarved * static_cast<double>(win_wall_);
  restart_window();
  if (since_trial_ >= pause_ && (!mode_shared_ || starved)) {
    phase_ = Phase::TryAlone;
    trial_n_ = 0, trial_alone_ = 0, trial_shared_ = 0;
    ++trials_;
  }
}

void ThreadPolicy::decide() {
  const bool alone = static_cast<double>(trial_alone_) < kMargin * static_cast<double>(trial_shared_);
  // the same answer again: ask less often; a change: ask soon
  pause_ = alone == !mode_shared_ ? (pause_ * 2 > kMaxPause ? kMaxPause : pause_ * 2) : kMinPause;
  mode_shared_ = !alone;
  phase_ = Phase::Steady;
  since_trial_ = 0;
  restart_window();
}

}  // namespace pte
