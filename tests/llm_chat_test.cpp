// The KV cache component (cache/), chats (llm/chat, pte-run chat), saved sessions and
// the generation options, on fixtures/data/chat_smollm (a tiny SmolLM-style decoder
// with a 256-position static cache and a ChatML template, fixtures/make_chat_decoder.py);
// and the regression tests of two defects (Metaspace after reordering normalizers, the
// --stats line break).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_spawn.h"
#include "runner_helpers.h"
#include "cache/kv_cache.h"
#include "llm/chat.h"
#include "llm/runner.h"
#include "llm/session.h"
#include "pte/tokenizer.h"
#include "util/json.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

const std::string kChatModel = "fixtures/data/chat_smollm/model.pte";

using Run = pte_test::CliRun;
using pte_test::slurp;
fs::path scratch() { return pte_test::scratch_dir("chat"); }
// pte-run with `input` on stdin; merged: stderr into the stdout file (as a terminal shows them)
Run run(const std::vector<std::string>& args, const std::string& input = "", bool merged = false) {
  return pte_test::run_pte_run(args, &input, merged);
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> r;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) r.push_back(l);
  return r;
}

using pte_test::count_lines;

std::unique_ptr<pte::TextRunner> runner(const std::string& model = kChatModel) { return pte_test::open_runner(model); }

// "turn 3: prefill 12 tokens (reused 40) | context 58/256 | ..." -> {12, 40, 58}
struct TurnStat {
  int prefill, reused, context;
};
std::vector<TurnStat> turn_stats(const std::string& err) {
  std::vector<TurnStat> r;
  for (const auto& l : lines(err)) {
    int t, p, u, c;
    if (std::sscanf(l.c_str(), "turn %d: prefill %d tokens (reused %d)", &t, &p, &u) != 3) continue;
    size_t at = l.find("| context ");
    if (at == std::string::npos || std::sscanf(l.c_str() + at, "| context %d/", &c) != 1) continue;
    r.push_back({p, u, c});
  }
  return r;
}

const std::vector<std::string> kTurns = {"The quick brown fox", "jumps over the lazy dog", "what does the fox say",
                                         "tell me about the dog", "and the fox again"};

std::string join_lines(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& l : v) s += l + "\n";
  return s;
}

}  // namespace

TEST_CASE("kv cache: found in the decoder's mutable buffers; rewind, save and restore") {
  auto r = runner();
  const pte::KvCache& c = r->cache();
  CHECK(c.where() == "mutable buffers");
  REQUIRE(c.tensors().size() == 4);  // 2 layers, K and V
  CHECK(c.layers() == 2);
  CHECK(c.capacity() == 256);
  for (const auto& t : c.tensors()) {
    CHECK(t.tensor->dtype == pte::DType::Float);
    CHECK(t.position_dim == 2);  // [1, kv heads, positions, head dim]
    CHECK(t.tensor->sizes[2] == 256);
  }
  CHECK(c.bytes() == 4u * 1 * 2 * 256 * 16 * 4);

  pte::GenerationConfig gc;
  gc.max_new_tokens = 8;
  gc.ignore_eos = true;
  pte::GenerationStats a;
  REQUIRE(r->generate("The quick brown fox", gc, [](const std::string&) {}, &a));
  int64_t filled = r->position();
  CHECK(c.length() == filled);
  CHECK(filled == a.prompt_tokens + 7);  // the last sampled token is not fed
  std::vector<uint8_t> saved = c.save();
  CHECK(saved.size() == c.saved_bytes(filled));
  std::vector<int32_t> tokens = r->tokens();

  // continuing from here, twice: after a rewind and after a restore, the same tokens
  pte::GenerationStats b1, b2, b3;
  REQUIRE(r->generate(" again", gc, [](const std::string&) {}, &b1));
  REQUIRE(r->rewind(filled));
  CHECK(c.save() == saved);  // the positions given back are zeroed: exactly as before
  REQUIRE(r->generate(" again", gc, [](const std::string&) {}, &b2));
  CHECK(b2.tokens == b1.tokens);
  r->reset();
  CHECK(r->position() == 0);
  CHECK(c.length() == 0);
  REQUIRE(r->restore(tokens, saved.data(), saved.size()));
  REQUIRE(r->generate(" again", gc, [](const std::string&) {}, &b3));
  CHECK(b3.tokens == b1.tokens);
  // a cache of the wrong size is refused
  CHECK(!r->restore(tokens, saved.data(), saved.size() - 4));
  CHECK(!r->rewind(r->position() + 1));
}

TEST_CASE("kv cache: pte-run info --memory reports it") {
  Run p = run({"info", kChatModel, "--memory"});
  REQUIRE_MESSAGE(p.code == 0, p.err);
  CHECK(p.out.find("KV cache") != std::string::npos);
  CHECK(p.out.find("4 tensors (2 layers, K and V), float32 [1,2,256,16], 131,072 bytes") != std::string::npos);
  CHECK(p.out.find("in mutable buffers, 256 positions") != std::string::npos);
  p = run({"info", kChatModel, "--memory", "--json"});
  REQUIRE(p.code == 0);
  pte::json::Value doc;
  REQUIRE(pte::json::parse(p.out, &doc));
  bool found = false;
  for (const auto& m : doc.find("methods")->items()) {
    const auto* mem = m.find("memory");
    if (!mem || !mem->find("kv_cache")) continue;
    const auto& kv = *mem->find("kv_cache");
    CHECK(kv.find("where")->as_string() == "mutable buffers");
    CHECK(kv.find("layers")->as_int() == 2);
    CHECK(kv.find("bytes")->as_int() == 131072);
    CHECK(kv.find("positions")->as_int() == 256);
    found = true;
  }
  CHECK(found);
  // a program without persistent state says so
  p = run({"info", "fixtures/data/mlp/model.pte", "--memory"});
  REQUIRE(p.code == 0);
  CHECK(p.out.find("KV cache") != std::string::npos);
  CHECK(p.out.find("none (no persistent state") != std::string::npos);
}

TEST_CASE("chat session: each turn prefills only its own tokens and replies as one run over the same tokens") {
  auto r = runner();
  pte::GenerationConfig gc;
  gc.max_new_tokens = 6;
  pte::ChatSession chat(*r, gc, "You are terse.", false);
  REQUIRE(chat.init());
  std::unique_ptr<pte::ChatTemplate> tpl;
  REQUIRE(pte::ChatTemplate::for_tokenizer(r->tokenizer(), &tpl));
  std::vector<pte::ChatMessage> msgs = {{"system", "You are terse."}};
  std::string fed;
  for (size_t k = 0; k < kTurns.size(); ++k) {
    CAPTURE(k);
    int64_t before = r->position();
    std::vector<int32_t> cache_before = r->tokens();
    pte::ChatTurnStats ts;
    std::string reply;
    REQUIRE(chat.turn(kTurns[k], [&](const std::string& t) { reply += t; }, &ts));
    // this turn's own tokens: the template's text after what was fed, encoded alone
    msgs.push_back({"user", kTurns[k]});
    std::string full;
    REQUIRE(tpl->render(msgs, true, &full));
    REQUIRE(full.compare(0, fed.size(), fed) == 0);
    std::vector<int32_t> own;
    REQUIRE(r->tokenizer().encode(std::string_view(full).substr(fed.size()), false, &own));
    CHECK(ts.reused == before);
    CHECK(ts.gen.prompt_tokens == static_cast<int>(own.size()));
    CHECK(ts.gen.prompt_ids == own);
    if (k > 0) CHECK(before > static_cast<int64_t>(own.size()));  // the history is never read again
    // one run over the concatenated tokens gives the same reply
    auto ref = runner();
    std::vector<int32_t> all = cache_before;
    all.insert(all.end(), own.begin(), own.end());
    pte::GenerationStats rs;
    REQUIRE(ref->generate_ids(all, gc, [](const std::string&) {}, &rs));
    CHECK(rs.tokens == ts.gen.tokens);
    CHECK(rs.text == reply);
    msgs.push_back({"assistant", reply});
    std::vector<int32_t> fed_gen = ts.gen.tokens;
    fed_gen.pop_back();
    fed = full + r->tokenizer().decode(fed_gen);
  }
  CHECK(chat.turns() == kTurns.size());
  // undo, then the same turn again: the same reply
  std::string last = chat.messages().back().content;
  REQUIRE(chat.undo());
  CHECK(chat.messages().size() == 1 + 2 * (kTurns.size() - 1));
  pte::ChatTurnStats again;
  REQUIRE(chat.turn(kTurns.back(), [](const std::string&) {}, &again));
  CHECK(chat.messages().back().content == last);
}

TEST_CASE("pte-run chat: a scripted five-turn chat through a pipe") {
  Run p = run({"chat", kChatModel, "-n", "6", "--stats", "--system", "You are terse."}, join_lines(kTurns));
  REQUIRE_MESSAGE(p.code == 0, p.err);
  std::vector<std::string> replies = lines(p.out);
  CHECK(replies.size() == kTurns.size());
  auto ts = turn_stats(p.err);
  REQUIRE(ts.size() == kTurns.size());
  int context = 0;
  for (size_t k = 0; k < ts.size(); ++k) {
    CAPTURE(k);
    CHECK(ts[k].reused == context);  // the cache kept everything before
    CHECK(ts[k].prefill > 0);
    if (k > 0) CHECK(ts[k].prefill < ts[k].reused);  // only this turn's tokens, never the history
    CHECK(ts[k].context > ts[k].reused + ts[k].prefill);
    context = ts[k].context;
  }
  // the same replies as the library's session
  auto r = runner();
  pte::GenerationConfig gc;
  gc.max_new_tokens = 6;
  pte::ChatSession chat(*r, gc, "You are terse.", false);
  REQUIRE(chat.init());
  for (size_t k = 0; k < kTurns.size(); ++k) {
    std::string reply;
    REQUIRE(chat.turn(kTurns[k], [&](const std::string& t) { reply += t; }, nullptr));
    if (k < replies.size()) CHECK(replies[k] == reply);
  }

  SUBCASE("/undo, then the same turn: the same reply") {
    Run u = run({"chat", kChatModel, "-n", "6"}, kTurns[0] + "\n" + kTurns[1] + "\n/undo\n" + kTurns[1] + "\n");
    REQUIRE_MESSAGE(u.code == 0, u.err);
    auto l = lines(u.out);
    REQUIRE(l.size() == 3);
    CHECK(l[1] == l[2]);
  }
  SUBCASE("save, exit, load, continue equals never stopping") {
    fs::path f = scratch() / "chat.session";
    Run a = run({"chat", kChatModel, "-n", "6"}, kTurns[0] + "\n" + kTurns[1] + "\n/save " + f.string() + "\n");
    REQUIRE_MESSAGE(a.code == 0, a.err);
    REQUIRE(fs::exists(f));
    Run b = run({"chat", kChatModel, "-n", "6", "--load-session", f.string(), "--stats"}, kTurns[2] + "\n" + kTurns[3] + "\n");
    REQUIRE_MESSAGE(b.code == 0, b.err);
    Run c = run({"chat", kChatModel, "-n", "6"}, kTurns[0] + "\n" + kTurns[1] + "\n" + kTurns[2] + "\n" + kTurns[3] + "\n");
    REQUIRE(c.code == 0);
    auto lb = lines(b.out), lc = lines(c.out);
    REQUIRE(lb.size() == 2);
    REQUIRE(lc.size() == 4);
    CHECK(lb[0] == lc[2]);
    CHECK(lb[1] == lc[3]);
    auto st = turn_stats(b.err);
    REQUIRE(!st.empty());
    CHECK(st[0].reused > 0);  // continued from the loaded cache, no re-prefill
    CHECK(st[0].prefill < st[0].reused);
    // /load in a running chat does the same
    Run d = run({"chat", kChatModel, "-n", "6"}, "hello\n/load " + f.string() + "\n" + kTurns[2] + "\n");
    REQUIRE_MESSAGE(d.code == 0, d.err);
    auto ld = lines(d.out);
    REQUIRE(ld.size() == 2);
    CHECK(ld[1] == lc[2]);
  }
}

TEST_CASE("pte-run chat: bad input gives one clear line") {
  fs::path dir = scratch();
  SUBCASE("an unknown command") {
    Run p = run({"chat", kChatModel, "-n", "2"}, "/frobnicate\n");
    CHECK(p.code == 1);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("unknown command /frobnicate") != std::string::npos);
  }
  SUBCASE("/undo with nothing to undo, /save without a file") {
    Run p = run({"chat", kChatModel, "-n", "2"}, "/undo\n/save\n");
    CHECK(p.code == 1);
    CHECK(count_lines(p.err) == 2);
    CHECK(p.err.find("no turn to undo") != std::string::npos);
    CHECK(p.err.find("/save needs a file name") != std::string::npos);
  }
  SUBCASE("a turn longer than the context") {
    std::string big;
    for (int i = 0; i < 200; ++i) big += "the quick brown fox ";
    Run p = run({"chat", kChatModel, "-n", "2"}, big + "\nhello\n");
    CHECK(p.code == 1);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("does not fit the context of 256 tokens") != std::string::npos);
    CHECK(lines(p.out).size() == 1);  // the next turn still ran
  }
  SUBCASE("a full context: refused, or the oldest turns dropped with --context-shift") {
    std::string input;
    for (int i = 0; i < 12; ++i) input += "the quick brown fox jumps over the lazy dog again and again " + std::to_string(i) + "\n";
    Run p = run({"chat", kChatModel, "-n", "12"}, input);
    CHECK(p.code == 1);
    CHECK(p.err.find("the context is full") != std::string::npos);
    CHECK(p.err.find("--context-shift") != std::string::npos);
    Run q = run({"chat", kChatModel, "-n", "12", "--context-shift", "--stats", "--system", "Be brief."}, input);
    CHECK_MESSAGE(q.code == 0, q.err);
    CHECK(lines(q.out).size() == 12);
    CHECK(q.err.find("dropped") != std::string::npos);
  }
  SUBCASE("corrupt, truncated and foreign session files") {
    fs::path f = dir / "s.session";
    Run a = run({"chat", kChatModel, "-n", "3"}, "hello\n/save " + f.string() + "\n");
    REQUIRE_MESSAGE(a.code == 0, a.err);
    std::string good = slurp(f);
    REQUIRE(good.size() > 100);
    std::ofstream(dir / "trunc.session", std::ios::binary) << good.substr(0, good.size() / 2);
    std::string flipped = good;
    flipped[flipped.size() / 2] ^= 0x40;
    std::ofstream(dir / "flip.session", std::ios::binary) << flipped;
    std::ofstream(dir / "junk.session", std::ios::binary) << "hello world, not a session";
    for (const char* name : {"trunc.session", "flip.session", "junk.session", "missing.session"}) {
      CAPTURE(name);
      Run p = run({"chat", kChatModel, "--load-session", (dir / name).string()}, "");
      CHECK(p.code == 1);
      CHECK(count_lines(p.err) == 1);
      CHECK(p.err.find(name) != std::string::npos);
    }
    CHECK(run({"chat", kChatModel, "--load-session", (dir / "flip.session").string()}).err.find("corrupt") != std::string::npos);
    CHECK(run({"chat", kChatModel, "--load-session", (dir / "junk.session").string()}).err.find("not a pte-run session") != std::string::npos);
    // a session of another program
    Run p = run({"fixtures/data/decoder_smollm/model.pte", "hi", "--load-session", f.string()});
    CHECK(p.code == 1);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("saved from another program") != std::string::npos);
    // /load of a bad file leaves the conversation as it was
    Run q = run({"chat", kChatModel, "-n", "3"}, "hello\n/load " + (dir / "flip.session").string() + "\n/undo\n/undo\n");
    CHECK(q.code == 1);
    CHECK(count_lines(q.err) == 2);  // the bad load, then the second /undo
  }
  SUBCASE("a chat template that raises, a model without a template") {
    fs::path m = dir / "raising";
    fs::create_directories(m);
    fs::copy_file(kChatModel, m / "model.pte", fs::copy_options::overwrite_existing);
    fs::copy_file("fixtures/data/chat_smollm/tokenizer.json", m / "tokenizer.json", fs::copy_options::overwrite_existing);
    std::ofstream(m / "tokenizer_config.json")
        << R"({"eos_token": "<|im_end|>", "chat_template": "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{% for m in messages %}{{ m['content'] }}{% endfor %}"})";
    Run p = run({"chat", (m / "model.pte").string(), "--system", "be brief", "-n", "2"}, "hi\n");
    CHECK(p.code == 1);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("chat template: raise_exception: System role not supported") != std::string::npos);
    p = run({(m / "model.pte").string(), "hi", "--chat", "--system", "x", "-n", "2"});
    CHECK(p.code == 1);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("System role not supported") != std::string::npos);
    p = run({"chat", "fixtures/data/decoder_gemma/model.pte"}, "hi\n");
    CHECK(p.code == 1);
    CHECK(count_lines(p.err) == 1);
    CHECK(p.err.find("no chat template") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("generate: --save-session / --load-session continue without re-prefilling") {
  fs::path f = scratch() / "gen.session";
  Run a = run({kChatModel, "The quick brown fox", "-n", "6", "--ignore-eos", "--save-session", f.string()});
  REQUIRE_MESSAGE(a.code == 0, a.err);
  Run b = run({kChatModel, " jumps", "-n", "6", "--ignore-eos", "--load-session", f.string(), "--json"});
  REQUIRE_MESSAGE(b.code == 0, b.err);
  pte::json::Value doc;
  REQUIRE(pte::json::parse(b.out, &doc));
  // in one process: the same
  auto r = runner();
  pte::GenerationConfig gc;
  gc.max_new_tokens = 6;
  gc.ignore_eos = true;
  pte::GenerationStats s1, s2;
  REQUIRE(r->generate("The quick brown fox", gc, [](const std::string&) {}, &s1));
  const float* logits = nullptr;
  REQUIRE(r->prefill({s1.tokens.back()}, &logits));  // what --save-session feeds before saving
  REQUIRE(r->generate(" jumps", gc, [](const std::string&) {}, &s2));
  std::vector<int32_t> got;
  for (const auto& x : doc.find("generated_ids")->items()) got.push_back(static_cast<int32_t>(x.as_int()));
  CHECK(got == s2.tokens);
  std::vector<int32_t> prompt;
  for (const auto& x : doc.find("prompt_ids")->items()) prompt.push_back(static_cast<int32_t>(x.as_int()));
  CHECK(prompt == s2.prompt_ids);  // only the new prompt was prefilled
  CHECK(doc.find("stats")->find("context_used")->as_int() == r->position());
  // written atomically: no temporary left behind
  for (const auto& e : fs::directory_iterator(f.parent_path())) CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("generate: --stop, --min-p, --repeat-penalty, --json") {
  Run base = run({kChatModel, "The quick brown fox", "-n", "16", "--ignore-eos", "--json"});
  REQUIRE_MESSAGE(base.code == 0, base.err);
  pte::json::Value doc;
  REQUIRE(pte::json::parse(base.out, &doc));
  std::string text = doc.find("text")->as_string();
  CHECK(doc.find("generated_ids")->size() == 16);
  CHECK(doc.find("stop_reason")->as_string() == "max_new_tokens");
  for (const char* k : {"load_ms", "prompt_tokens", "first_token_ms", "decode_tokens_per_s", "peak_rss_mb"})
    CHECK_MESSAGE(doc.find("stats")->find(k), k);
  REQUIRE(text.size() > 6);

  SUBCASE("--stop cuts the text before the stop string") {
    std::string stop;
    for (size_t i = text.size() / 2; i < text.size() && stop.empty(); ++i)
      if (pte::json::valid_utf8(text.substr(i, 3)) && text.substr(i, 3).size() == 3) stop = text.substr(i, 3);
    REQUIRE(!stop.empty());
    size_t at = text.find(stop);
    Run p = run({kChatModel, "The quick brown fox", "-n", "16", "--ignore-eos", "--stop", "NEVER-THERE", "--stop", stop});
    REQUIRE_MESSAGE(p.code == 0, p.err);
    CHECK(p.out == text.substr(0, at) + "\n");
    Run j = run({kChatModel, "The quick brown fox", "-n", "16", "--ignore-eos", "--stop", stop, "--json"});
    pte::json::Value d;
    REQUIRE(pte::json::parse(j.out, &d));
    CHECK(d.find("stop_reason")->as_string() == "stop_string");
    CHECK(d.find("text")->as_string() == text.substr(0, at));
    Run bad = run({kChatModel, "hi", "--stop", ""});
    CHECK(bad.code == 2);
    CHECK(count_lines(bad.err) == 1);
  }
  SUBCASE("--min-p 1 keeps only the top token: sampling becomes greedy") {
    Run p = run({kChatModel, "The quick brown fox", "-n", "16", "--ignore-eos", "--temperature", "1.5", "--min-p", "1", "--seed", "3", "--json"});
    REQUIRE(p.code == 0);
    pte::json::Value d;
    REQUIRE(pte::json::parse(p.out, &d));
    CHECK(d.find("text")->as_string() == text);
    Run q = run({kChatModel, "The quick brown fox", "-n", "16", "--ignore-eos", "--temperature", "1.5", "--seed", "3", "--json"});
    pte::json::Value e;
    REQUIRE(pte::json::parse(q.out, &e));
    CHECK(e.find("text")->as_string() != text);  // without it the sampler does sample
  }
  SUBCASE("--repeat-penalty keeps the last tokens from coming back") {
    Run p = run({kChatModel, "The quick brown fox", "-n", "16", "--ignore-eos", "--repeat-penalty", "1000", "--repeat-last-n", "-1", "--json"});
    REQUIRE(p.code == 0);
    pte::json::Value d;
    REQUIRE(pte::json::parse(p.out, &d));
    std::set<int64_t> seen;
    std::vector<int32_t> prompt_ids;
    for (const auto& x : d.find("prompt_ids")->items()) seen.insert(x.as_int());
    size_t n = 0;
    for (const auto& x : d.find("generated_ids")->items()) {
      CHECK(!seen.count(x.as_int()));
      seen.insert(x.as_int());
      ++n;
    }
    CHECK(n == 16);
    std::vector<int64_t> greedy;
    for (const auto& x : doc.find("generated_ids")->items()) greedy.push_back(x.as_int());
    CHECK(std::set<int64_t>(greedy.begin(), greedy.end()).size() < greedy.size());  // greedy alone repeats
  }
}

TEST_CASE("defect: --stats starts on its own line after the generated text") {
  // stdout and stderr into one file, as on a terminal
  Run p = run({kChatModel, "The quick brown fox", "-n", "5", "--ignore-eos", "--stats"}, "", true);
  REQUIRE(p.code == 0);
  size_t at = p.out.find("load ");
  REQUIRE(at != std::string::npos);
  REQUIRE(at > 0);
  CHECK(p.out[at - 1] == '\n');
  CHECK(p.out.find("tok/s") > at);
}

TEST_CASE("defect: Metaspace prepend_scheme first after a normalizer reorders combining marks") {
  // ids from the reference library (tokenizers 0.22) for this tokenizer
  const std::string vocab =
      R"({"[UNK]": 0, "\u2581\u0300\u0315": 1, "\u0300\u0315": 2, "\u2581": 3, "\u2581ab": 4, "ab": 5, "\u2581e\u0301": 6, )"
      R"("e\u0301": 7, "\u00e9": 8, "\u2581\u00e9": 9, "\u2581\u0300\u0315x": 10})";
  struct Case {
    const char* norm;
    const char* text;
    std::vector<int32_t> ids;
  };
  const std::vector<Case> cases = {
      {"NFD", "\u0315\u0300", {1}}, {"NFD", "\u0315\u0300 ab", {1, 5}}, {"NFD", "ab \u0315\u0300", {4, 2}},
      {"NFD", "\u0315\u0300x", {10}}, {"NFD", "e\u0301 ab", {6, 5}},
      {"NFC", "\u0315\u0300", {1}}, {"NFC", "\u0315\u0300 ab", {1, 5}}, {"NFC", "ab \u0315\u0300", {4, 2}},
      {"NFC", "\u0315\u0300x", {10}}, {"NFC", "e\u0301 ab", {9, 5}},
      {"NFKC", "\u0315\u0300", {1}}, {"NFKC", "\u0315\u0300 ab", {1, 5}}, {"NFKC", "ab \u0315\u0300", {4, 2}},
      {"NFKC", "\u0315\u0300x", {10}}, {"NFKC", "e\u0301 ab", {9, 5}},
      {"NFKD", "\u0315\u0300", {1}}, {"NFKD", "\u0315\u0300 ab", {1, 5}}, {"NFKD", "ab \u0315\u0300", {4, 2}},
      {"NFKD", "\u0315\u0300x", {10}}, {"NFKD", "e\u0301 ab", {6, 5}},
  };
  fs::path dir = scratch() / "metaspace";
  fs::create_directories(dir);
  for (const char* norm : {"NFD", "NFC", "NFKC", "NFKD"}) {
    std::ofstream(dir / "tokenizer.json")
        << R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":{"type":")" << norm
        << R"("},"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"first","split":true}]},"post_processor":null,"decoder":null,"model":{"type":"WordLevel","vocab":)"
        << vocab << R"(,"unk_token":"[UNK]"}})";
    std::unique_ptr<pte::Tokenizer> tok;
    pte::Status s = pte::Tokenizer::load((dir / "tokenizer.json").string(), &tok);
    REQUIRE_MESSAGE(s, s.message());
    for (const auto& c : cases) {
      if (std::string(c.norm) != norm) continue;
      CAPTURE(norm);
      CAPTURE(c.text);
      std::vector<int32_t> ids;
      REQUIRE(tok->encode(c.text, true, &ids));
      CHECK(ids == c.ids);
    }
  }
  fs::remove_all(dir);
}
