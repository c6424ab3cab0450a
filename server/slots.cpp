#include "server/slots.h"

#include <algorithm>

namespace pte::server {

namespace {

// The shared prefix, ending before the first media token (media_id < 0: none).
size_t common_prefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b, int64_t media_id) {
  size_t n = 0, end = std::min(a.size(), b.size());
  while (n < end && a[n] == b[n] && a[n] != media_id) ++n;
  return n;
}

int64_t media_token(const TextRunner& r) {
  const MultimodalInfo* mm = r.multimodal();
  return mm && !mm->modality.empty() ? mm->media_token_id : -1;
}

}  // namespace

Status SlotPool::init(std::unique_ptr<TextRunner> first, int parallel, int queue_limit) {
  if (parallel < 1) return Status::error("--parallel must be at least 1");
  if (queue_limit < 0) return Status::error("--queue must be >= 0");
  queue_limit_ = queue_limit;
  slots_.clear();
  slots_.push_back({std::move(first), false, 0});
  for (int i = 1; i < parallel; ++i) {
    Slot s;
    PTE_TRY(slots_[0].runner->another(&s.runner).context("slot " + std::to_string(i)));
    slots_.push_back(std::move(s));
  }
  return Status::ok();
}

SlotPool::Ticket::~Ticket() {
  std::lock_guard<std::mutex> lock(p_->mu_);
  --p_->admitted_;
}

std::shared_ptr<SlotPool::Ticket> SlotPool::admit() {
  std::lock_guard<std::mutex> lock(mu_);
  if (admitted_ >= static_cast<int>(slots_.size()) + queue_limit_) return nullptr;
  ++admitted_;
  return std::make_shared<Ticket>(this);
}

int SlotPool::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.busy; }));
}

int SlotPool::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(line_.size());
}

int SlotPool::acquire(const std::vector<int32_t>& ids) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t me = next_ticket_++;
  line_.push_back(me);
  auto free_slot = [&] {
    return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.busy; });
  };
  cv_.wait(lock, [&] { return line_.front() == me && free_slot(); });
  line_.pop_front();
  // the free slot sharing the longest prefix; on a tie the one idle longest
  int best = -1;
  size_t best_len = 0;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (s.busy) continue;
    size_t len = common_prefix(s.runner->tokens(), ids, media_token(*s.runner));
    if (best < 0 || len > best_len || (len == best_len && s.last_used < slots_[best].last_used)) {
      best = static_cast<int>(i);
      best_len = len;
    }
  }
  slots_[best].busy = true;
  slots_[best].last_used = ++clock_;
  lock.unlock();
  cv_.notify_all();  // the next in line may take another free slot
  return best;
}

void SlotPool::release(int slot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    slots_[slot].busy = false;
  }
  cv_.notify_all();
}

Status SlotPool::run(const std::vector<int32_t>& ids, const GenerationConfig& config,
                     const std::function<void(const std::string&)>& on_text, SlotResult* result,
                     const std::vector<MediaInput>* media) {
  if (ids.empty()) return Status::error("the prompt encodes to no tokens");
  const int slot = acquire(ids);
  struct Release {
    SlotPool* p;
    int slot;
    ~Release() { p->release(slot); }
  } release_on_exit{this, slot};
  SlotResult res;
  res.slot = slot;
  if (config.cancelled && config.cancelled()) {  // the client left while waiting in line
    res.gen.stop_reason = "cancelled";
    *result = std::move(res);
    return Status::ok();
  }
  TextRunner& r = *slots_[slot].runner;
  GenerationConfig cfg;
  const GenerationConfig* use = &config;
  if (media && !media->empty()) {  // the images through this slot's encoder
    cfg = config;
    for (const auto& m : *media) {
      MediaEmbedding e;
      PTE_TRY(r.encode_media(m.data.data(), m.sizes, &e));
      cfg.media.push_back(std::move(e));
    }
    use = &cfg;
  }
  size_t keep = common_prefix(r.tokens(), ids, media_token(r));
  if (keep == ids.size()) --keep;  // one token at least is prefilled: its logits start the reply
  if (!r.rewind(static_cast<int64_t>(keep))) {
    r.reset();
    keep = 0;
  }
  res.reused = static_cast<int64_t>(keep);
  Status s = r.generate_ids(std::vector<int32_t>(ids.begin() + static_cast<long>(keep), ids.end()), *use, on_text, &res.gen);
  if (!s) r.reset();  // whatever the cache holds now is not worth keeping
  *result = std::move(res);
  return s;
}

}  // namespace pte::server
