// KV caches passed as method inputs and returned as outputs (cache/kv_cache.h) on
// fixtures/data/static_kv: a tiny Llama-style decoder (context 32, 2 layers) exported with
// its caches as inputs, returning either the new positions (ExecuTorch's static-attention
// style, chunked prefill) or the whole updated caches (transformers' past_key_values
// style), portable and XNNPACK (fixtures/make_static_kv_decoder.py). Generation equals
// transformers' greedy generate (reference.json, which the official runtime and the same
// weights exported with buffers matched); rewind, reset, save/restore and saved sessions
// work on this cache; inputs that do not pair with outputs are refused with one line.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_spawn.h"
#include "cache/kv_cache.h"
#include "llm/runner.h"
#include "runner_helpers.h"
#include "llm/session.h"
#include "program_builder.h"
#include "util/json.h"

namespace {

namespace fs = std::filesystem;

const fs::path kDir = "fixtures/data/static_kv";
const char* const kPrograms[] = {"slices_portable", "slices_xnnpack", "whole_portable", "whole_xnnpack"};

struct Reference {
  std::string prompt;
  std::vector<int32_t> prompt_ids, generated, buffers_export;
  int64_t context = 0;
};

void load_reference(Reference* ref) {
  const pte::json::Value doc = pte_test::read_fixture_json(kDir / "reference.json", "fixtures/make_static_kv_decoder.py");
  ref->prompt = doc.find("prompt")->as_string();
  ref->prompt_ids = pte_test::json_ints(doc.find("prompt_ids"));
  ref->generated = pte_test::json_ints(doc.find("generated"));
  ref->buffers_export = pte_test::json_ints(doc.find("buffers_export"));
  ref->context = doc.find("context")->as_int();
}

std::unique_ptr<pte::TextRunner> runner(const std::string& name) { return pte_test::open_runner((kDir / (name + ".pte")).string()); }
using pte_test::generate_ids;
using pte_test::greedy;
using pte_test::slice;

}  // namespace

TEST_CASE("static kv cache: caches passed as inputs generate as transformers (slices and whole, portable and XNNPACK)") {
  Reference ref;
  load_reference(&ref);
  REQUIRE(ref.generated.size() == 12);
  // the same weights exported with the cache in buffers gave the same tokens
  CHECK(ref.buffers_export == ref.generated);
  for (const char* name : kPrograms) {
    CAPTURE(name);
    const bool slices = std::string(name).rfind("slices", 0) == 0;
    auto r = runner(name);
    const pte::KvCache& c = r->cache();
    CHECK(c.where() == "method inputs");
    CHECK(c.unsupported().empty());
    CHECK(c.capacity() == ref.context);
    CHECK(c.input_tensors() == 4);
    CHECK(c.layers() == 2);
    CHECK(c.bytes() == 4 * 2 * 32 * 8 * sizeof(float));
    for (size_t k = 0; k < c.tensors().size(); ++k) {
      const pte::CacheTensor& t = c.tensors()[k];
      CHECK(t.input == static_cast<int>(2 + k));
      CHECK(t.output == static_cast<int>(1 + k));
      CHECK(t.slice == slices);
      CHECK(t.position_dim == 2);
      CHECK(t.kind == pte::CacheKind::Full);
    }
    // the method reads the caches in place (no folded view shares their slots in the
    // slices programs; in the whole ones the exporter's plan keeps some planned)
    if (slices)
      for (const auto& t : c.tensors()) CHECK(t.by_pointer);
    // the slices programs prefill 8 tokens a call, the whole-cache ones one
    CHECK(r->metadata().prefill_chunk == (slices ? 8 : 1));

    pte::GenerationStats st;
    REQUIRE(r->generate(ref.prompt, greedy(12), [](const std::string&) {}, &st));
    CHECK(st.prompt_ids == ref.prompt_ids);
    CHECK(st.tokens == ref.generated);
    CHECK(r->position() == static_cast<int64_t>(ref.prompt_ids.size() + 11));
    CHECK(c.length() == r->position());

    r->reset();
    CHECK(c.length() == 0);
    CHECK(generate_ids(*r, ref.prompt_ids, 12) == ref.generated);
  }
}

TEST_CASE("static kv cache: rewind, save and restore, saved sessions") {
  Reference ref;
  load_reference(&ref);
  const auto& gen = ref.generated;
  const int64_t p = static_cast<int64_t>(ref.prompt_ids.size());
  fs::path dir = fs::temp_directory_path() / ("pte_static_kv_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* name : kPrograms) {
    CAPTURE(name);
    auto r = runner(name);
    const pte::KvCache& c = r->cache();
    CHECK(generate_ids(*r, ref.prompt_ids, 6) == slice(gen, 0, 6));
    const int64_t at = p + 5;
    REQUIRE(r->position() == at);
    std::vector<uint8_t> saved = c.save();
    CHECK(saved.size() == c.saved_bytes(at));
    CHECK(saved.size() == 4 * 2 * static_cast<size_t>(at) * 8 * sizeof(float));
    std::vector<int32_t> tokens = r->tokens();
    const std::string session = (dir / (std::string(name) + ".session")).string();
    pte::Status s = pte::save_session(*r, session);
    REQUIRE_MESSAGE(s, s.message());

    // back 3 positions (undo), the same token again: the same continuation
    REQUIRE(r->rewind(at - 3));
    CHECK(c.length() == at - 3);
    CHECK(generate_ids(*r, {gen[2]}, 6) == slice(gen, 3, 9));

    // restore the saved cache: continue as never stopping
    r->reset();
    REQUIRE(r->restore(tokens, saved.data(), saved.size()));
    CHECK(c.save() == saved);
    CHECK(generate_ids(*r, {gen[5]}, 6) == slice(gen, 6, 12));
    CHECK(!r->restore(tokens, saved.data(), saved.size() - 4));

    // a saved session, loaded into a fresh runner
    auto fresh = runner(name);
    s = pte::load_session(*fresh, session);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(fresh->position() == at);
    CHECK(generate_ids(*fresh, {gen[5]}, 6) == slice(gen, 6, 12));

    REQUIRE(r->rewind(0));
    CHECK(generate_ids(*r, ref.prompt_ids, 12) == gen);
  }
  // a session of one program is refused by another
  auto other = runner("whole_portable");
  pte::Status s = pte::load_session(*other, (dir / "slices_portable.session").string());
  CHECK(!s);
  fs::remove_all(dir);
}

namespace {

// forward(tokens i64[1,1], pos i64[1], caches...) -> (logits, outputs...): the outputs are
// the inputs themselves (attach only reads the signature)
pte::Status attach_synthetic(const std::vector<std::vector<int32_t>>& caches, const std::vector<std::vector<int32_t>>& outs,
                             std::unique_ptr<pte::KvCache>* cache, bool dynamic_outputs = false) {
  pte::test::ProgramBuilder b;
  pte::test::ProgramBuilder::TensorSpec tok;
  tok.dtype = pte::DType::Int64;
  tok.sizes = {1, 1};
  int t = b.tensor(tok);
  tok.sizes = {1};
  int pos = b.tensor(tok);
  b.inputs = {t, pos};
  for (const auto& c : caches) {
    pte::test::ProgramBuilder::TensorSpec s;
    s.sizes = c;
    b.inputs.push_back(b.tensor(s));
  }
  pte::test::ProgramBuilder::TensorSpec logits;
  logits.sizes = {1, 1, 10};
  b.outputs = {b.tensor(logits)};
  for (const auto& o : outs) {
    pte::test::ProgramBuilder::TensorSpec s;
    s.sizes = o;
    s.dynamism = dynamic_outputs ? pte::Dynamism::DynamicBound : pte::Dynamism::Static;
    b.outputs.push_back(b.tensor(s));
  }
  std::unique_ptr<pte::Program> p;
  pte::Status s = b.open(&p);
  REQUIRE_MESSAGE(s, s.message());
  std::unique_ptr<pte::Method> m;
  s = p->load_method("forward", {}, &m);
  REQUIRE_MESSAGE(s, s.message());
  return pte::KvCache::attach(*m, 32, cache);
}

bool has(const pte::Status& s, const std::string& part) { return s.message().find(part) != std::string::npos; }

}  // namespace

TEST_CASE("static kv cache: inputs that do not pair with outputs are refused with one line") {
  std::unique_ptr<pte::KvCache> c;
  // whole caches and new positions pair up
  pte::Status s = attach_synthetic({{1, 2, 32, 8}, {1, 2, 32, 8}}, {{1, 2, 32, 8}, {1, 2, 1, 8}}, &c);
  REQUIRE_MESSAGE(s, s.message());
  REQUIRE(c->input_tensors() == 2);
  CHECK(c->where() == "method inputs");
  CHECK(!c->tensors()[0].slice);
  CHECK(c->tensors()[1].slice);
  CHECK(c->tensors()[1].position_dim == 2);
  // a dynamic output of the cache's bound holds new positions
  s = attach_synthetic({{1, 32, 2, 8}}, {{1, 32, 2, 8}}, &c, true);
  REQUIRE_MESSAGE(s, s.message());
  CHECK(c->tensors()[0].slice);
  CHECK(c->tensors()[0].position_dim == 1);

  // more cache inputs than outputs
  s = attach_synthetic({{1, 2, 32, 8}, {1, 2, 32, 8}}, {{1, 2, 32, 8}}, &c);
  CHECK(!s);
  CHECK(has(s, "takes 2 inputs after the token ids and positions but returns 1 outputs after the logits"));
  CHECK(has(s, "pte-run run"));
  CHECK(s.message().find('\n') == std::string::npos);
  // shapes that do not pair
  s = attach_synthetic({{1, 2, 32, 8}}, {{1, 4, 16, 8}}, &c);
  CHECK(!s);
  CHECK(has(s, "input 2 (f32[1,2,32,8]) and output 1 (f32[1,4,16,8]) do not pair up"));
  // ranks differ
  s = attach_synthetic({{1, 2, 32, 8}}, {{2, 32, 8}}, &c);
  CHECK(!s);
  CHECK(has(s, "do not pair up (dtype or rank)"));
  // no dimension of the context length
  s = attach_synthetic({{1, 2, 5, 8}}, {{1, 2, 5, 8}}, &c);
  CHECK(!s);
  CHECK(has(s, "has no dimension of the context length"));
  // an output longer than the cache
  s = attach_synthetic({{1, 2, 32, 8}}, {{1, 2, 33, 8}}, &c);
  CHECK(!s);
}

TEST_CASE("static kv cache: pte-run info --memory says the cache is in method inputs") {
  for (const char* name : {"slices_portable", "whole_portable"}) {
    const fs::path model = kDir / (std::string(name) + ".pte");
    REQUIRE_MESSAGE(fs::exists(model), model.string() << " is missing (a committed fixture)");
    pte_test::CliRun r = pte_test::run_pte_run({"info", model.string(), "--memory"});
    CHECK(r.code == 0);
    const std::string& out = r.out;
    CHECK(out.find("4 tensors (2 layers, K and V), float32 [1,2,32,8], 8,192 bytes, in method inputs") != std::string::npos);
    CHECK(out.find(std::string(name) == "slices_portable" ? "return the new positions" : "return the whole updated caches") !=
          std::string::npos);
  }
}
