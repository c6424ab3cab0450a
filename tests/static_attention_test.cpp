// ExecuTorch's static-attention Llama export (cache/static_attention.h) on
// fixtures/data/static_attention: a tiny Llama (2 layers, GQA) exported through their
// static_mha attention ("smart_mask" caches, masks and RoPE tables as inputs, 8 tokens a
// call, a cache of 32 positions), portable and XNNPACK, and with per-head caches (split MHA)
// (fixtures/make_static_attention.py).
// Generation equals transformers' greedy generate (reference.json: their IOManager over the
// eager model and over the official runtime gave the same); rewind, save/restore and saved
// sessions work; programs whose inputs or constant methods do not fit are refused with one line.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cache/static_attention.h"
#include "cli_spawn.h"
#include "llm/runner.h"
#include "llm/session.h"
#include "program_builder.h"
#include "runner_helpers.h"
#include "util/json.h"

namespace {

namespace fs = std::filesystem;

const fs::path kDir = "fixtures/data/static_attention";
// one cache per layer [1,2,32,8] (static_mha), portable and XNNPACK; one per layer and KV head
// [1,32,8] (split MHA), portable
const char* const kPrograms[] = {"portable", "xnnpack", "split_portable"};

struct Reference {
  std::string prompt;
  std::vector<int32_t> prompt_ids, generated;
  std::vector<std::vector<int32_t>> others;  // the IOManager's eager and runtime tokens
  int64_t input_len = 0, cache_len = 0;
};

void load_reference(Reference* ref) {
  const pte::json::Value doc = pte_test::read_fixture_json(kDir / "reference.json", "fixtures/make_static_attention.py");
  ref->prompt = doc.find("prompt")->as_string();
  ref->prompt_ids = pte_test::json_ints(doc.find("prompt_ids"));
  ref->generated = pte_test::json_ints(doc.find("generated"));
  for (const char* k : {"io_manager_eager", "runtime_portable", "runtime_xnnpack", "split_io_manager_eager", "runtime_split_portable"})
    ref->others.push_back(pte_test::json_ints(doc.find(k)));
  ref->input_len = doc.find("input_len")->as_int();
  ref->cache_len = doc.find("cache_len")->as_int();
}

std::unique_ptr<pte::TextRunner> runner(const std::string& name) { return pte_test::open_runner((kDir / (name + ".pte")).string()); }
using pte_test::generate_ids;
using pte_test::greedy;
using pte_test::slice;

bool has(const pte::Status& s, const std::string& part) { return s.message().find(part) != std::string::npos; }

}  // namespace

TEST_CASE("static attention: ExecuTorch's static-attention export generates as transformers (portable and XNNPACK)") {
  Reference ref;
  load_reference(&ref);
  REQUIRE(ref.generated.size() == 12);
  REQUIRE(ref.input_len == 8);
  REQUIRE(ref.cache_len == 32);
  for (const auto& o : ref.others) CHECK(o == ref.generated);
  // the prompt (14 tokens) takes a full call and a padded one
  REQUIRE(ref.prompt_ids.size() > 8);
  REQUIRE(ref.prompt_ids.size() % 8 != 0);
  for (const char* name : kPrograms) {
    CAPTURE(name);
    auto r = runner(name);
    CHECK(r->metadata().prefill_chunk == 8);
    CHECK(r->metadata().max_context_len == 32);
    const bool split = std::string(name) == "split_portable";
    const pte::KvCache& c = r->cache();
    CHECK(c.where() == "method inputs");
    CHECK(c.unsupported().empty());
    CHECK(c.capacity() == 32);
    CHECK(c.layers() == 2);
    CHECK(c.bytes() == 4 * 2 * 32 * 8 * sizeof(float));
    // kv_cache_specs: [[4, 1, 6, 3, 32], [5, 2, 7, 4, 32]] (per layer); per layer and head:
    // [[4, 1, 8, 5, 32], [5, 2, 9, 6, 32], [6, 3, 10, 7, 32], [7, 4, 11, 8, 32]]; keys then values
    const size_t n = split ? 8 : 4;
    REQUIRE(c.tensors().size() == n);
    for (size_t k = 0; k < n; ++k) {
      const pte::CacheTensor& t = c.tensors()[k];
      CHECK(t.input == static_cast<int>(4 + k));
      CHECK(t.output == static_cast<int>(1 + k));
      CHECK(t.slice);
      CHECK(t.position_dim == (split ? 1 : 2));
    }

    pte::GenerationStats st;
    REQUIRE(r->generate(ref.prompt, greedy(12), [](const std::string&) {}, &st));
    CHECK(st.prompt_ids == ref.prompt_ids);
    CHECK(st.tokens == ref.generated);
    CHECK(c.length() == static_cast<int64_t>(ref.prompt_ids.size() + 11));

    // token by token (every call padded from one token) gives the same
    r->reset();
    for (size_t i = 0; i + 1 < ref.prompt_ids.size(); ++i) {
      std::vector<int32_t> one{ref.prompt_ids[i]};
      const float* logits = nullptr;
      REQUIRE(r->prefill(one, &logits));
    }
    CHECK(r->position() == static_cast<int64_t>(ref.prompt_ids.size() - 1));
    CHECK(generate_ids(*r, {ref.prompt_ids.back()}, 12) == ref.generated);
    r->reset();
    CHECK(generate_ids(*r, ref.prompt_ids, 12) == ref.generated);
  }
}

TEST_CASE("static attention: rewind, save and restore, saved sessions, a full context") {
  Reference ref;
  load_reference(&ref);
  const auto& gen = ref.generated;
  const int64_t p = static_cast<int64_t>(ref.prompt_ids.size());
  fs::path dir = fs::temp_directory_path() / ("pte_static_attention_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* name : kPrograms) {
    CAPTURE(name);
    auto r = runner(name);
    const pte::KvCache& c = r->cache();
    CHECK(generate_ids(*r, ref.prompt_ids, 6) == slice(gen, 0, 6));
    const int64_t at = p + 5;
    REQUIRE(r->position() == at);
    std::vector<uint8_t> saved = c.save();
    CHECK(saved.size() == 4 * 2 * static_cast<size_t>(at) * 8 * sizeof(float));  // both layouts
    std::vector<int32_t> tokens = r->tokens();
    const std::string session = (dir / (std::string(name) + ".session")).string();
    pte::Status s = pte::save_session(*r, session);
    REQUIRE_MESSAGE(s, s.message());

    // back 3 positions (undo), the same token again: the same continuation
    REQUIRE(r->rewind(at - 3));
    CHECK(generate_ids(*r, {gen[2]}, 6) == slice(gen, 3, 9));
    // back into the prompt's second call: prefill its tail again
    REQUIRE(r->rewind(10));
    std::vector<int32_t> tail(ref.prompt_ids.begin() + 10, ref.prompt_ids.end());
    CHECK(generate_ids(*r, tail, 4) == slice(gen, 0, 4));

    // restore the saved cache: continue as never stopping
    r->reset();
    REQUIRE(r->restore(tokens, saved.data(), saved.size()));
    CHECK(generate_ids(*r, {gen[5]}, 6) == slice(gen, 6, 12));

    // a saved session, loaded into a fresh runner
    auto fresh = runner(name);
    s = pte::load_session(*fresh, session);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(fresh->position() == at);
    CHECK(generate_ids(*fresh, {gen[5]}, 6) == slice(gen, 6, 12));

    // a prompt longer than the cache: one line, nothing kept
    r->reset();
    std::vector<int32_t> long_prompt(40, ref.prompt_ids[1]);
    pte::GenerationStats st;
    s = r->generate_ids(long_prompt, greedy(1), [](const std::string&) {}, &st);
    CHECK(!s);
    CHECK(has(s, "does not fit the context of 32 tokens"));
    CHECK(r->position() == 0);
  }
  fs::remove_all(dir);
}

namespace {

// A static-attention description (the constant methods the export writes) over a synthetic
// forward method: `inputs` its input shapes (input 0 the tokens), outputs the logits and
// one [1,2,8,8] update per cache.
struct Synthetic {
  std::vector<int64_t> kv = {4, 1, 6, 3, 32, 5, 2, 7, 4, 32};
  std::vector<int64_t> masks = {1, 32};
  std::vector<int64_t> cos_index = {2}, sin_index = {3};
  std::vector<float> table = std::vector<float>(40 * 8, 0.5f);
  int64_t input_len = 8;
  pte::DType token_dtype = pte::DType::Int32;
  std::vector<int32_t> logits_sizes = {1, 8, 10};
  std::vector<std::vector<int32_t>> inputs = {{1, 8}, {1, 8, 40}, {8, 8}, {8, 8}, {1, 2, 32, 8}, {1, 2, 32, 8}, {1, 2, 32, 8}, {1, 2, 32, 8}};

  pte::ProgramInfo info() const {
    pte::ProgramInfo pi;
    auto tensor_method = [&](const char* name, pte::DType dt, std::vector<int64_t> sizes, const void* data) {
      pte::MethodInfo m;
      m.name = name;
      m.is_constant = true;
      pte::ValueInfo v;
      v.tag = pte::Tag::Tensor;
      v.tensor.dtype = dt;
      v.tensor.sizes = std::move(sizes);
      v.constant_data = data;
      m.outputs.push_back(v);
      pi.methods.push_back(m);
    };
    pte::MethodInfo len;
    len.name = "forward_input_len";
    len.is_constant = true;
    pte::ValueInfo v;
    v.tag = pte::Tag::Int;
    v.int_value = input_len;
    len.outputs.push_back(v);
    pi.methods.push_back(len);
    tensor_method("kv_cache_specs", pte::DType::Int64, {static_cast<int64_t>(kv.size() / 5), 5}, kv.data());
    tensor_method("mask_specs", pte::DType::Int64, {static_cast<int64_t>(masks.size() / 2), 2}, masks.data());
    tensor_method("freqs_cos_input_index", pte::DType::Int64, {1}, cos_index.data());
    tensor_method("freqs_sin_input_index", pte::DType::Int64, {1}, sin_index.data());
    tensor_method("freqs_cos", pte::DType::Float, {40, 8}, table.data());
    tensor_method("freqs_sin", pte::DType::Float, {40, 8}, table.data());
    return pi;
  }

  pte::Status attach(std::unique_ptr<pte::StaticAttention>* out) const {
    pte::test::ProgramBuilder b;
    for (size_t i = 0; i < inputs.size(); ++i) {
      pte::test::ProgramBuilder::TensorSpec s;
      s.sizes = inputs[i];
      if (i == 0) s.dtype = token_dtype;
      b.inputs.push_back(b.tensor(s));
    }
    pte::test::ProgramBuilder::TensorSpec logits;
    logits.sizes = logits_sizes;
    b.outputs = {b.tensor(logits)};
    for (size_t k = 0; k < kv.size() / 5 * 2; ++k) {
      pte::test::ProgramBuilder::TensorSpec s;
      s.sizes = {1, 2, 8, 8};
      b.outputs.push_back(b.tensor(s));
    }
    std::unique_ptr<pte::Program> p;
    pte::Status s = b.open(&p);
    REQUIRE_MESSAGE(s, s.message());
    std::unique_ptr<pte::Method> m;
    s = p->load_method("forward", {}, &m);
    REQUIRE_MESSAGE(s, s.message());
    const pte::ProgramInfo pi = info();
    REQUIRE(pte::StaticAttention::present(pi, "forward"));
    s = pte::StaticAttention::attach(pi, *m, out);
    if (s) {
      // the KV cache pairs up with the outputs the specs name
      std::unique_ptr<pte::KvCache> c;
      pte::Status cs = pte::KvCache::attach(*m, (*out)->cache_len(), (*out)->cache_io(), &c);
      REQUIRE_MESSAGE(cs, cs.message());
      CHECK(c->input_tensors() == kv.size() / 5 * 2);
      // a call past the cache is refused
      std::vector<int32_t> ids(8, 1);
      CHECK((*out)->set_inputs(*m, ids.data(), 8, 0));
      CHECK(!(*out)->set_inputs(*m, ids.data(), 9, 0));
      CHECK(!(*out)->set_inputs(*m, ids.data(), 4, 30));
    }
    return s;
  }
};

}  // namespace

TEST_CASE("static attention: programs whose inputs or constant methods do not fit are refused with one line") {
  std::unique_ptr<pte::StaticAttention> sa;
  {
    Synthetic ok;
    pte::Status s = ok.attach(&sa);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(sa->input_len() == 8);
    CHECK(sa->cache_len() == 32);
    CHECK(sa->cache_io() == std::vector<std::pair<size_t, size_t>>{{4, 1}, {5, 2}, {6, 3}, {7, 4}});
  }
  auto refused = [&](const Synthetic& syn, const std::string& part) {
    pte::Status s = syn.attach(&sa);
    CHECK(!s);
    CHECK_MESSAGE(has(s, part), s.message());
    CHECK(has(s, "static-attention export"));
    CHECK(s.message().find('\n') == std::string::npos);
  };
  Synthetic extra;  // an input nothing names (e.g. the multi-method export's last_valid_token_pos)
  extra.inputs.push_back({1});
  refused(extra, "input 8 (f32[1]) is none of tokens, masks, RoPE tables or caches");
  Synthetic window;  // a sliding-window layer: a second cache length
  window.kv[9] = 16;
  refused(window, "caches of different lengths (32, 16");
  Synthetic mask;  // a mask not of [1, IN, IN + C]
  mask.inputs[1] = {1, 8, 32};
  refused(mask, "mask input 1 (f32[1,8,32]) is not a float [1, 8, 40]");
  Synthetic last_only;  // logits of the last position only
  last_only.logits_sizes = {1, 10};
  refused(last_only, "output 0 (f32[1,10]) is not the logits of every position [1, 8, V]");
  Synthetic mask_len;  // a mask for another cache length
  mask_len.masks[1] = 16;
  refused(mask_len, "mask_specs gives mask input 1 the cache length 16, the caches have 32");
  Synthetic tokens;
  tokens.token_dtype = pte::DType::Float;
  refused(tokens, "input 0 (f32[1,8]) is not int tokens [1, 8]");
  Synthetic twice;  // one input named as two caches
  twice.kv[2] = 4;
  refused(twice, "value cache input 4 is missing, not a static tensor, or named twice");
  Synthetic missing;  // an index past the inputs
  missing.cos_index = {12};
  refused(missing, "freqs_cos input 12 is missing");
  Synthetic rope;  // RoPE inputs wider than the tables
  rope.inputs[2] = rope.inputs[3] = {8, 16};
  refused(rope, "the RoPE inputs (f32[8,16]) and the freqs_cos / freqs_sin tables do not agree");
  Synthetic specs;  // kv_cache_specs empty
  specs.kv.clear();
  refused(specs, "kv_cache_specs is not an int64 tensor");
}

TEST_CASE("static attention: the two-method prefill/decode export is named when refused") {
  pte::ProgramInfo pi;
  pte::MethodInfo m;
  m.name = "decode_input_len";
  m.is_constant = true;
  pte::ValueInfo v;
  v.tag = pte::Tag::Int;
  v.int_value = 1;
  m.outputs.push_back(v);
  CHECK(pte::StaticAttention::other_form(pi).empty());
  pi.methods.push_back(m);
  CHECK(!pte::StaticAttention::present(pi, "forward"));
  const std::string why = pte::StaticAttention::other_form(pi);
  CHECK(why.find("two-method (prefill / decode) static-attention export is not run yet") != std::string::npos);
  CHECK(why.find('\n') == std::string::npos);
}

TEST_CASE("static attention: pte-run info --memory shows the cache and the task") {
  const fs::path model = kDir / "portable.pte";
  REQUIRE_MESSAGE(fs::exists(model), model.string() << " is missing (a committed fixture)");
  pte_test::CliRun r = pte_test::run_pte_run({"info", model.string(), "--memory"});
  CHECK(r.code == 0);
  CHECK(r.out.find("ExecuTorch's static-attention export") != std::string::npos);
  CHECK(r.out.find("4 tensors (2 layers, K and V), float32 [1,2,32,8], 8,192 bytes, in method inputs") != std::string::npos);
  CHECK(r.out.find("return the new positions") != std::string::npos);
  CHECK(r.out.find("32 positions") != std::string::npos);
}
