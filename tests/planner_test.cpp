// pte-run: the lifetime re-planner (memory_planner/planner.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "memory_planner/pack_arena.h"
#include "memory_planner/planner.h"

namespace pte::planner {
namespace {

PlanTensor tensor(size_t bytes, int64_t file_key = -1, bool whole = false) {
  PlanTensor t;
  t.bytes = bytes;
  t.needs_memory = true;
  t.file_key = file_key;
  t.whole = whole;
  return t;
}

TEST_CASE("planner: a chain reuses memory once a tensor is dead") {
  // t0 -> t1 -> t2 -> t3: each lives from its definition to the next instruction.
  PlanInput in;
  in.num_instructions = 4;
  for (int k = 0; k < 4; ++k) in.tensors.push_back(tensor(100));
  in.events = {{0, 0, true}, {1, 0, false}, {1, 1, true}, {2, 1, false}, {2, 2, true}, {3, 2, false}, {3, 3, true}};
  PlanResult r = replan(in);
  CHECK(check_plan(in, r) == "");
  CHECK(r.arena_bytes == 2 * 128);  // two 100-byte tensors (64-aligned slots) at any time
  CHECK(r.offsets[0] == r.offsets[2]);
  CHECK(r.offsets[1] == r.offsets[3]);
  CHECK(r.offsets[0] != r.offsets[1]);
}

TEST_CASE("planner: inputs, outputs and live-in buffers live for the whole method") {
  PlanInput in;
  in.num_instructions = 3;
  in.tensors = {tensor(64, -1, true), tensor(64), tensor(64), tensor(64, -1, true), tensor(64)};
  // 0: in0 -> t1; 1: t1 -> t2; 2: t2 + buffer(4, read first) -> out3
  in.events = {{0, 0, false}, {0, 1, true}, {1, 1, false}, {1, 2, true}, {2, 2, false}, {2, 4, false}, {2, 3, true}};
  PlanResult r = replan(in);
  CHECK(check_plan(in, r) == "");
  CHECK(r.first[0] == 0);
  CHECK(r.last[0] == 2);
  CHECK(r.first[4] == 0);  // the buffer is read before any write: it persists
  CHECK(r.last[4] == 2);
  CHECK(r.offsets[1] != r.offsets[2]);  // t1 and t2 are both live at instruction 1
  // in0, out3, buffer4 always live; t1 and t2 overlap at instruction 1: 5 slots.
  CHECK(r.arena_bytes == 5 * 64);
}

TEST_CASE("planner: tensors sharing a file slot (elided views) stay aliased") {
  PlanInput in;
  in.num_instructions = 5;
  const int64_t slot = (int64_t{1} << 40) | 256;
  // t0 written at 1; t1 is a static view of t0 (same slot) read at 3 and 4, never written.
  in.tensors = {tensor(48, slot), tensor(48, slot), tensor(48), tensor(48), tensor(48)};
  in.events = {{0, 4, true}, {1, 0, true}, {2, 0, false}, {2, 2, true}, {3, 1, false}, {3, 3, true}, {4, 1, false}, {4, 2, false}};
  PlanResult r = replan(in);
  CHECK(check_plan(in, r) == "");
  CHECK(r.group[0] == r.group[1]);
  CHECK(r.offsets[0] == r.offsets[1]);
  CHECK(r.first[1] == 1);  // the view lives from its base's definition, not from the start
  CHECK(r.last[1] == 4);
  CHECK(r.offsets[4] == r.offsets[0]);  // t4 (dead after 0) may take the slot
  // The view keeps its storage alive, so t2 (live 1..3) cannot take it.
  CHECK(r.offsets[2] != r.offsets[0]);
}

TEST_CASE("planner: outputs live from their definition to the end") {
  PlanInput in;
  in.num_instructions = 4;
  PlanTensor out = tensor(64);
  out.to_end = true;
  in.tensors = {tensor(64), tensor(64), out};
  in.events = {{0, 0, true}, {1, 0, false}, {1, 1, true}, {2, 1, false}, {2, 2, true}};
  PlanResult r = replan(in);
  CHECK(check_plan(in, r) == "");
  CHECK(r.first[2] == 2);
  CHECK(r.last[2] == 3);
  CHECK(r.offsets[2] == r.offsets[0]);  // t0 is dead by then
  CHECK(r.arena_bytes == 128);
  // An output that no instruction touches (an elided view) joins the slot's last writer.
  PlanInput v;
  v.num_instructions = 3;
  const int64_t slot = (int64_t{1} << 40) | 64;
  PlanTensor view_out = tensor(64, slot);
  view_out.to_end = true;
  v.tensors = {tensor(64, slot), tensor(64), view_out};
  v.events = {{0, 1, true}, {1, 1, false}, {1, 0, true}};
  PlanResult rv = replan(v);
  CHECK(check_plan(v, rv) == "");
  CHECK(rv.group[2] == rv.group[0]);
  CHECK(rv.first[2] == 1);
  CHECK(rv.last[2] == 2);
}

TEST_CASE("planner: reuse of one file slot by unrelated tensors is not an alias") {
  PlanInput in;
  in.num_instructions = 4;
  const int64_t slot = (int64_t{1} << 40) | 0;
  in.tensors = {tensor(64, slot), tensor(64), tensor(64, slot), tensor(64)};
  in.events = {{0, 0, true}, {1, 0, false}, {1, 1, true}, {2, 1, false}, {2, 2, true}, {3, 2, false}, {3, 3, true}};
  PlanResult r = replan(in);
  CHECK(check_plan(in, r) == "");
  CHECK(r.group[0] != r.group[2]);
  CHECK(r.last[0] == 1);
  CHECK(r.first[2] == 2);
}

TEST_CASE("planner: run-time aliases and loops extend lifetimes") {
  SUBCASE("et_view output keeps its source alive") {
    PlanInput in;
    in.num_instructions = 3;
    PlanTensor view = tensor(0);
    view.needs_memory = false;
    in.tensors = {tensor(64), view, tensor(64)};
    in.events = {{0, 0, true}, {1, 0, false}, {1, 1, true}, {2, 1, false}, {2, 2, true}};
    in.aliases = {{0, 1}};
    PlanResult r = replan(in);
    CHECK(check_plan(in, r) == "");
    CHECK(r.last[0] == 2);             // used through the view at 2
    CHECK(r.offsets[1] == -1);         // the view has no memory of its own
    CHECK(r.offsets[0] != r.offsets[2]);
  }
  SUBCASE("a backward jump keeps loop values live for the whole loop") {
    PlanInput in;
    in.num_instructions = 5;
    in.tensors = {tensor(64), tensor(64), tensor(64)};
    // loop body 1..3: t0 defined at 1 used at 2; t1 defined at 2 used at 3; jump at 3 back to 1.
    in.events = {{1, 0, true}, {2, 0, false}, {2, 1, true}, {3, 1, false}, {4, 2, true}};
    in.backward_jumps = {{1, 3}};
    PlanResult r = replan(in);
    CHECK(check_plan(in, r) == "");
    CHECK(r.first[0] == 1);
    CHECK(r.last[0] == 3);
    CHECK(r.first[1] == 1);
    CHECK(r.offsets[0] != r.offsets[1]);
  }
}

TEST_CASE("planner: best fit puts a small tensor into the smallest hole") {
  PlanInput in;
  in.num_instructions = 4;
  // a (512) and c (128) die after instruction 1; b (256) and d (64) live throughout.
  // Placed largest first: a 0, b 512, c 768, d 896. x (64, live 2..3) then sees two
  // holes, [0,512) and [768,896): best fit takes the smaller one.
  in.tensors = {tensor(512), tensor(256, -1, true), tensor(128), tensor(64, -1, true), tensor(64)};
  in.events = {{0, 0, true}, {0, 2, true}, {1, 0, false}, {1, 2, false}, {2, 4, true}, {3, 4, false}};
  PlanResult r = replan(in);
  CHECK(check_plan(in, r) == "");
  CHECK(r.offsets[0] == 0);
  CHECK(r.offsets[1] == 512);
  CHECK(r.offsets[2] == 768);
  CHECK(r.offsets[3] == 896);
  CHECK(r.offsets[4] == 768);
  CHECK(r.arena_bytes == 960);
}

TEST_CASE("planner: random programs never overlap live tensors") {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    PlanInput in;
    in.num_instructions = 1 + static_cast<int32_t>(rng() % 30);
    int nt = 1 + static_cast<int>(rng() % 25);
    for (int t = 0; t < nt; ++t) {
      PlanTensor pt = tensor(rng() % 500, rng() % 4 == 0 ? static_cast<int64_t>(rng() % 3) : -1, rng() % 6 == 0);
      pt.needs_memory = rng() % 8 != 0;
      pt.to_end = rng() % 7 == 0;
      in.tensors.push_back(pt);
    }
    for (int32_t i = 0; i < in.num_instructions; ++i) {
      int n = static_cast<int>(rng() % 4);
      for (int k = 0; k < n; ++k) in.events.push_back({i, static_cast<int32_t>(rng() % nt), rng() % 2 == 0});
    }
    if (rng() % 3 == 0) in.aliases.push_back({static_cast<int32_t>(rng() % nt), static_cast<int32_t>(rng() % nt)});
    if (rng() % 4 == 0) {
      int32_t a = static_cast<int32_t>(rng() % in.num_instructions), b = static_cast<int32_t>(rng() % in.num_instructions);
      in.backward_jumps.push_back({std::min(a, b), std::max(a, b)});
    }
    PlanResult r = replan(in);
    CAPTURE(trial);
    REQUIRE(check_plan(in, r) == "");
    // Every used tensor's own uses lie inside its group's lifetime.
    for (const PlanEvent& e : in.events) {
      if (r.offsets[e.tensor] < 0) continue;
      CHECK(r.first[e.tensor] <= e.instruction);
      CHECK(r.last[e.tensor] >= e.instruction);
    }
  }
}

TEST_CASE("planner: arenas are zeroed and 64-byte aligned") {
  Arena a;
  REQUIRE(a.allocate(1000));
  CHECK(reinterpret_cast<uintptr_t>(a.data()) % 64 == 0);
  CHECK(a.size() == 1000);
  bool zero = true;
  for (size_t k = 0; k < 1000; ++k) zero = zero && a.data()[k] == 0;
  CHECK(zero);
  Arena empty;
  REQUIRE(empty.allocate(0));
  CHECK(empty.data() != nullptr);
  Arena big;  // mapped
  REQUIRE(big.allocate(size_t{3} << 20));
  CHECK(reinterpret_cast<uintptr_t>(big.data()) % 64 == 0);
  CHECK(big.data()[0] == 0);
  CHECK(big.data()[(size_t{3} << 20) - 1] == 0);
  big.data()[12345] = 7;
  Arena moved = std::move(big);
  CHECK(moved.data()[12345] == 7);
  CHECK(big.data() == nullptr);
  Arena absurd;
  CHECK_FALSE(absurd.allocate(SIZE_MAX / 4 * 3));  // 2^62-ish on 64-bit, 3 GiB on 32-bit: over the limit either way
}

}  // namespace
}  // namespace pte::planner

TEST_CASE("PackArena: 64-byte aligned, disjoint, writable blocks in 2 MB-aligned chunks; big blocks get a chunk of their own") {
  pte::planner::PackArena a;
  CHECK(a.mapped_bytes() == 0);  // nothing mapped before the first block
  std::vector<std::pair<uint8_t*, size_t>> blocks;
  for (size_t n : {size_t{1}, size_t{100}, size_t{4096}, size_t{333333}, size_t{1} << 20}) {
    uint8_t* p = a.allocate(n);
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    std::memset(p, static_cast<int>(n & 0xFF), n);
    blocks.push_back({p, n});
  }
  CHECK(a.mapped_bytes() == pte::planner::PackArena::kChunk);  // all in the first chunk
  const size_t big = pte::planner::PackArena::kChunk + 12345;
  uint8_t* b = a.allocate(big);
  REQUIRE(b != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(b) % pte::planner::PackArena::kHugePage == 0);  // a new chunk starts it
  b[0] = 1, b[big - 1] = 2;
  CHECK(a.mapped_bytes() == pte::planner::PackArena::kChunk + (big + pte::planner::PackArena::kHugePage - 1) /
                                                                      pte::planner::PackArena::kHugePage *
                                                                      pte::planner::PackArena::kHugePage);
  for (size_t i = 0; i < blocks.size(); ++i) {  // disjoint: each still holds its own bytes
    const auto [p, n] = blocks[i];
    CHECK(p[0] == static_cast<uint8_t>(n & 0xFF));
    CHECK(p[n - 1] == static_cast<uint8_t>(n & 0xFF));
    for (size_t j = i + 1; j < blocks.size(); ++j) CHECK((p + n <= blocks[j].first || blocks[j].first + blocks[j].second <= p));
  }
  CHECK(a.allocate(SIZE_MAX - 10) == nullptr);  // refused, not wrapped
}
