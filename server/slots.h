// pte-run serve: the slots a server generates in. Each slot is a TextRunner over the same
// mapped program (its own method instance and KV cache; constants read in place from the
// one mapping, weights a delegate packs at load packed per slot), so N requests
// decode at once, each on its own thread, interleaved by the OS: a long request holds one
// slot and never the others. Requests wait in a bounded line, served in arrival order;
// a free slot is picked by the longest prefix its cache shares with the request's tokens,
// which are then not prefilled again (prefix reuse).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "llm/runner.h"

namespace pte::server {

// One image as its encoder's input (pixel values and their sizes).
struct MediaInput {
  std::vector<float> data;
  std::vector<int64_t> sizes;
};

struct SlotResult {
  GenerationStats gen;  // gen.prompt_tokens: the tokens this request prefilled
  int64_t reused = 0;   // prompt tokens the slot's cache already held
  int slot = -1;
};

class SlotPool {
 public:
  // `first` becomes slot 0, the others are first->another(). queue_limit: requests that
  // may wait for a slot beyond the `parallel` running ones.
  Status init(std::unique_ptr<TextRunner> first, int parallel, int queue_limit);

  // A place in the line (held while waiting and running); null when the line is full.
  class Ticket {
   public:
    explicit Ticket(SlotPool* p) : p_(p) {}
    ~Ticket();
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;

   private:
    SlotPool* p_;
  };
  std::shared_ptr<Ticket> admit();

  // Waits for a slot, keeps the longest prefix of its tokens that `ids` starts with,
  // prefills the rest and generates. A failure leaves the slot empty (reset), never busy.
  // `media`: the preprocessed images of the prompt, run through the slot's encoder first.
  // Reuse stops before the first media token: equal ids there may stand for other images.
  Status run(const std::vector<int32_t>& ids, const GenerationConfig& config,
             const std::function<void(const std::string&)>& on_text, SlotResult* result,
             const std::vector<MediaInput>* media = nullptr);

  int size() const { return static_cast<int>(slots_.size()); }
  int busy() const;
  int waiting() const;  // admitted, not yet on a slot
  const TextRunner& front() const { return *slots_[0].runner; }  // tokenizer, metadata (immutable)

 private:
  struct Slot {
    std::unique_ptr<TextRunner> runner;
    bool busy = false;
    uint64_t last_used = 0;
  };
  int acquire(const std::vector<int32_t>& ids);
  void release(int slot);

  std::vector<Slot> slots_;
  int queue_limit_ = 0;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int admitted_ = 0;               // tickets alive
  std::deque<uint64_t> line_;      // waiting requests, by arrival
  uint64_t next_ticket_ = 0, clock_ = 0;
};

}  // namespace pte::server
