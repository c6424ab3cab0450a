// pte-run: PackArena (see pack_arena.h).
#include "memory_planner/pack_arena.h"

#include <sys/mman.h>

namespace pte::planner {

PackArena::~PackArena() {
  for (const Chunk& c : chunks_) munmap(c.base, c.size);
}

size_t PackArena::mapped_bytes() const {
  size_t n = 0;
  for (const Chunk& c : chunks_) n += c.size;
  return n;
}

uint8_t* PackArena::allocate(size_t bytes) {
  const size_t need = (bytes + 63) & ~size_t(63);
  if (need < bytes) return nullptr;  // (wrapped)
  if (need > left_) {
    if (need > SIZE_MAX - 2 * kHugePage) return nullptr;
    const size_t size = ((need > kChunk ? need : kChunk) + kHugePage - 1) & ~(kHugePage - 1);
    // map one huge page more, then unmap the parts before and after a 2 MB boundary
    void* m = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return nullptr;
    uint8_t* raw = static_cast<uint8_t*>(m);
    uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(raw) + kHugePage - 1) & ~uintptr_t(kHugePage - 1));
    if (base > raw) munmap(raw, static_cast<size_t>(base - raw));
    const size_t tail = static_cast<size_t>(raw + size + kHugePage - (base + size));
    if (tail) munmap(base + size, tail);
#if defined(MADV_HUGEPAGE)
    (void)madvise(base, size, MADV_HUGEPAGE);  // (refused without THP: 4 KB pages then)
#endif
    chunks_.push_back({base, size});
    cur_ = base, left_ = size;
  }
  uint8_t* p = cur_;
  cur_ += need, left_ -= need;
  return p;
}

}  // namespace pte::planner
