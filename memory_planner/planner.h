// pte-run: memory planning.
//
// Two sources of arena layout for a method:
//  (a) the file's own plan: ExecutionPlan.non_const_buffer_sizes[1..] arenas and each
//      tensor's (memory_id, offset); the method loader checks every tensor against it;
//  (b) our re-plan (replan() below), from tensor lifetimes over the instruction list:
//      used when the file has no (complete) plan or when MethodOptions::replan_memory.
//
// Re-planning rules:
//  - a tensor lives from its definition (first instruction where it is written: the
//    return slot of a KernelCall, or its first appearance in a DelegateCall) to its
//    last use;
//  - inputs and tensors read before any write (mutable buffers such as KV caches,
//    whose contents persist between runs) live for the whole method; outputs live
//    from their definition to the end (they are read after execute() returns);
//  - tensors that share storage in the file's plan (elided static views: same
//    memory_id and offset with overlapping lifetimes, or a view read where no
//    instruction wrote it) form one group and get one slot;
//  - a value that aliases another at run time (et_view output, MoveCall target)
//    keeps its source alive for as long as it is used;
//  - a backward jump (loop) keeps everything live inside the loop for the whole loop;
//  - groups are placed greedily, largest first, each into the smallest gap that
//    fits among the groups already placed whose lifetimes overlap (best fit),
//    every offset aligned to 64 bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pte::planner {

constexpr size_t kAlignment = 64;

inline size_t align_up(size_t n, size_t a = kAlignment) { return (n + a - 1) / a * a; }

// A zeroed, 64-byte aligned block of memory. From 16 KiB up it is an anonymous
// mapping (zero pages, committed as they are touched), so allocating an arena never
// writes more than 16 KiB whatever size a (possibly damaged) plan asks for.
class Arena {
 public:
  static constexpr size_t kMapThreshold = size_t{16} << 10;
  // refuses absurd plans outright: 1 TiB, or half the address space where size_t has 32 bits
  static constexpr size_t kMaxArenaBytes = sizeof(size_t) >= 8 ? static_cast<size_t>(uint64_t{1} << 40) : SIZE_MAX / 2;

  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&& o) noexcept : data_(o.data_), size_(o.size_), mapped_(o.mapped_), borrowed_(o.borrowed_) {
    o.data_ = nullptr; o.size_ = o.mapped_ = 0; o.borrowed_ = false;
  }
  Arena& operator=(Arena&& o) noexcept {
    if (this != &o) {
      release();
      data_ = o.data_; size_ = o.size_; mapped_ = o.mapped_; borrowed_ = o.borrowed_;
      o.data_ = nullptr; o.size_ = o.mapped_ = 0; o.borrowed_ = false;
    }
    return *this;
  }
  ~Arena() { release(); }

  // Returns false when the allocation fails (or is over kMaxArenaBytes).
  bool allocate(size_t bytes);
  // Uses caller memory (Program::MethodOptions::memory), zero-filled here, never freed.
  void borrow(uint8_t* data, size_t bytes);
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void release();
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;  // bytes mapped, 0 when from the heap
  bool borrowed_ = false;
};

// ---- lifetime re-planning ---------------------------------------------------------

struct PlanTensor {
  size_t bytes = 0;
  bool needs_memory = false;  // gets a slot (else: lifetime only, e.g. an et_view output)
  bool whole = false;         // input, initialised mutable buffer: live for the whole method
  bool to_end = false;        // output: live from its definition to the end of the method
  int64_t file_key = -1;      // (memory_id << 40) | offset in the file's plan; -1 when unplanned
};

struct PlanEvent {
  int32_t instruction;
  int32_t tensor;
  bool def;  // written by this instruction (else read)
};

struct PlanInput {
  int32_t num_instructions = 0;
  std::vector<PlanTensor> tensors;
  std::vector<PlanEvent> events;                         // in instruction order
  std::vector<std::pair<int32_t, int32_t>> backward_jumps;  // (destination, jump instruction)
  // (source, alias): `source`'s storage must stay alive while `alias` is in use.
  std::vector<std::pair<int32_t, int32_t>> aliases;
};

struct PlanResult {
  std::vector<int64_t> offsets;  // per tensor; -1 when it needs no memory
  std::vector<int32_t> group;    // per tensor: storage group id
  std::vector<int32_t> first;    // per tensor: group lifetime (inclusive instruction range)
  std::vector<int32_t> last;
  size_t arena_bytes = 0;
};

PlanResult replan(const PlanInput& in);

// Checks a result: no two tensors of different groups whose lifetimes overlap share
// bytes, and each tensor of a group has the group's offset. Returns "" when valid.
std::string check_plan(const PlanInput& in, const PlanResult& r);

}  // namespace pte::planner
