// pte-run: load-time memory for repacked weights, in chunks advised for transparent huge
// pages.
//
// A decode step streams every repacked weight once (SmolLM2-135M 8da4w: ~75 MB of packed
// 4-bit filters, four streams per thread at once). From 4 KB pages that walk crosses a
// page every 4 KB of each stream; from 2 MB pages it rarely misses the TLB. Measured on
// the 2-core Zen 4 VM: the 8da4w products of a SmolLM2 decode step 3.6 -> 3.1 ms (medians
// of 4 interleaved runs), peak RSS +1-2 MB; a plain sequential read 18 -> 27 GB/s.
// Where the kernel has no transparent huge pages the advice fails and 4 KB pages serve;
// PTE_HUGE_PAGES=0 asks for none. The cost: a fresh 2 MB page is zeroed at its first
// touch (~0.2 ms where the memory is backed), but on a VM that hands free 2 MB blocks back
// to its host (free page reporting) each one is faulted in from the host first: on the KVM
// VM above SmolLM2 8da4w loads took 93-428 ms against 114-123 ms on 4 KB pages (the
// benchmark's median 510 ms, right after the other runtimes freed their memory). So the
// first huge page of the process is timed (pack_arena.cpp): slower than 2 ms, and the
// process stops asking.
//
// Blocks are 64-byte aligned, bump-allocated from chunks of at least kChunk bytes (2 MB
// aligned, mapped anonymously, untouched pages cost nothing) and freed all together with
// the arena (its owner unloads). Not thread-safe: one owner fills it at load.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pte::planner {

class PackArena {
 public:
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kChunk = size_t{16} << 20;
  PackArena() = default;
  PackArena(const PackArena&) = delete;
  PackArena& operator=(const PackArena&) = delete;
  ~PackArena();
  // `bytes` writable bytes, 64-byte aligned, or null when the system refuses the memory.
  uint8_t* allocate(size_t bytes);
  // Bytes mapped for chunks (reserved, not necessarily resident).
  size_t mapped_bytes() const;

 private:
  struct Chunk {
    uint8_t* base;
    size_t size;
  };
  std::vector<Chunk> chunks_;
  uint8_t* cur_ = nullptr;
  size_t left_ = 0;
};

}  // namespace pte::planner
