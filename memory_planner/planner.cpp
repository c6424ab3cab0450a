// pte-run: arenas and the lifetime-based re-planner (see planner.h).
#include "memory_planner/planner.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>

#include <sys/mman.h>

namespace pte::planner {

void Arena::release() {
  if (!data_) return;
  if (borrowed_) {
  } else if (mapped_) {
    munmap(data_, mapped_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
  mapped_ = 0;
  size_ = 0;
  borrowed_ = false;
}

void Arena::borrow(uint8_t* data, size_t bytes) {
  release();
  std::memset(data, 0, bytes);
  data_ = data;
  size_ = bytes;
  borrowed_ = true;
}

bool Arena::allocate(size_t bytes) {
  release();
  if (bytes > kMaxArenaBytes) return false;
  size_t n = align_up(bytes == 0 ? 1 : bytes);
  if (n >= kMapThreshold) {
    // Large arenas come zeroed from the kernel, page by page as they are touched.
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    data_ = static_cast<uint8_t*>(p);
    mapped_ = n;
  } else {
    void* p = std::aligned_alloc(kAlignment, n);
    if (!p) return false;
    std::memset(p, 0, n);
    data_ = static_cast<uint8_t*>(p);
  }
  size_ = bytes;
  return true;
}

namespace {

struct Life {
  int32_t first_app = INT32_MAX;  // first instruction where the tensor appears
  int32_t last = -1;              // last instruction where it appears
  bool read_first = false;        // first appearance reads it (live-in: persists between runs)
};

struct Group {
  int32_t start = 0, end = -1;  // inclusive; end < start: never live
  int64_t key = -1;
  size_t bytes = 0;
  bool needs_memory = false;
  int32_t merged_into = -1;
};

bool overlaps(int32_t a0, int32_t a1, int32_t b0, int32_t b1) { return a0 <= b1 && b0 <= a1; }

int32_t find(std::vector<Group>& g, int32_t k) {
  while (g[k].merged_into >= 0) k = g[k].merged_into;
  return k;
}

// Extends group a's interval to cover [s, e] (an empty interval, e < s, changes
// nothing); true when it changed.
bool cover(Group& a, int32_t s, int32_t e) {
  if (e < s) return false;
  if (a.end < a.start) { a.start = s; a.end = e; return true; }
  bool changed = false;
  if (s < a.start) { a.start = s; changed = true; }
  if (e > a.end) { a.end = e; changed = true; }
  return changed;
}

// Merges group b into a (intervals united).
void merge(std::vector<Group>& g, int32_t a, int32_t b) {
  a = find(g, a);
  b = find(g, b);
  if (a == b) return;
  cover(g[a], g[b].start, g[b].end);
  g[b].merged_into = a;
}

}  // namespace

PlanResult replan(const PlanInput& in) {
  const int32_t nt = static_cast<int32_t>(in.tensors.size());
  const int32_t whole_end = in.num_instructions > 0 ? in.num_instructions - 1 : 0;
  std::vector<Life> life(nt);
  for (const PlanEvent& e : in.events) {
    if (e.tensor < 0 || e.tensor >= nt) continue;
    Life& l = life[e.tensor];
    if (l.first_app == INT32_MAX) {
      l.first_app = e.instruction;
      l.read_first = !e.def;
    }
    l.last = std::max(l.last, e.instruction);
  }

  // Each tensor's own interval.
  std::vector<int32_t> t_start(nt), t_end(nt);
  std::vector<bool> live_in(nt), dead(nt);
  for (int32_t t = 0; t < nt; ++t) {
    const Life& l = life[t];
    const bool to_end = in.tensors[t].to_end;
    dead[t] = !in.tensors[t].whole && !to_end && l.first_app == INT32_MAX;
    live_in[t] = in.tensors[t].whole || (!dead[t] && (l.read_first || l.first_app == INT32_MAX));
    if (in.tensors[t].whole) { t_start[t] = 0; t_end[t] = l.first_app == INT32_MAX ? 0 : l.last; }  // to the end after grouping
    else if (live_in[t]) { t_start[t] = 0; t_end[t] = whole_end; }
    else if (dead[t]) { t_start[t] = 0; t_end[t] = -1; }
    else { t_start[t] = l.first_app; t_end[t] = to_end ? whole_end : l.last; }
  }

  // Groups: one per tensor, then the file plan's shared slots are united.
  std::vector<Group> groups(nt);
  std::vector<int32_t> gid(nt);
  for (int32_t t = 0; t < nt; ++t) {
    gid[t] = t;
    groups[t].start = t_start[t];
    groups[t].end = t_end[t];
    groups[t].key = in.tensors[t].file_key;
  }
  std::map<int64_t, std::vector<int32_t>> buckets;
  for (int32_t t = 0; t < nt; ++t)
    if (in.tensors[t].file_key >= 0) buckets[in.tensors[t].file_key].push_back(t);
  for (auto& [key, members] : buckets) {
    if (members.size() < 2) continue;
    auto anchor = [&](int32_t t) { return dead[t] ? INT32_MAX : life[t].first_app == INT32_MAX ? INT32_MAX - 1 : life[t].first_app; };
    std::stable_sort(members.begin(), members.end(), [&](int32_t a, int32_t b) {
      if (anchor(a) != anchor(b)) return anchor(a) < anchor(b);
      return !live_in[a] && live_in[b];  // the writer before the readers of one instruction
    });
    std::vector<int32_t> bucket_groups;  // group ids (roots) created in this bucket, in creation order
    for (int32_t t : members) {
      // Inputs count as written at the start: they overlap only true aliases in the file's plan.
      bool self_defined = (!live_in[t] || in.tensors[t].whole) && !dead[t];
      int32_t join = -1;
      if (self_defined) {
        for (int32_t g : bucket_groups) {
          int32_t r = find(groups, g);
          if (overlaps(groups[r].start, groups[r].end, t_start[t], t_end[t])) {
            if (join < 0) join = r; else merge(groups, join, r), join = find(groups, join);
          }
        }
      } else {
        // A view read where nothing wrote it aliases whatever group last started at or before it.
        int32_t a = anchor(t), best_start = INT32_MIN;
        for (int32_t g : bucket_groups) {
          int32_t r = find(groups, g);
          if (groups[r].end >= groups[r].start && groups[r].start <= a && groups[r].start > best_start) {
            best_start = groups[r].start;
            join = r;
          }
        }
        if (join >= 0 && !dead[t] && !in.tensors[t].whole) {
          // Not live-in after all: the group's writer defined it; its uses extend the group.
          live_in[t] = false;
          t_start[t] = groups[join].start;
          t_end[t] = in.tensors[t].to_end ? whole_end : life[t].last;
          groups[t].start = t_start[t];
          groups[t].end = t_end[t];
        }
      }
      if (join >= 0) {
        merge(groups, join, t);
        join = find(groups, join);
        cover(groups[join], t_start[t], t_end[t]);
      } else {
        bucket_groups.push_back(t);
      }
    }
    // Slots of one bucket whose lifetimes overlap are the same storage.
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < bucket_groups.size() && !changed; ++i)
        for (size_t j = i + 1; j < bucket_groups.size() && !changed; ++j) {
          int32_t a = find(groups, bucket_groups[i]), b = find(groups, bucket_groups[j]);
          if (a != b && overlaps(groups[a].start, groups[a].end, groups[b].start, groups[b].end)) {
            merge(groups, a, b);
            changed = true;
          }
        }
    }
  }
  for (int32_t t = 0; t < nt; ++t) gid[t] = find(groups, t);
  for (int32_t t = 0; t < nt; ++t)
    if (in.tensors[t].whole) cover(groups[gid[t]], 0, whole_end);

  // Run-time aliases and loops extend lifetimes, to a fixpoint.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [src, alias] : in.aliases) {
      if (src < 0 || src >= nt || alias < 0 || alias >= nt) continue;
      Group& gs = groups[gid[src]];
      const Group& ga = groups[gid[alias]];
      if (gid[src] != gid[alias]) changed |= cover(gs, ga.start, ga.end);
    }
    for (auto [dest, from] : in.backward_jumps) {
      int32_t lo = std::min(dest, from), hi = std::max(dest, from);
      for (int32_t t = 0; t < nt; ++t) {
        if (gid[t] != t) continue;
        Group& g = groups[t];
        if (g.end >= g.start && overlaps(g.start, g.end, lo, hi)) changed |= cover(g, lo, hi);
      }
    }
  }

  for (int32_t t = 0; t < nt; ++t) {
    Group& g = groups[gid[t]];
    if (in.tensors[t].needs_memory && !dead[t]) {
      g.needs_memory = true;
      g.bytes = std::max(g.bytes, in.tensors[t].bytes);
    }
  }

  // Greedy by size, best fit.
  std::vector<int32_t> order;
  for (int32_t t = 0; t < nt; ++t)
    if (gid[t] == t && groups[t].needs_memory) order.push_back(t);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (groups[a].bytes != groups[b].bytes) return groups[a].bytes > groups[b].bytes;
    return groups[a].start < groups[b].start;
  });
  std::vector<int64_t> goff(nt, -1);
  std::vector<int32_t> placed;
  size_t arena = 0;
  std::vector<std::pair<size_t, size_t>> busy;
  for (int32_t g : order) {
    size_t size = align_up(groups[g].bytes);
    busy.clear();
    for (int32_t p : placed)
      if (overlaps(groups[g].start, groups[g].end, groups[p].start, groups[p].end))
        busy.push_back({static_cast<size_t>(goff[p]), align_up(groups[p].bytes)});
    std::sort(busy.begin(), busy.end());
    size_t cur = 0, best = SIZE_MAX, best_gap = SIZE_MAX;
    for (auto [off, sz] : busy) {
      if (off >= cur) {
        size_t gap = off - cur;
        if (gap >= size && gap < best_gap) { best = cur; best_gap = gap; }
      }
      cur = std::max(cur, off + sz);
    }
    if (best == SIZE_MAX) best = cur;
    goff[g] = static_cast<int64_t>(best);
    placed.push_back(g);
    arena = std::max(arena, best + size);
  }

  PlanResult r;
  r.offsets.assign(nt, -1);
  r.group.resize(nt);
  r.first.resize(nt);
  r.last.resize(nt);
  for (int32_t t = 0; t < nt; ++t) {
    const Group& g = groups[gid[t]];
    r.group[t] = gid[t];
    r.first[t] = g.start;
    r.last[t] = g.end;
    if (in.tensors[t].needs_memory && !dead[t]) r.offsets[t] = goff[gid[t]];
  }
  r.arena_bytes = arena;
  return r;
}

std::string check_plan(const PlanInput& in, const PlanResult& r) {
  const size_t nt = in.tensors.size();
  for (size_t a = 0; a < nt; ++a) {
    if (r.offsets[a] < 0) continue;
    if (r.offsets[a] % static_cast<int64_t>(kAlignment) != 0) return "tensor " + std::to_string(a) + " is not aligned";
    if (static_cast<size_t>(r.offsets[a]) + in.tensors[a].bytes > r.arena_bytes)
      return "tensor " + std::to_string(a) + " lies outside the arena";
    for (size_t b = a + 1; b < nt; ++b) {
      if (r.offsets[b] < 0) continue;
      if (r.group[a] == r.group[b]) {
        if (r.offsets[a] != r.offsets[b]) return "tensors " + std::to_string(a) + " and " + std::to_string(b) + " share a group but not an offset";
        continue;
      }
      if (!overlaps(r.first[a], r.last[a], r.first[b], r.last[b])) continue;
      int64_t a0 = r.offsets[a], a1 = a0 + static_cast<int64_t>(in.tensors[a].bytes);
      int64_t b0 = r.offsets[b], b1 = b0 + static_cast<int64_t>(in.tensors[b].bytes);
      if (a0 < b1 && b0 < a1 && a1 > a0 && b1 > b0)
        return "tensors " + std::to_string(a) + " and " + std::to_string(b) + " are live together and overlap in memory";
    }
  }
  return "";
}

}  // namespace pte::planner
