#include "server/metrics.h"

#include <cstdio>

namespace pte::server {

namespace {

// Paths outside the API are counted together (a scanner must not grow the table).
std::string known_path(const std::string& p) {
  for (const char* k : {"/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/models", "/tokenize",
                        "/detokenize", "/health", "/metrics"})
    if (p == k) return p;
  return "other";
}

constexpr auto kWindow = std::chrono::seconds(10);

}  // namespace

void Metrics::record_request(const std::string& path, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{known_path(path), status}];
}

void Metrics::record_generation(int64_t prefilled, int64_t reused, int64_t generated, double ttft_ms, double busy_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  prefilled_ += static_cast<uint64_t>(prefilled);
  reused_ += static_cast<uint64_t>(reused);
  generated_ += static_cast<uint64_t>(generated);
  ++generations_;
  ttft_ms_sum_ += ttft_ms;
  busy_ms_sum_ += busy_ms;
  auto now = Clock::now();
  recent_.emplace_back(now, generated);
  while (!recent_.empty() && now - recent_.front().first > kWindow) recent_.pop_front();
}

std::string Metrics::prometheus(int slots, int busy, int waiting) {
  std::lock_guard<std::mutex> lock(mu_);
  auto now = Clock::now();
  while (!recent_.empty() && now - recent_.front().first > kWindow) recent_.pop_front();
  int64_t window_tokens = 0;
  for (const auto& r : recent_) window_tokens += r.second;
  std::string o;
  char line[256];
  auto put = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    o += line;
  };
  o += "# HELP pte_requests_total HTTP requests answered, by path and status.\n# TYPE pte_requests_total counter\n";
  for (const auto& [k, n] : requests_)
    put("pte_requests_total{path=\"%s\",status=\"%d\"} %llu\n", k.first.c_str(), k.second, (unsigned long long)n);
  o += "# HELP pte_requests_rejected_total Requests answered 503 because the queue was full.\n# TYPE pte_requests_rejected_total counter\n";
  put("pte_requests_rejected_total %llu\n", (unsigned long long)rejected.load());
  o += "# HELP pte_requests_cancelled_total Streams whose generation stopped early because the client disconnected.\n# TYPE pte_requests_cancelled_total counter\n";
  put("pte_requests_cancelled_total %llu\n", (unsigned long long)cancelled.load());
  o += "# HELP pte_generations_total Completions generated.\n# TYPE pte_generations_total counter\n";
  put("pte_generations_total %llu\n", (unsigned long long)generations_);
  o += "# HELP pte_prompt_tokens_total Prompt tokens prefilled.\n# TYPE pte_prompt_tokens_total counter\n";
  put("pte_prompt_tokens_total %llu\n", (unsigned long long)prefilled_);
  o += "# HELP pte_prompt_tokens_reused_total Prompt tokens a slot's cache already held (not prefilled).\n"
       "# TYPE pte_prompt_tokens_reused_total counter\n";
  put("pte_prompt_tokens_reused_total %llu\n", (unsigned long long)reused_);
  o += "# HELP pte_tokens_generated_total Tokens generated.\n# TYPE pte_tokens_generated_total counter\n";
  put("pte_tokens_generated_total %llu\n", (unsigned long long)generated_);
  o += "# HELP pte_time_to_first_token_seconds_sum Time to first token, summed over completions.\n"
       "# TYPE pte_time_to_first_token_seconds_sum counter\n";
  put("pte_time_to_first_token_seconds_sum %.6f\n", ttft_ms_sum_ / 1000.0);
  o += "# HELP pte_slot_busy_seconds_total Time slots spent prefilling and generating.\n# TYPE pte_slot_busy_seconds_total counter\n";
  put("pte_slot_busy_seconds_total %.6f\n", busy_ms_sum_ / 1000.0);
  o += "# HELP pte_tokens_per_second Tokens generated across slots per second, over the last 10 s.\n"
       "# TYPE pte_tokens_per_second gauge\n";
  put("pte_tokens_per_second %.3f\n", static_cast<double>(window_tokens) / 10.0);
  o += "# HELP pte_queue_depth Requests waiting for a slot.\n# TYPE pte_queue_depth gauge\n";
  put("pte_queue_depth %d\n", waiting);
  o += "# HELP pte_slots Slots (KV caches).\n# TYPE pte_slots gauge\n";
  put("pte_slots %d\n", slots);
  o += "# HELP pte_slots_busy Slots generating now.\n# TYPE pte_slots_busy gauge\n";
  put("pte_slots_busy %d\n", busy);
  return o;
}

}  // namespace pte::server
