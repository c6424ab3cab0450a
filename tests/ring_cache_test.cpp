// Sliding-window layers kept as ring buffers (cache/kv_cache.h) on fixtures/data/ring_gemma3:
// a tiny Gemma3 text decoder (window 8, context 64, layers sliding/full/sliding) exported
// with optimum-executorch's custom ring KV cache, portable and XNNPACK recipes
// (fixtures/make_ring_decoder.py). Generation well past the window equals transformers'
// greedy generate (reference.json); reset, rewind (within what the ring still holds, and
// refused beyond it), save and restore continue as never stopping.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cache/kv_cache.h"
#include "cli_spawn.h"
#include "llm/runner.h"
#include "runner_helpers.h"
#include "util/json.h"

namespace {

namespace fs = std::filesystem;

const fs::path kDir = "fixtures/data/ring_gemma3";

struct Reference {
  std::string prompt;
  std::vector<int32_t> prompt_ids, generated;
  int64_t window = 0, context = 0;
};

bool load_reference(Reference* ref) {
  std::ifstream f(kDir / "reference.json", std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  pte::json::Value doc;
  REQUIRE(pte::json::parse(ss.str(), &doc));
  ref->prompt = doc.find("prompt")->as_string();
  for (const auto& v : doc.find("prompt_ids")->items()) ref->prompt_ids.push_back(static_cast<int32_t>(v.as_int()));
  for (const auto& v : doc.find("generated")->items()) ref->generated.push_back(static_cast<int32_t>(v.as_int()));
  ref->window = doc.find("window")->as_int();
  ref->context = doc.find("context")->as_int();
  return true;
}

std::unique_ptr<pte::TextRunner> runner(const std::string& model) { return pte_test::open_runner(model); }
using pte_test::generate_ids;
using pte_test::greedy;
using pte_test::slice;

}  // namespace

TEST_CASE("ring kv cache: sliding-window Gemma3 generates as transformers past the window (portable, XNNPACK)") {
  Reference ref;
  if (!load_reference(&ref)) {
    MESSAGE("skipped: " << (kDir / "reference.json").string() << " missing (fixtures/make_ring_decoder.py)");
    return;
  }
  REQUIRE(ref.generated.size() == 40);
  REQUIRE(ref.window == 8);
  // the run goes well past the window and past the ring's 16 slots
  REQUIRE(static_cast<int64_t>(ref.prompt_ids.size() + ref.generated.size()) > 4 * ref.window);
  for (const char* recipe : {"portable", "xnnpack"}) {
    CAPTURE(recipe);
    auto r = runner((kDir / (std::string(recipe) + ".pte")).string());
    const pte::KvCache& c = r->cache();
    CHECK(c.unsupported().empty());
    CHECK(c.capacity() == ref.context);
    CHECK(c.tensors().size() == 8);  // 3 layers K and V, 2 ring position tensors
    CHECK(c.layers() == 3);
    CHECK(c.ring_layers() == 2);
    CHECK(c.window() == 8);
    CHECK(c.ring_slots() == 16);
    int full = 0, ring = 0, pos = 0;
    for (const auto& t : c.tensors()) {
      if (t.kind == pte::CacheKind::Full) {
        ++full;
        CHECK(t.tensor->sizes[t.position_dim] == 64);
      } else if (t.kind == pte::CacheKind::Ring) {
        ++ring;
        CHECK(t.tensor->sizes[t.position_dim] == 16);
      } else {
        ++pos;
        CHECK(t.tensor->dtype == pte::DType::Int64);
      }
    }
    CHECK(full == 2);
    CHECK(ring == 4);
    CHECK(pos == 2);

    pte::GenerationStats st;
    REQUIRE(r->generate(ref.prompt, greedy(40), [](const std::string&) {}, &st));
    CHECK(st.prompt_ids == ref.prompt_ids);  // 17 tokens: prefilled in chunks of at most 7
    CHECK(st.tokens == ref.generated);
    CHECK(r->position() == static_cast<int64_t>(ref.prompt_ids.size() + 39));

    // reset: the same again
    r->reset();
    CHECK(r->position() == 0);
    pte::GenerationStats again;
    REQUIRE(r->generate(ref.prompt, greedy(40), [](const std::string&) {}, &again));
    CHECK(again.tokens == ref.generated);
  }
}

TEST_CASE("ring kv cache: rewind within the ring, refused beyond it; save and restore") {
  Reference ref;
  if (!load_reference(&ref)) {
    MESSAGE("skipped: " << (kDir / "reference.json").string() << " missing (fixtures/make_ring_decoder.py)");
    return;
  }
  const auto& gen = ref.generated;
  const int64_t p = static_cast<int64_t>(ref.prompt_ids.size());  // history[p + k] = gen[k]
  for (const char* recipe : {"portable", "xnnpack"}) {
    CAPTURE(recipe);
    auto r = runner((kDir / (std::string(recipe) + ".pte")).string());
    const pte::KvCache& c = r->cache();
    // prompt and 20 tokens: position p + 19, past the ring's 16 slots
    CHECK(generate_ids(*r, ref.prompt_ids, 20) == slice(gen, 0, 20));
    const int64_t at = p + 19;
    REQUIRE(r->position() == at);
    std::vector<uint8_t> saved = c.save();
    CHECK(saved.size() == c.saved_bytes(at));
    std::vector<int32_t> tokens = r->tokens();

    // back 10 positions: position at-10's window reaches at-17, overwritten in a 16-slot ring
    pte::Status s = r->rewind(at - 10);
    CHECK(!s);
    CHECK(s.message().find("sliding-window") != std::string::npos);
    CHECK(r->position() == at);  // nothing changed: continuing gives transformers' tokens
    CHECK(c.save() == saved);

    // back 9 (the most a ring of 16 slots with window 8 allows): feed gen[10] again
    REQUIRE(r->rewind(at - 9));
    CHECK(r->position() == at - 9);
    CHECK(generate_ids(*r, {gen[10]}, 15) == slice(gen, 11, 26));

    // restore the saved state: continue as never stopping
    r->reset();
    REQUIRE(r->restore(tokens, saved.data(), saved.size()));
    CHECK(r->position() == at);
    CHECK(generate_ids(*r, {gen[19]}, 20) == slice(gen, 20, 40));
    // a cache of the wrong size is refused
    CHECK(!r->restore(tokens, saved.data(), saved.size() - 8));
    // back to 0 always works
    REQUIRE(r->rewind(0));
    CHECK(generate_ids(*r, ref.prompt_ids, 40) == gen);
  }
}

TEST_CASE("ring kv cache: pte-run info --memory reports the ring layers") {
  REQUIRE_MESSAGE(fs::exists(kDir / "portable.pte"), (kDir / "portable.pte").string() << " is missing (a committed fixture)");
  pte_test::CliRun r = pte_test::run_pte_run({"info", (kDir / "portable.pte").string(), "--memory"});
  CHECK(r.code == 0);
  const std::string& out = r.out;
  CHECK(out.find("8 tensors (3 layers, K and V)") != std::string::npos);
  CHECK(out.find("64 positions; 2 of the layers sliding-window (window 8) in ring buffers of 16 slots") != std::string::npos);
}
