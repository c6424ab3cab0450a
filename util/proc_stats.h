// pte-run: process clock and peak memory, shared by the text runner and the benchmark.
#pragma once
#include <sys/resource.h>

#include <chrono>

namespace pte::util {

// Monotonic milliseconds.
inline double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// Peak resident set of this process, KiB (getrusage).
inline long peak_rss_kb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

}  // namespace pte::util
