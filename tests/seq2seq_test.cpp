// Encoder-decoder generation (llm/seq2seq.*, bin/seq2seq.cpp) on the tiny T5, Bart and
// Whisper fixtures (fixtures/data/seq2seq_*, written by fixtures/exporters/seq2seq.py):
// greedy tokens equal transformers' generate, portable and XNNPACK exports; the first
// decoder steps' logits equal the official runtime's; the CLI's commands and errors.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_spawn.h"
#include "audio/mel.h"
#include "audio/wav.h"
#include "llm/preprocessor.h"
#include "llm/seq2seq.h"
#include "util/json.h"
#include "util/npy.h"
#include "program_builder.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
const std::string kData = "fixtures/data/";

using Proc = pte_test::CliRun;
using pte_test::slurp;
fs::path scratch() { return pte_test::scratch_dir("s2s"); }
Proc run(const std::vector<std::string>& args) { return pte_test::run_pte_run(args); }

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

std::vector<int32_t> ids_after(const std::string& err, const std::string& label) {
  std::vector<int32_t> r;
  size_t at = err.find(label);
  if (at == std::string::npos) return r;
  std::istringstream line(err.substr(at + label.size(), err.find('\n', at) - at - label.size()));
  int32_t x;
  while (line >> x) r.push_back(x);
  return r;
}

struct Fixture {
  bool present = false;
  std::string dir;
  pte::json::Value ref;
};

Fixture fixture(const std::string& family) {
  Fixture f;
  f.dir = kData + "seq2seq_" + family + "/";
  if (!fs::exists(f.dir + "references.json")) return f;
  pte::Status s = pte::json::parse_file(f.dir + "references.json", &f.ref);
  REQUIRE_MESSAGE(s, s.message());
  f.present = true;
  return f;
}

const char* kRecipes[][2] = {{"portable", "model.pte"}, {"xnnpack", "model_xnnpack.pte"}};

// The Whisper fixture's features exactly as transformers' extractor made them
// (the stored speech frames, then the clamp floor).
std::vector<float> reference_features() {
  pte::json::Value doc;
  REQUIRE(pte::json::parse_file(kData + "audio/references.json", &doc));
  const pte::json::Value* e = doc.find("speech_16k_s16");
  REQUIRE(e);
  const int F = static_cast<int>(e->find("frames")->as_int());
  const float floor = static_cast<float>(e->find("mels")->find("80")->find("floor")->as_double());
  pte::util::HostTensor t;
  REQUIRE(pte::util::npy_read(kData + "audio/feat_speech_16k_s16_80.npy", &t));
  const float* r = reinterpret_cast<const float*>(t.bytes.data());
  std::vector<float> feats(80 * 3000, floor);
  for (int b = 0; b < 80; ++b)
    for (int k = 0; k < F; ++k) feats[b * 3000 + k] = r[b * F + k];
  return feats;
}

}  // namespace

TEST_CASE("seq2seq: T5 and Bart greedy tokens equal transformers' generate (portable, XNNPACK)") {
  for (const char* family : {"t5", "bart"}) {
    std::string family_s = family;
    CAPTURE(family_s);
    Fixture f = fixture(family);
    if (!f.present) {
      MESSAGE("skipped: " << f.dir << " is missing (fixtures/exporters/seq2seq.py)");
      continue;
    }
    for (auto& [recipe, file] : kRecipes) {
      std::string recipe_s = recipe;
      CAPTURE(recipe_s);
      pte::Seq2SeqOptions o;
      o.model_path = f.dir + file;
      std::unique_ptr<pte::Seq2SeqRunner> r;
      pte::Status s = pte::Seq2SeqRunner::create(o, &r);
      REQUIRE_MESSAGE(s, s.message());
      CHECK(r->metadata().task == pte::Seq2SeqTask::Text2Text);
      pte::Seq2SeqConfig c;
      c.max_new_tokens = static_cast<int>(f.ref.find("max_new_tokens")->as_int());
      pte::Seq2SeqStats st;
      std::string text;
      s = r->generate(f.ref.find("prompt")->as_string(), c, [&](const std::string& t) { text += t; }, &st);
      REQUIRE_MESSAGE(s, s.message());
      CHECK(join(st.input_ids) == join(ints(f.ref.find("input_ids"))));
      CHECK(join(st.decoder_prompt) == join(ints(f.ref.find("decoder_prompt"))));
      CHECK(join(st.tokens) == join(ints(f.ref.find("greedy_ids"))));
      std::vector<int32_t> shown = st.tokens;
      CHECK(text == r->tokenizer().decode(shown, /*skip_special_tokens=*/true));
      // a second run repeats the first (the caches are overwritten in place)
      pte::Seq2SeqStats st2;
      REQUIRE(r->generate(f.ref.find("prompt")->as_string(), c, [](const std::string&) {}, &st2));
      CHECK(join(st2.tokens) == join(st.tokens));
    }
  }
}

TEST_CASE("seq2seq: the decoder's logits equal the official runtime's") {
  for (const char* family : {"t5", "bart", "whisper"}) {
    std::string family_s = family;
    CAPTURE(family_s);
    Fixture f = fixture(family);
    if (!f.present) {
      MESSAGE("skipped: " << f.dir << " is missing");
      continue;
    }
    for (auto& [recipe, file] : kRecipes) {
      std::string recipe_s = recipe;
      CAPTURE(recipe_s);
      pte::util::HostTensor want;
      REQUIRE(pte::util::npy_read(f.dir + "et_logits_" + recipe + ".npy", &want));
      REQUIRE(want.shape.size() == 2);
      const int64_t steps = want.shape[0], V = want.shape[1];
      const float* w = reinterpret_cast<const float*>(want.bytes.data());
      pte::Seq2SeqOptions o;
      o.model_path = f.dir + file;
      std::unique_ptr<pte::Seq2SeqRunner> r;
      pte::Status s = pte::Seq2SeqRunner::create(o, &r);
      REQUIRE_MESSAGE(s, s.message());
      REQUIRE(r->metadata().vocab_size == V);
      pte::Seq2SeqConfig c;
      c.max_new_tokens = static_cast<int>(steps);
      c.language = "en";
      int seen = 0;
      double worst = 0, scale = 0;
      c.on_logits = [&](int step, const float* l, int64_t n) {
        if (step >= steps || n != V) return;
        ++seen;
        for (int64_t k = 0; k < V; ++k) {
          worst = std::max(worst, static_cast<double>(std::fabs(l[k] - w[step * V + k])));
          scale = std::max(scale, static_cast<double>(std::fabs(w[step * V + k])));
        }
      };
      pte::Seq2SeqStats st;
      if (std::string(family) == "whisper") {
        std::vector<float> feats = reference_features();
        s = r->transcribe_features(feats.data(), c, [](const std::string&) {}, &st);
      } else {
        s = r->generate(f.ref.find("prompt")->as_string(), c, [](const std::string&) {}, &st);
      }
      REQUIRE_MESSAGE(s, s.message());
      // generation may stop at EOS before `steps` steps; the runtime recorded the same steps
      CHECK(seen == std::min<int64_t>(steps, static_cast<int64_t>(st.tokens.size())));
      CHECK(seen >= 1);
      MESSAGE(std::string(family) << " " << std::string(recipe) << ": max |ours - runtime| = " << worst << " (logits up to " << scale << ")");
      CHECK(worst <= 1e-4 * std::max(1.0, scale));
    }
  }
}

TEST_CASE("seq2seq: Whisper greedy tokens equal transformers' generate (portable, XNNPACK)") {
  Fixture f = fixture("whisper");
  if (!f.present) {
    MESSAGE("skipped: " << f.dir << " is missing (fixtures/exporters/seq2seq.py)");
    return;
  }
  std::vector<float> feats = reference_features();
  for (auto& [recipe, file] : kRecipes) {
    std::string recipe_s = recipe;
      CAPTURE(recipe_s);
    pte::Seq2SeqOptions o;
    o.model_path = f.dir + file;
    std::unique_ptr<pte::Seq2SeqRunner> r;
    pte::Status s = pte::Seq2SeqRunner::create(o, &r);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(r->metadata().task == pte::Seq2SeqTask::SpeechToText);
    CHECK(r->metadata().n_mels == 80);
    CHECK(r->metadata().frames == 3000);
    pte::Seq2SeqConfig c;
    c.max_new_tokens = static_cast<int>(f.ref.find("max_new_tokens")->as_int());
    c.language = "en";
    pte::Seq2SeqStats st;
    s = r->transcribe_features(feats.data(), c, [](const std::string&) {}, &st);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(join(st.decoder_prompt) == join(ints(f.ref.find("decoder_prompt"))));
    CHECK(join(st.tokens) == join(ints(f.ref.find("greedy_ids"))));
    // without --language: detected as transformers detects it
    c.language.clear();
    s = r->transcribe_features(feats.data(), c, [](const std::string&) {}, &st);
    REQUIRE_MESSAGE(s, s.message());
    const pte::json::Value* d = f.ref.find("detected");
    CHECK(join(st.decoder_prompt) == join(ints(d->find("decoder_prompt"))));
    CHECK(join(st.tokens) == join(ints(d->find("greedy_ids"))));
    // --timestamps: transformers' generate(return_timestamps=True) under its timestamp rules
    const pte::json::Value* ts = f.ref.find("timestamps");
    REQUIRE_MESSAGE(ts, "references.json has no timestamps entry (regenerate the fixture)");
    c.language = "en";
    c.timestamps = true;
    std::string text;
    s = r->transcribe_features(feats.data(), c, [&](const std::string& t) { text += t; }, &st);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(join(st.decoder_prompt) == join(ints(ts->find("decoder_prompt"))));
    CHECK(join(st.tokens) == join(ints(ts->find("greedy_ids"))));
    CHECK(text.rfind("<|0.", 0) == 0);  // the first token is a timestamp, shown as such
    // Whisper's generate then seeks to the last timestamp pair and decodes again: it shares the
    // first segment (through the first pair of timestamps) with the one pass
    std::vector<int32_t> seek = ints(ts->find("generate_with_seeking"));
    size_t seg = 0;
    for (size_t i = 1; i < seek.size() && !seg; ++i)
      if (seek[i] >= r->metadata().timestamp_begin && seek[i - 1] >= r->metadata().timestamp_begin) seg = i + 1;
    REQUIRE(seg > 2);
    REQUIRE(st.tokens.size() >= seg);
    CHECK(join(std::vector<int32_t>(st.tokens.begin(), st.tokens.begin() + static_cast<long>(seg))) ==
          join(std::vector<int32_t>(seek.begin(), seek.begin() + static_cast<long>(seg))));
    c.timestamps = false;
    // the whole pipeline from the WAV file (our WAV reader and log-mel)
    s = r->transcribe(kData + "audio/speech_16k_s16.wav", c, [](const std::string&) {}, &st);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(st.windows == 1);
    CHECK(join(st.tokens) == join(ints(f.ref.find("greedy_ids"))));
  }
}

TEST_CASE("seq2seq cli: pte-run t5.pte \"text\" and pte-run whisper.pte speech.wav") {
  Fixture t5 = fixture("t5"), wh = fixture("whisper");
  if (!t5.present || !wh.present) {
    MESSAGE("skipped: the seq2seq fixtures are missing");
    return;
  }
  Proc p = run({t5.dir + "model.pte", t5.ref.find("prompt")->as_string(), "--ids", "--stats", "-n",
                std::to_string(t5.ref.find("max_new_tokens")->as_int())});
  REQUIRE_MESSAGE(p.code == 0, p.err);
  CHECK(join(ids_after(p.err, "generated ids:")) == join(ints(t5.ref.find("greedy_ids"))));
  CHECK(p.err.find("tok/s") != std::string::npos);
  CHECK(p.err.find("encoder ") != std::string::npos);
  for (auto& [recipe, file] : kRecipes) {
    std::string recipe_s = recipe;
      CAPTURE(recipe_s);
    p = run({wh.dir + file, kData + "audio/speech_16k_s16.wav", "--language", "en", "--ids", "--stats", "-n",
             std::to_string(wh.ref.find("max_new_tokens")->as_int())});
    REQUIRE_MESSAGE(p.code == 0, p.err);
    CHECK(join(ids_after(p.err, "decoder prompt ids:")) == join(ints(wh.ref.find("decoder_prompt"))));
    CHECK(join(ids_after(p.err, "generated ids:")) == join(ints(wh.ref.find("greedy_ids"))));
    CHECK(p.err.find("real-time factor") != std::string::npos);
  }
  // the other audio formats run through the resampler to the end
  p = run({wh.dir + "model.pte", kData + "audio/speech_44k_s24_stereo.wav", "-n", "4"});
  CHECK_MESSAGE(p.code == 0, p.err);
  // info names the task
  p = run({"info", wh.dir + "model.pte"});
  REQUIRE(p.code == 0);
  CHECK(p.out.find("speech to text") != std::string::npos);
  p = run({"info", t5.dir + "model.pte"});
  CHECK(p.out.find("text to text") != std::string::npos);
  // sampling is seeded and repeatable
  const std::string prompt = t5.ref.find("prompt")->as_string();
  Proc a = run({t5.dir + "model.pte", prompt, "--temperature", "1", "--seed", "3", "--ids"});
  Proc b = run({t5.dir + "model.pte", prompt, "--temperature", "1", "--seed", "3", "--ids"});
  Proc g = run({t5.dir + "model.pte", prompt, "--ids"});
  CHECK_MESSAGE(a.code == 0, a.err);
  CHECK(a.err == b.err);
  CHECK(ids_after(a.err, "generated ids:") != ids_after(g.err, "generated ids:"));  // sampling changes the output
  // the T5 export has a static encoder length: another length is one clear line
  Proc h = run({t5.dir + "model.pte", "hello"});
  CHECK(h.code == 1);
  CHECK_MESSAGE(h.err.find("this encoder was exported for exactly") != std::string::npos, h.err);
}

TEST_CASE("seq2seq cli: bad input is one clear line and a non-zero exit") {
  Fixture t5 = fixture("t5"), wh = fixture("whisper");
  if (!t5.present || !wh.present) {
    MESSAGE("skipped: the seq2seq fixtures are missing");
    return;
  }
  fs::path d = scratch();
  std::ofstream(d / "not.wav") << "hello";
  std::string good = slurp(kData + "audio/speech_16k_s16.wav");
  std::ofstream(d / "cut.wav", std::ios::binary) << good.substr(0, 100);
  std::string hi = good.substr(0, 44) + std::string(1000, '\0');  // 192 kHz, and a file with no samples
  for (int i = 0; i < 4; ++i) hi[24 + i] = static_cast<char>((192000u >> (8 * i)) & 0xff);
  for (int i = 0; i < 4; ++i) hi[40 + i] = static_cast<char>((1000u >> (8 * i)) & 0xff);
  std::ofstream(d / "hi.wav", std::ios::binary) << hi;
  std::string empty = good.substr(0, 44);
  for (int i = 0; i < 4; ++i) empty[40 + i] = 0;
  std::ofstream(d / "empty.wav", std::ios::binary) << empty;
  struct Bad { std::vector<std::string> args; std::string expect; };
  std::string longp;
  for (int i = 0; i < 80; ++i) longp += "the house is wonderful ";
  const Bad cases[] = {
      {{wh.dir + "model.pte", (d / "not.wav").string()}, "not a WAV file"},
      {{wh.dir + "model.pte", (d / "cut.wav").string()}, "truncated"},
      {{wh.dir + "model.pte", kData + "audio/bad_mulaw.wav"}, "mu-law"},
      {{wh.dir + "model.pte", (d / "hi.wav").string()}, "192000 Hz"},
      {{wh.dir + "model.pte", (d / "empty.wav").string()}, "no samples"},
      {{wh.dir + "model.pte", "--prompt-file", (d / "cut.wav").string()}, "WAV file, not --prompt-file"},
      {{wh.dir + "model.pte", (d / "missing.wav").string()}, "cannot open"},
      {{wh.dir + "model.pte", kData + "audio/speech_16k_s16.wav", "--language", "xx"}, "--language xx"},
      {{wh.dir + "model.pte", kData + "audio/speech_16k_s16.wav", "--task", "summarize"}, "--task"},
      {{t5.dir + "model.pte", longp}, "the encoder accepts at most"},
  };
  for (const Bad& b : cases) {
    CAPTURE(b.args[1]);
    Proc p = run(b.args);
    CHECK(p.code != 0);
    CHECK(p.code < 128);  // no signal
    CHECK_MESSAGE(p.err.find(b.expect) != std::string::npos, p.err);
    CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
  }
}

TEST_CASE("seq2seq cli: a five-minute WAV runs window by window with memory bounded by one window") {
  Fixture wh = fixture("whisper");
  if (!wh.present) {
    MESSAGE("skipped: the whisper fixture is missing");
    return;
  }
  // speech_16k_s16.wav's samples repeated: 20 s and 300 s of 16 kHz 16-bit mono
  std::string good = slurp(kData + "audio/speech_16k_s16.wav");
  REQUIRE(good.size() > 44);
  std::string pcm = good.substr(44);  // sox writes the canonical 44-byte header
  auto write_wav = [&](const fs::path& p, double seconds) {
    size_t bytes = static_cast<size_t>(seconds * 16000) * 2;
    std::string data;
    data.reserve(bytes);
    while (data.size() < bytes) data += pcm.substr(0, std::min(pcm.size(), bytes - data.size()));
    std::string h = good.substr(0, 44);
    auto put32 = [&](size_t at, uint32_t v) {
      for (int i = 0; i < 4; ++i) h[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
    };
    put32(4, static_cast<uint32_t>(36 + data.size()));
    put32(40, static_cast<uint32_t>(data.size()));
    std::ofstream(p, std::ios::binary) << h << data;
  };
  fs::path d = scratch();
  write_wav(d / "short.wav", 20);
#ifdef NDEBUG
  const int long_s = 300;  // five minutes
#else
  const int long_s = 120;  // debug and sanitizer builds run the encoder ~20x slower: four windows
#endif
  write_wav(d / "long.wav", long_s);
  auto rss_mb = [](const std::string& err) {
    size_t at = err.find("peak RSS ");
    return at == std::string::npos ? -1.0 : std::atof(err.c_str() + at + 9);
  };
  Proc a = run({wh.dir + "model.pte", (d / "short.wav").string(), "-n", "3", "--stats", "--language", "en"});
  REQUIRE_MESSAGE(a.code == 0, a.err);
  Proc b = run({wh.dir + "model.pte", (d / "long.wav").string(), "-n", "3", "--stats", "--language", "en", "--ids"});
  REQUIRE_MESSAGE(b.code == 0, b.err);
  // the last window is prompted with the previous one's text: <|startofprev|> t1 t2 t3 <|startoftranscript|> ...
  std::unique_ptr<pte::Tokenizer> tok;
  REQUIRE(pte::Tokenizer::load(wh.dir, &tok));
  std::vector<int32_t> last = ids_after(b.err, "decoder prompt ids:");
  REQUIRE(last.size() == 8);
  CHECK(last[0] == tok->token_to_id("<|startofprev|>"));
  CHECK(last[4] == tok->token_to_id("<|startoftranscript|>"));
  std::vector<int32_t> all = ids_after(b.err, "generated ids:");
  REQUIRE(all.size() == static_cast<size_t>(3 * long_s / 30));  // 3 tokens in each window
  CHECK(join({all.end() - 6, all.end() - 3}) == join({last.begin() + 1, last.begin() + 4}));
  Proc n = run({wh.dir + "model.pte", (d / "long.wav").string(), "-n", "3", "--language", "en", "--ids", "--no-previous-text"});
  REQUIRE_MESSAGE(n.code == 0, n.err);
  CHECK(join(ids_after(n.err, "decoder prompt ids:")) == join(ints(wh.ref.find("decoder_prompt"))));
  CHECK(a.err.find("in 1 window ") != std::string::npos);
  CHECK_MESSAGE(b.err.find("audio " + std::to_string(long_s) + ".00 s in " + std::to_string(long_s / 30) + " windows") !=
                    std::string::npos,
                b.err);
  double ra = rss_mb(a.err), rb = rss_mb(b.err);
  MESSAGE("peak RSS: 20 s " << ra << " MB, " << long_s << " s " << rb << " MB");
  REQUIRE(ra > 0);
  CHECK(rb < ra + 4.0);  // the 9.6 MB of samples are never held at once
  fs::remove(d / "long.wav");
}

TEST_CASE("seq2seq: a program with an encoder and no decoder is one clear line") {
  pte::test::ProgramBuilder b;
  pte::test::ProgramBuilder::TensorSpec spec;
  spec.dtype = pte::DType::Int64;
  spec.sizes = {1, 4};
  int x = b.tensor(spec), y = b.tensor(spec);
  b.move(x, y);  // one instruction: not a constant method
  b.inputs = {x};
  b.outputs = {y};
  std::unique_ptr<pte::Program> p;
  REQUIRE(b.open(&p, "encoder"));
  fs::path file = scratch() / "encoder_only.pte";
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(b.bytes().data()),
                                               static_cast<std::streamsize>(b.bytes().size()));
  pte::Seq2SeqOptions o;
  o.model_path = file.string();
  std::unique_ptr<pte::Seq2SeqRunner> r;
  pte::Status s = pte::Seq2SeqRunner::create(o, &r);
  REQUIRE(!s);
  CHECK_MESSAGE(s.message().find("has an encoder but no decoder method") != std::string::npos, s.message());
  Proc c = run({file.string(), "some text"});
  CHECK(c.code == 1);
  CHECK_MESSAGE(c.err.find("has an encoder but no decoder method") != std::string::npos, c.err);
  CHECK(std::count(c.err.begin(), c.err.end(), '\n') == 1);
  c = run({"info", file.string()});
  CHECK(c.out.find("encoder only") != std::string::npos);
}

TEST_CASE("seq2seq: a hostile generation_config.json is ignored where it names ids outside the vocabulary, refused when malformed") {
  Fixture wh = fixture("whisper");
  if (!wh.present) {
    MESSAGE("skipped: the whisper fixture is missing");
    return;
  }
  fs::path d = scratch() / "hostile";
  fs::create_directories(d);
  for (const char* f : {"model.pte", "tokenizer.json", "tokenizer_config.json"})
    fs::copy_file(wh.dir + f, d / f, fs::copy_options::overwrite_existing);
  std::ofstream(d / "generation_config.json")
      << R"({"lang_to_id": {"<|en|>": 99999999, "<|xx|>": -5}, "forced_bos_token_id": 123456789,
             "suppress_tokens": [-1, 99999999, 7], "begin_suppress_tokens": [1e30, 3],
             "max_initial_timestamp_index": 9223372036854775807, "eos_token_id": [99999999]})";
  pte::Seq2SeqOptions o;
  o.model_path = (d / "model.pte").string();
  std::unique_ptr<pte::Seq2SeqRunner> r;
  pte::Status s = pte::Seq2SeqRunner::create(o, &r);
  REQUIRE_MESSAGE(s, s.message());
  CHECK(r->metadata().forced_bos_id == -1);
  for (const auto& l : r->metadata().languages) CHECK(l.second < r->metadata().vocab_size);
  CHECK(r->metadata().languages.size() == 4);  // the bad map is dropped: the tokenizer's language tokens
  std::vector<float> feats = reference_features();
  pte::Seq2SeqConfig c;
  c.max_new_tokens = 4;
  c.timestamps = true;
  pte::Seq2SeqStats st;
  s = r->transcribe_features(feats.data(), c, [](const std::string&) {}, &st);
  CHECK_MESSAGE(s, s.message());
  std::ofstream(d / "generation_config.json") << "{\"suppress_tokens\": [1, 2,";
  s = pte::Seq2SeqRunner::create(o, &r);
  REQUIRE(!s);
  CHECK(s.message().find("generation_config.json") != std::string::npos);
  CHECK(s.message().find('\n') == std::string::npos);
}

// ---- --preprocessor: ExecuTorch's own Whisper preprocessor.pte (llm/preprocessor.*) ----
// fixtures/data/seq2seq_whisper/preprocessor{,_xnnpack}.pte and the official runtime's
// features on speech_16k_s16.wav (fixtures/exporters/seq2seq_preprocessor.py).

namespace {

const char* kPreRecipes[][2] = {{"portable", "preprocessor.pte"}, {"xnnpack", "preprocessor_xnnpack.pte"}};

bool preprocessor_present(const Fixture& f) {
  return f.present && fs::exists(f.dir + "preprocessor.pte") && fs::exists(f.dir + "et_preprocessor.json");
}

}  // namespace

TEST_CASE("seq2seq: --preprocessor features equal the official runtime's and our log-mel") {
  Fixture f = fixture("whisper");
  if (!preprocessor_present(f)) {
    MESSAGE("skipped: " << f.dir << "preprocessor.pte is missing (fixtures/exporters/seq2seq_preprocessor.py)");
    return;
  }
  pte::json::Value ref;
  REQUIRE(pte::json::parse_file(f.dir + "et_preprocessor.json", &ref));
  const int F = static_cast<int>(ref.find("frames")->as_int());
  const float floor = static_cast<float>(ref.find("floor")->as_double());
  const double norm = ref.find("norm")->as_double();
  pte::util::HostTensor t;
  REQUIRE(pte::util::npy_read(f.dir + "et_preprocessor_features.npy", &t));
  REQUIRE(t.numel() == 80 * F);
  const float* r = reinterpret_cast<const float*>(t.bytes.data());
  std::vector<float> x;
  pte::Status s = pte::audio::read_wav_16k(kData + "audio/speech_16k_s16.wav", &x);
  REQUIRE_MESSAGE(s, s.message());
  REQUIRE(static_cast<int64_t>(x.size()) == ref.find("samples")->as_int());
  std::vector<float> ours(80 * 3000);
  pte::audio::LogMel mel;
  REQUIRE(mel.init(80));
  mel.compute(x.data(), x.size(), ours.data());
  for (auto& [recipe, file] : kPreRecipes) {
    std::string recipe_s = recipe;
    CAPTURE(recipe_s);
    std::unique_ptr<pte::FeaturePreprocessor> pre;
    s = pte::FeaturePreprocessor::open(f.dir + file, 80, 3000, 480000, 1, &pre);
    REQUIRE_MESSAGE(s, s.message());
    std::vector<float> got(80 * 3000, 1e9f);
    for (int pass = 0; pass < 2; ++pass) {  // twice: the second run reuses the loaded method
      s = pre->compute(x.data(), x.size(), got.data());
      REQUIRE_MESSAGE(s, s.message());
    }
    double d_et = 0, d_ours = 0;
    for (int b = 0; b < 80; ++b)
      for (int k = 0; k < 3000; ++k) {
        double g = got[b * 3000 + k];
        double want = k < F ? r[b * F + k] : floor;
        d_et += (g - want) * (g - want);
        d_ours += (g - ours[b * 3000 + k]) * (g - ours[b * 3000 + k]);
      }
    d_et = std::sqrt(d_et) / norm;
    d_ours = std::sqrt(d_ours) / norm;
    MESSAGE(recipe_s << ": normalised error against the official runtime " << d_et << ", against our log-mel " << d_ours);
    CHECK(d_et < 1e-4);
    // ours follows transformers' extractor; ExecuTorch's module builds its Hann window from
    // linspace (its comment: up to 1e-4 worse than torch.hann_window): measured ~4.5e-7
    CHECK(d_ours < 1e-4);
  }
}

TEST_CASE("seq2seq: Whisper with --preprocessor gives the same greedy tokens") {
  Fixture f = fixture("whisper");
  if (!preprocessor_present(f)) {
    MESSAGE("skipped: " << f.dir << "preprocessor.pte is missing (fixtures/exporters/seq2seq_preprocessor.py)");
    return;
  }
  for (auto& [recipe, file] : kRecipes) {
    for (auto& [pre_recipe, pre_file] : kPreRecipes) {
      std::string what = std::string(recipe) + " model, " + pre_recipe + " preprocessor";
      CAPTURE(what);
      pte::Seq2SeqOptions o;
      o.model_path = f.dir + file;
      o.preprocessor_path = f.dir + pre_file;
      std::unique_ptr<pte::Seq2SeqRunner> r;
      pte::Status s = pte::Seq2SeqRunner::create(o, &r);
      REQUIRE_MESSAGE(s, s.message());
      pte::Seq2SeqConfig c;
      c.max_new_tokens = static_cast<int>(f.ref.find("max_new_tokens")->as_int());
      c.language = "en";
      pte::Seq2SeqStats st;
      s = r->transcribe(kData + "audio/speech_16k_s16.wav", c, [](const std::string&) {}, &st);
      REQUIRE_MESSAGE(s, s.message());
      CHECK(st.windows == 1);
      CHECK(join(st.tokens) == join(ints(f.ref.find("greedy_ids"))));
    }
  }
  // the CLI
  Proc p = run({f.dir + "model.pte", kData + "audio/speech_16k_s16.wav", "--preprocessor", f.dir + "preprocessor.pte",
                "--language", "en", "--ids", "-n", std::to_string(f.ref.find("max_new_tokens")->as_int())});
  REQUIRE_MESSAGE(p.code == 0, p.err);
  CHECK(join(ids_after(p.err, "generated ids:")) == join(ints(f.ref.find("greedy_ids"))));
}

TEST_CASE("seq2seq cli: a --preprocessor that does not fit is one clear line") {
  Fixture t5 = fixture("t5"), wh = fixture("whisper");
  if (!preprocessor_present(wh) || !t5.present) {
    MESSAGE("skipped: the seq2seq fixtures or preprocessor.pte are missing");
    return;
  }
  const std::string wav = kData + "audio/speech_16k_s16.wav";
  struct Bad { std::vector<std::string> args; std::string expect; };
  const Bad cases[] = {
      // a program whose method is not waveform -> features (the Whisper model itself)
      {{wh.dir + "model.pte", wav, "--preprocessor", wh.dir + "model.pte"}, "not a preprocessor"},
      {{wh.dir + "model.pte", wav, "--preprocessor", wh.dir + "missing.pte"}, "missing.pte"},
      {{wh.dir + "model.pte", wav, "--preprocessor", kData + "audio/speech_16k_s16.wav"}, "--preprocessor"},
      {{t5.dir + "model.pte", "hello", "--preprocessor", wh.dir + "preprocessor.pte"}, "applies to speech programs"},
  };
  // an encoder of another shape (as a 128-bin Whisper would take): refused at load
  std::unique_ptr<pte::FeaturePreprocessor> pre;
  pte::Status s = pte::FeaturePreprocessor::open(wh.dir + "preprocessor.pte", 128, 3000, 480000, 1, &pre);
  CHECK_FALSE(s);
  CHECK_MESSAGE(s.message().find("it outputs [1, 80, 3000] features; the encoder takes [1, 128, 3000]") != std::string::npos, s.message());
  s = pte::FeaturePreprocessor::open(wh.dir + "preprocessor.pte", 80, 6000, 960000, 1, &pre);
  CHECK_FALSE(s);
  CHECK_MESSAGE(s.message().find("takes at most 480000 samples") != std::string::npos, s.message());
  for (const Bad& b : cases) {
    CAPTURE(b.args[3]);
    Proc p = run(b.args);
    CHECK(p.code != 0);
    CHECK(p.code < 128);
    CHECK_MESSAGE(p.err.find(b.expect) != std::string::npos, p.err);
    CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
  }
}
