// pte-run serve: counters for GET /metrics, written in Prometheus' text format
// (requests by path and status, tokens prefilled, reused and generated, time to first
// token, tokens/s across slots over the last 10 s, queue depth, busy slots).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace pte::server {

class Metrics {
 public:
  void record_request(const std::string& path, int status);
  void record_generation(int64_t prefilled, int64_t reused, int64_t generated, double ttft_ms, double busy_ms);
  std::string prometheus(int slots, int busy, int waiting);

  std::atomic<uint64_t> rejected{0};   // 503: the queue was full
  std::atomic<uint64_t> cancelled{0};  // streams stopped before their end: the client went away

 private:
  using Clock = std::chrono::steady_clock;
  std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  uint64_t prefilled_ = 0, reused_ = 0, generated_ = 0, generations_ = 0;
  double ttft_ms_sum_ = 0, busy_ms_sum_ = 0;
  std::deque<std::pair<Clock::time_point, int64_t>> recent_;  // (when, tokens generated) of the last 10 s
};

}  // namespace pte::server
