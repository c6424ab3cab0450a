// Text generation: the tiny decoder fixtures (fixtures/data/decoder_*, written by
// fixtures/exporters/decoders.py) must generate, greedily, exactly the tokens
// transformers' generate() produced; the CLI's error lines, --stats, --chat and
// seeded sampling. (Logits against the ExecuTorch runtime are checked step by step
// by the conformance test over the same manifest entries.)
//
// With $PTE_SMOLLM2_DIR (e.g. models/smollm2), also SmolLM2-135M against the
// references.json make_smollm2.py recorded.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_spawn.h"
#include "llm/runner.h"
#include "llm/sampler.h"
#include "util/json.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

const std::string kData = "fixtures/data/";

using Proc = pte_test::CliRun;
using pte_test::count_lines;
using pte_test::pte_run_exe;
using pte_test::slurp;
fs::path scratch_dir() { return pte_test::scratch_dir("gen"); }
Proc pte_run(const std::vector<std::string>& args) { return pte_test::run_pte_run(args); }

std::vector<int32_t> ints(const pte::json::Value* v) {
  std::vector<int32_t> r;
  if (v)
    for (const auto& x : v->items()) r.push_back(static_cast<int32_t>(x.as_int()));
  return r;
}

std::string join(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
}

// "generated ids: 1 2 3" from --ids output
std::vector<int32_t> ids_after(const std::string& err, const std::string& label) {
  std::vector<int32_t> r;
  size_t at = err.find(label);
  if (at == std::string::npos) return r;
  std::istringstream line(err.substr(at + label.size(), err.find('\n', at) - at - label.size()));
  int32_t x;
  while (line >> x) r.push_back(x);
  return r;
}

struct DecoderCase {
  std::string name, pte, prompt;
  std::vector<int32_t> prompt_ids, greedy_ids;
  int max_new_tokens = 0;
  std::string chat_text;  // the chat template rendered by transformers ("" if none)
};

std::vector<DecoderCase> decoder_cases() {
  std::vector<DecoderCase> r;
  pte::json::Value doc;
  pte::Status s = pte::json::parse_file(kData + "manifest.json", &doc);
  REQUIRE_MESSAGE(s, s.message());
  const pte::json::Value* cases = doc.find("cases", pte::json::Type::Array);
  REQUIRE(cases);
  for (const auto& c : cases->items()) {
    const pte::json::Value* g = c.find("generation", pte::json::Type::Object);
    if (!g) continue;
    DecoderCase d;
    d.name = c.find("name")->as_string();
    d.pte = kData + c.find("file")->as_string();
    d.prompt = g->find("prompt")->as_string();
    d.prompt_ids = ints(g->find("prompt_ids"));
    d.greedy_ids = ints(g->find("greedy_ids"));
    d.max_new_tokens = static_cast<int>(g->find("max_new_tokens")->as_int());
    if (const auto* t = g->find("chat_text", pte::json::Type::String)) d.chat_text = t->as_string();
    r.push_back(d);
  }
  return r;
}

std::string fixture(const std::string& name) { return kData + name + "/model.pte"; }

}  // namespace

TEST_CASE("generate: tiny decoders of each family generate transformers' greedy tokens") {
  std::vector<DecoderCase> cases = decoder_cases();
  REQUIRE_MESSAGE(cases.size() >= 10, "expected the decoder_* fixtures in the manifest");
  std::set<std::string> names;
  for (const auto& d : cases) {
    names.insert(d.name);
    CAPTURE(d.name);
    std::unique_ptr<pte::TextRunner> runner;
    pte::RunnerOptions ro;
    ro.model_path = d.pte;
    pte::Status s = pte::TextRunner::create(ro, &runner);
    REQUIRE_MESSAGE(s, s.message());
    pte::GenerationConfig gc;
    gc.max_new_tokens = d.max_new_tokens;
    pte::GenerationStats st;
    std::string text;
    s = runner->generate(d.prompt, gc, [&](const std::string& t) { text += t; }, &st);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(join(st.prompt_ids) == join(d.prompt_ids));
    CHECK(join(st.tokens) == join(d.greedy_ids));
    // the streamed text is the decode of what was generated (a final EOS is not printed)
    std::vector<int32_t> shown = st.tokens;
    if (st.stop_reason == "eos") shown.pop_back();
    CHECK(text == runner->tokenizer().decode(shown));
    // a second run after reset() repeats the first (the KV cache is overwritten in place)
    runner->reset();
    pte::GenerationStats st2;
    s = runner->generate(d.prompt, gc, [](const std::string&) {}, &st2);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(join(st2.tokens) == join(d.greedy_ids));
  }
  for (const char* f : {"decoder_llama", "decoder_smollm", "decoder_qwen2", "decoder_qwen3", "decoder_gemma",
                        "decoder_gemma2", "decoder_gemma3", "decoder_phi3", "decoder_olmo", "decoder_olmo2",
                        // mixture of experts (fixtures/make_decoder_qwen3_moe.py): router top-k, gathered experts
                        "decoder_qwen3_moe", "decoder_qwen3_moe_xnnpack"})
    CHECK_MESSAGE(names.count(f), f << " missing from the manifest");
}

TEST_CASE("generate cli: greedy tokens through pte-run, --ids and --stats") {
  std::vector<DecoderCase> cases = decoder_cases();
  REQUIRE(!cases.empty());
  const DecoderCase& d = cases[0];
  Proc p = pte_run({d.pte, d.prompt, "-n", std::to_string(d.max_new_tokens), "--ids", "--stats"});
  REQUIRE_MESSAGE(p.code == 0, p.err);
  CHECK(join(ids_after(p.err, "prompt ids:")) == join(d.prompt_ids));
  CHECK(join(ids_after(p.err, "generated ids:")) == join(d.greedy_ids));
  for (const char* field : {"load ", " ms", "prompt " , "first token ", "prefill ", "decode ", "tok/s", "peak RSS ", " MB"})
    CHECK_MESSAGE(p.err.find(field) != std::string::npos, "--stats lacks '" << field << "': " << p.err);
  CHECK(p.err.find("prompt " + std::to_string(d.prompt_ids.size()) + " tokens") != std::string::npos);
  CHECK(p.err.find("\ncpu ") != std::string::npos);
  // text goes to stdout, statistics to stderr
  CHECK(p.out.find("tok/s") == std::string::npos);
  CHECK(!p.out.empty());
}

TEST_CASE("generate cli: bad input gives one clear line and a non-zero exit") {
  fs::path dir = scratch_dir();
  const std::string model = fixture("decoder_llama");
  REQUIRE(fs::exists(model));

  SUBCASE("a prompt file that does not exist") {
    Proc p = pte_run({model, "--prompt-file", (dir / "no-such-prompt.txt").string()});
    CHECK(p.code != 0);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("no-such-prompt.txt: cannot read the prompt file") != std::string::npos);
  }
  SUBCASE("a prompt file that is not UTF-8") {
    fs::path f = dir / "latin1.txt";
    std::ofstream(f, std::ios::binary) << "caf\xe9 au lait";
    Proc p = pte_run({model, "--prompt-file", f.string()});
    CHECK(p.code != 0);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("latin1.txt: the prompt is not valid UTF-8") != std::string::npos);
  }
  SUBCASE("a prompt file that is a directory") {
    Proc p = pte_run({model, "--prompt-file", dir.string()});
    CHECK(p.code != 0);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("cannot read the prompt file") != std::string::npos);
  }
  SUBCASE("no tokenizer next to the model") {
    fs::path lone = dir / "lone";
    fs::create_directories(lone);
    fs::copy_file(model, lone / "model.pte", fs::copy_options::overwrite_existing);
    Proc p = pte_run({(lone / "model.pte").string(), "hello"});
    CHECK(p.code != 0);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("no tokenizer next to it") != std::string::npos);
    CHECK(p.err.find("--tokenizer") != std::string::npos);
  }
  SUBCASE("a --tokenizer that does not exist") {
    Proc p = pte_run({model, "hello", "--tokenizer", (dir / "nope.json").string()});
    CHECK(p.code != 0);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("nope.json") != std::string::npos);
  }
  SUBCASE("a tokenizer bigger than the model's vocabulary") {
    Proc p = pte_run({model, "hello", "--tokenizer", "fixtures/tokenizers/smollm2/tokenizer.json"});
    CHECK(p.code != 0);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("the tokenizer has 49152 tokens but the model only") != std::string::npos);
  }
  SUBCASE("a program without the LLM metadata") {
    Proc p = pte_run({fixture("mlp"), "hello", "--tokenizer", "fixtures/data/decoder_llama/tokenizer.json"});
    CHECK(p.code != 0);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("mlp/model.pte") != std::string::npos);
    CHECK(p.err.find("no get_max_seq_len constant method: not a text-generation export") != std::string::npos);
  }
  SUBCASE("a prompt longer than the context") {
    std::string prompt;
    for (int i = 0; i < 40; ++i) prompt += "the quick brown fox ";
    Proc p = pte_run({model, prompt});
    CHECK(p.code != 0);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("does not fit the context of 32 tokens") != std::string::npos);
  }
  SUBCASE("generation that fills the context stops with one line") {
    Proc p = pte_run({model, "The quick brown fox", "-n", "-1", "--ignore-eos", "--ids"});
    CHECK(p.code == 0);
    CHECK(p.err.find("stopped: the context of 32 tokens is full") != std::string::npos);
    size_t prompt_n = ids_after(p.err, "prompt ids:").size(), gen_n = ids_after(p.err, "generated ids:").size();
    // positions 0..31 are written: the prompt, then every generated token but the last
    CHECK(prompt_n + gen_n == 33);
  }
  SUBCASE("bad numbers and options") {
    Proc p = pte_run({model, "hi", "--temperature", "warm"});
    CHECK(p.code == 2);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("--temperature: 'warm' is not a number") != std::string::npos);
    p = pte_run({model, "hi", "--top-p", "1.5"});
    CHECK(p.code == 2);
    CHECK(count_lines(p.err) == 1);
  }
  fs::remove_all(dir);
}

TEST_CASE("generate: --chat renders the template of tokenizer_config.json as transformers does") {
  int checked = 0;
  for (const DecoderCase& d : decoder_cases()) {
    if (d.chat_text.empty()) continue;
    CAPTURE(d.name);
    std::unique_ptr<pte::TextRunner> runner;
    pte::RunnerOptions ro;
    ro.model_path = d.pte;
    pte::Status s = pte::TextRunner::create(ro, &runner);
    REQUIRE_MESSAGE(s, s.message());
    std::string text;
    REQUIRE(runner->render_prompt(d.prompt, true, &text));
    CHECK(text == d.chat_text);
    ++checked;
  }
  CHECK(checked >= 2);  // smollm_style and qwen2 tokenizers carry ChatML templates
  // a tokenizer without a template: one clear line
  Proc p = pte_run({fixture("decoder_gemma"), "hi", "--chat"});
  CHECK(p.code != 0);
  CHECK(count_lines(p.err) == 1);
  CHECK(p.err.find("no chat template") != std::string::npos);
  // with one, the CLI runs
  p = pte_run({fixture("decoder_qwen2"), "hi", "--chat", "-n", "3", "--ids"});
  CHECK_MESSAGE(p.code == 0, p.err);
  CHECK(ids_after(p.err, "prompt ids:").size() > 3);
}

TEST_CASE("sampler: greedy, seeded determinism, top-k and top-p restrict the choice") {
  const int V = 50;
  std::vector<float> logits(V);
  for (int i = 0; i < V; ++i) logits[i] = 0.1f * static_cast<float>((i * 37) % V);  // a permutation of levels
  int best = pte::Sampler::argmax(logits.data(), V);
  CHECK(best == 27);  // (27 * 37) % 50 == 49, the top level

  pte::Sampler g;
  g.build(V, {});
  CHECK(g.sample(logits.data()) == best);

  auto draws = [&](pte::SamplerConfig c, int n) {
    pte::Sampler s;
    s.build(V, c);
    std::vector<int32_t> r;
    for (int i = 0; i < n; ++i) r.push_back(s.sample(logits.data()));
    return r;
  };
  pte::SamplerConfig c;
  c.temperature = 1.5f;
  c.seed = 42;
  std::vector<int32_t> a = draws(c, 200), b = draws(c, 200);
  CHECK(a == b);  // same seed, same sequence
  c.seed = 43;
  CHECK(draws(c, 200) != a);
  std::set<int32_t> distinct(a.begin(), a.end());
  CHECK(distinct.size() > 10);  // it really samples

  // ids ordered by logit, best first
  std::vector<int32_t> order(V);
  for (int i = 0; i < V; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int x, int y) { return logits[x] > logits[y]; });

  c.seed = 7;
  c.top_k = 3;
  std::set<int32_t> allowed(order.begin(), order.begin() + 3), seen;
  for (int32_t t : draws(c, 300)) {
    CHECK(allowed.count(t));
    seen.insert(t);
  }
  CHECK(seen.size() == 3);

  // top-p: with temperature 1 the probabilities of levels 4.9, 4.8, ... are known
  c.top_k = 0;
  c.temperature = 1.f;
  std::vector<double> p(V);
  double z = 0;
  for (int i = 0; i < V; ++i) z += std::exp(logits[i]);
  for (int i = 0; i < V; ++i) p[i] = std::exp(logits[i]) / z;
  double cum = 0;
  size_t nucleus = 0;
  while (cum < 0.5) cum += p[order[nucleus++]];
  c.top_p = 0.5f;
  allowed = std::set<int32_t>(order.begin(), order.begin() + nucleus);
  seen.clear();
  for (int32_t t : draws(c, 400)) {
    CHECK(allowed.count(t));
    seen.insert(t);
  }
  CHECK(seen.size() == nucleus);
  CHECK(nucleus > 3);

  // top-k and top-p together: the smaller set wins
  c.top_k = 2;
  allowed = std::set<int32_t>(order.begin(), order.begin() + 2);
  for (int32_t t : draws(c, 100)) CHECK(allowed.count(t));
}

TEST_CASE("generate cli: sampling is repeatable with a seed and differs across seeds") {
  const std::string model = fixture("decoder_llama");
  std::vector<std::string> base = {model, "The quick", "-n", "12", "--ignore-eos", "--temperature", "1.5", "--ids"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    Proc p = pte_run(a);
    REQUIRE_MESSAGE(p.code == 0, p.err);
    return ids_after(p.err, "generated ids:");
  };
  std::vector<int32_t> s1 = with({"--seed", "1"}), s1b = with({"--seed", "1"}), s2 = with({"--seed", "2"});
  CHECK(s1.size() == 12);
  CHECK(s1 == s1b);
  CHECK(s1 != s2);
}

TEST_CASE("generate: SmolLM2-135M greedy equals transformers (PTE_SMOLLM2_DIR=models/smollm2)") {
  // Opt-in: minutes of CPU with the portable kernels (longer under sanitizers).
  const char* env = std::getenv("PTE_SMOLLM2_DIR");
  if (!env || !*env) {
    MESSAGE("skipped: set PTE_SMOLLM2_DIR to a folder made by fixtures/make_smollm2.py");
    return;
  }
  fs::path dir = env;
  fs::path refs = dir / "references.json";
  if (!fs::exists(refs) || !fs::exists(dir / "smollm2_portable.pte")) {
    MESSAGE("skipped: no " << refs.string() << " / smollm2_portable.pte (make it with fixtures/make_smollm2.py)");
    return;
  }
  pte::json::Value doc;
  pte::Status s = pte::json::parse_file(refs.string(), &doc);
  REQUIRE_MESSAGE(s, s.message());
  int n = static_cast<int>(doc.find("max_new_tokens")->as_int());
  std::unique_ptr<pte::TextRunner> runner;
  pte::RunnerOptions ro;
  ro.model_path = (dir / "smollm2_portable.pte").string();
  s = pte::TextRunner::create(ro, &runner);
  REQUIRE_MESSAGE(s, s.message());
  for (const auto& c : doc.find("cases")->items()) {
    std::string prompt = c.find("prompt")->as_string();
    bool chat = c.find("chat")->as_bool();
    CAPTURE(prompt);
    std::string text;
    REQUIRE(runner->render_prompt(prompt, chat, &text));
    CHECK(text == c.find("text")->as_string());
    runner->reset();
    pte::GenerationConfig gc;
    gc.max_new_tokens = n;
    gc.chat = chat;
    gc.ignore_eos = !chat;  // the raw-prompt references were made with eos_token_id=None
    pte::GenerationStats st;
    s = runner->generate(prompt, gc, [](const std::string&) {}, &st);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(join(st.prompt_ids) == join(ints(c.find("prompt_ids"))));
    CHECK(join(st.tokens) == join(ints(c.find("greedy_ids"))));
  }
}

TEST_CASE("generate cli: PTE_ISA_OFF=all runs every kernel's scalar reference, to the same greedy tokens") {
  std::vector<DecoderCase> cases = decoder_cases();
  REQUIRE(!cases.empty());
  int ran = 0;
  for (const DecoderCase& d : cases) {
    if (d.name != "decoder_llama" && d.name != "decoder_qwen3") continue;
    ++ran;
    setenv("PTE_ISA_OFF", "all", 1);
    Proc p = pte_run({d.pte, d.prompt, "-n", std::to_string(d.max_new_tokens), "--ids", "--stats"});
    unsetenv("PTE_ISA_OFF");
    REQUIRE_MESSAGE(p.code == 0, p.err);
    CAPTURE(d.name);
    CHECK(join(ids_after(p.err, "generated ids:")) == join(d.greedy_ids));
    // no feature left after the architecture's name
    const size_t at = p.err.find("\ncpu ");
    REQUIRE(at != std::string::npos);
    const std::string line = p.err.substr(at + 5, p.err.find('\n', at + 1) - at - 5);
    CHECK_MESSAGE(line.back() == ':', line);
  }
  CHECK(ran == 2);
}
