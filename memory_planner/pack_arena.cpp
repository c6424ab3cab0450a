// pte-run: PackArena (see pack_arena.h).
#include "memory_planner/pack_arena.h"

#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace pte::planner {

namespace {

// Whether chunks get the huge-page advice: PTE_HUGE_PAGES=0 never; else until a first
// 2 MB page proves slow to fault in (huge_page_probe), then never again in this process.
std::atomic<int> g_huge{-1};  // -1: not read yet, 0: off, 1: on

bool huge_pages_wanted() {
  int v = g_huge.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* e = std::getenv("PTE_HUGE_PAGES");
    v = e && std::strcmp(e, "0") == 0 ? 0 : 1;
    int expect = -1;
    if (!g_huge.compare_exchange_strong(expect, v)) v = expect;
  }
  return v == 1;
}

// Faults in the chunk's first 2 MB page and times it. Zeroing a page the host backs takes
// ~0.1-0.3 ms; on a VM that returns free 2 MB blocks to its host (free page reporting, as
// on the KVM VM of pack_arena.h) every fresh huge page is faulted in from the host, ~10 ms
// each: then the rest of the chunk and later chunks take 4 KB pages (recycled, resident).
void huge_page_probe(uint8_t* base, size_t size) {
  const auto t0 = std::chrono::steady_clock::now();
  *reinterpret_cast<volatile uint8_t*>(base) = 0;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (ms > 2.0) {
    g_huge.store(0, std::memory_order_relaxed);
#if defined(MADV_NOHUGEPAGE)
    if (size > PackArena::kHugePage) (void)madvise(base + PackArena::kHugePage, size - PackArena::kHugePage, MADV_NOHUGEPAGE);
#endif
  }
}

}  // namespace

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
    // (refused without THP: 4 KB pages then)
    if (huge_pages_wanted() && madvise(base, size, MADV_HUGEPAGE) == 0) huge_page_probe(base, size);
#endif
    chunks_.push_back({base, size});
    cur_ = base, left_ = size;
  }
  uint8_t* p = cur_;
  cur_ += need, left_ -= need;
  return p;
}

}  // namespace pte::planner
