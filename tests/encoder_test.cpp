// Encoder programs (encoder/, bin/encode.cpp) on the tiny fixtures written by
// fixtures/exporters/encoders.py (fixtures/data/encoder_*): fill-mask top-k ids equal
// transformers' fill-mask pipeline and the official runtime's, probabilities within 1e-4;
// mean-pooled sentence embeddings with cosine >= 0.99999 to transformers' (one text at a
// time and as a padded batch) and the runtime's; the CLI's commands and errors.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_spawn.h"
#include "encoder/encoder.h"
#include "util/json.h"
#include "util/npy.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
const std::string kData = "fixtures/data/";
const char* kRecipes[][2] = {{"portable", "model.pte"}, {"xnnpack", "model_xnnpack.pte"}};

using Proc = pte_test::CliRun;
using pte_test::slurp;
fs::path scratch() { return pte_test::scratch_dir("enc"); }
Proc run(const std::vector<std::string>& args) { return pte_test::run_pte_run(args); }

bool load_refs(const std::string& family, pte::json::Value* refs) {
  fs::path p = fs::path(kData) / ("encoder_" + family) / "references.json";
  if (!fs::exists(p)) {
    MESSAGE("skipped: " << p.string() << " missing (run fixtures/exporters/encoders.py)");
    return false;
  }
  REQUIRE(pte::json::parse_file(p.string(), refs));
  return true;
}

double cosine(const std::vector<float>& a, const pte::json::Value& b) {
  REQUIRE(a.size() == b.size());
  double d = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double y = b[i].as_double();
    d += a[i] * y;
    na += static_cast<double>(a[i]) * a[i];
    nb += y * y;
  }
  return d / std::sqrt(na * nb);
}

void check_fill_mask(const std::string& family) {
  pte::json::Value refs;
  if (!load_refs(family, &refs)) return;
  const int k = static_cast<int>(refs.find("top_k")->as_int());
  for (auto [recipe, file] : kRecipes) {
    CAPTURE(recipe);
    pte::EncoderOptions o;
    o.model_path = kData + "encoder_" + family + "/" + file;
    std::unique_ptr<pte::EncoderRunner> r;
    pte::Status s = pte::EncoderRunner::create(o, &r);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(r->task() == pte::EncoderTask::FillMask);
    const auto& items = refs.find("items")->items();
    const auto& et = (*refs.find("et")->find(recipe)).items();
    REQUIRE(items.size() == et.size());
    REQUIRE(items.size() >= 3);
    for (size_t t = 0; t < items.size(); ++t) {
      const auto& it = items[t];
      CAPTURE(it.find("text")->as_string());
      std::vector<int32_t> ids;
      REQUIRE(r->tokenizer().encode(it.find("text")->as_string(), true, &ids));
      const auto& want_ids = it.find("input_ids")->items();
      REQUIRE(ids.size() == want_ids.size());
      for (size_t i = 0; i < ids.size(); ++i) CHECK(ids[i] == want_ids[i].as_int());
      std::vector<pte::MaskPrediction> preds;
      s = r->fill_mask(it.find("text")->as_string(), k, &preds);
      REQUIRE_MESSAGE(s, s.message());
      const auto& tops = it.find("top_k")->items();
      const auto& pos = it.find("mask_positions")->items();
      REQUIRE(preds.size() == tops.size());
      for (size_t m = 0; m < preds.size(); ++m) {
        CHECK(preds[m].position == pos[m].as_int());
        const auto& pid = tops[m].find("ids")->items();
        const auto& psc = tops[m].find("scores")->items();
        const auto& ptok = tops[m].find("tokens")->items();
        const auto& esc = et[t][m].find("scores")->items();
        REQUIRE(preds[m].candidates.size() == static_cast<size_t>(k));
        for (int c = 0; c < k; ++c) {
          const auto& got = preds[m].candidates[c];
          CHECK(got.id == pid[c].as_int());                       // top-k order equal
          CHECK(got.token == ptok[c].as_string());                // token_str as the pipeline decodes it
          CHECK(std::fabs(got.score - psc[c].as_double()) < 1e-4);  // transformers
          CHECK(std::fabs(got.score - esc[c].as_double()) < 1e-5);  // official runtime, same .pte
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("encoder: fill-mask DistilBERT equals transformers' pipeline and the runtime (portable, XNNPACK)") {
  check_fill_mask("distilbert");
}

TEST_CASE("encoder: fill-mask RoBERTa (byte-level BPE, <mask> with lstrip) equals transformers' pipeline and the runtime") {
  check_fill_mask("roberta");
}

TEST_CASE("encoder: fill-mask ALBERT (unigram tokenizer, factorised embeddings) equals transformers' pipeline and the runtime") {
  check_fill_mask("albert");
}

TEST_CASE("encoder: fill-mask MobileBERT (bottlenecks, NoNorm, stacked FFNs) equals transformers' pipeline and the runtime") {
  // fixtures/make_encoder_mobilebert.py
  check_fill_mask("mobilebert");
}

TEST_CASE("encoder: sentence embeddings (mean pooling from 1_Pooling) equal transformers' and the runtime's") {
  pte::json::Value refs;
  if (!load_refs("st_bert", &refs)) return;
  const auto& items = refs.find("items")->items();
  const auto& batch = refs.find("batch_embeddings")->items();
  std::vector<std::string> texts;
  for (const auto& it : items) texts.push_back(it.find("text")->as_string());
  REQUIRE(texts.size() >= 3);
  for (auto [recipe, file] : kRecipes) {
    CAPTURE(recipe);
    pte::EncoderOptions o;
    o.model_path = kData + "encoder_st_bert/" + file;
    std::unique_ptr<pte::EncoderRunner> r;
    pte::Status s = pte::EncoderRunner::create(o, &r);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(r->task() == pte::EncoderTask::Embedding);
    CHECK(r->default_pooling() == pte::Pooling::Mean);
    CHECK(r->batch() == 1);
    std::vector<std::vector<float>> v;
    s = r->embed(texts, pte::Pooling::Default, false, &v);
    REQUIRE_MESSAGE(s, s.message());
    REQUIRE(v.size() == texts.size());
    const auto& et = (*refs.find("et")->find(recipe)).items();
    for (size_t i = 0; i < v.size(); ++i) {
      CHECK(cosine(v[i], *items[i].find("embedding")) >= 0.99999);
      CHECK(cosine(v[i], batch[i]) >= 0.99999);  // transformers' padded batch
      CHECK(cosine(v[i], et[i]) >= 0.99999);
      for (size_t j = 0; j < v[i].size(); ++j) CHECK(std::fabs(v[i][j] - et[i][j].as_double()) < 1e-4);
    }
    // normalised: unit length, same direction
    std::vector<std::vector<float>> n;
    REQUIRE(r->embed(texts, pte::Pooling::Default, true, &n));
    for (size_t i = 0; i < n.size(); ++i) {
      double ss = 0;
      for (float x : n[i]) ss += x * x;
      CHECK(std::fabs(ss - 1) < 1e-5);
      CHECK(cosine(n[i], *items[i].find("embedding")) >= 0.99999);
    }
    // a text longer than the program's 32 tokens is truncated as sentence-transformers does:
    // [CLS] + the first 30 tokens + [SEP]
    std::string w40, w30;
    for (int i = 0; i < 40; ++i) (i < 30 ? w30 : w40) += "the ";
    w40 += w30;
    std::vector<int32_t> ids;
    REQUIRE(r->tokenizer().encode(w30, true, &ids));
    REQUIRE(ids.size() == 32);
    std::vector<std::vector<float>> tr;
    REQUIRE(r->embed({w40, w30}, pte::Pooling::Default, false, &tr));
    REQUIRE(r->truncated().size() == 1);
    CHECK(r->truncated()[0].first == 42);
    CHECK(tr[0] == tr[1]);
    // CLS pooling is row 0 of the hidden states: differs from the mean
    std::vector<std::vector<float>> c;
    REQUIRE(r->embed(texts, pte::Pooling::Cls, false, &c));
    CHECK(cosine(c[0], *items[0].find("embedding")) < 0.9999);
  }
}

TEST_CASE("encoder: a decoder exported for features (Qwen3-Embedding style: last-token pooling, Normalize) equals transformers'") {
  pte::json::Value refs;
  if (!load_refs("st_qwen3", &refs)) return;
  const auto& items = refs.find("items")->items();
  std::vector<std::string> texts;
  for (const auto& it : items) texts.push_back(it.find("text")->as_string());
  REQUIRE(texts.size() >= 3);
  pte::EncoderOptions o;
  o.model_path = kData + "encoder_st_qwen3/model.pte";
  std::unique_ptr<pte::EncoderRunner> r;
  pte::Status s = pte::EncoderRunner::create(o, &r);
  REQUIRE_MESSAGE(s, s.message());
  CHECK(r->task() == pte::EncoderTask::Embedding);
  CHECK(r->default_pooling() == pte::Pooling::LastToken);
  CHECK(r->default_normalize());
  for (size_t i = 0; i < texts.size(); ++i) {
    std::vector<int32_t> ids;
    REQUIRE(r->tokenizer().encode(texts[i], true, &ids));
    const auto& want = items[i].find("input_ids")->items();
    REQUIRE(ids.size() == want.size());
    for (size_t j = 0; j < ids.size(); ++j) CHECK(ids[j] == want[j].as_int());
  }
  std::vector<std::vector<float>> v;
  s = r->embed(texts, pte::Pooling::Default, r->default_normalize(), &v);
  REQUIRE_MESSAGE(s, s.message());
  const auto& et = (*refs.find("et")->find("portable")).items();
  const auto& batch = refs.find("batch_embeddings")->items();
  for (size_t i = 0; i < v.size(); ++i) {
    CHECK(cosine(v[i], *items[i].find("embedding")) >= 0.99999);
    CHECK(cosine(v[i], batch[i]) >= 0.99999);
    CHECK(cosine(v[i], et[i]) >= 0.99999);
    for (size_t j = 0; j < v[i].size(); ++j) CHECK(std::fabs(v[i][j] - et[i][j].as_double()) < 1e-5);
  }
  // the CLI normalises by the folder's Normalize module without --normalize
  Proc p = run({"embed", o.model_path, texts[0], "--json"});
  REQUIRE_MESSAGE(p.code == 0, p.err);
  pte::json::Value doc;
  REQUIRE(pte::json::parse(p.out, &doc));
  CHECK(doc.find("normalized")->as_bool());
  CHECK(doc.find("pooling")->as_string() == "last");
}

TEST_CASE("encoder: a program with a batch of 4 runs padded, masked batches (a partial last batch too)") {
  pte::json::Value refs;
  if (!load_refs("st_bert", &refs)) return;
  const pte::json::Value* eb = refs.find("et_batch");
  REQUIRE_MESSAGE(eb, "references.json has no et_batch (regenerate with fixtures/exporters/encoders.py)");
  pte::EncoderOptions o;
  o.model_path = kData + "encoder_st_bert/" + eb->find("program")->as_string();
  std::unique_ptr<pte::EncoderRunner> r;
  pte::Status s = pte::EncoderRunner::create(o, &r);
  REQUIRE_MESSAGE(s, s.message());
  CHECK(r->batch() == 4);
  CHECK(r->dynamic_length());
  const auto& items = refs.find("items")->items();
  REQUIRE(items.size() == 4);
  // 6 texts: one full batch of 4, then 2 texts padded with 2 unused rows
  std::vector<std::string> texts;
  for (const auto& it : items) texts.push_back(it.find("text")->as_string());
  texts.push_back(texts[2]);
  texts.push_back(texts[0]);
  std::vector<std::vector<float>> v;
  s = r->embed(texts, pte::Pooling::Default, false, &v);
  REQUIRE_MESSAGE(s, s.message());
  REQUIRE(v.size() == 6);
  const size_t src[6] = {0, 1, 2, 3, 2, 0};
  for (size_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    CHECK(cosine(v[i], *items[src[i]].find("embedding")) >= 0.99999);     // transformers, unpadded
    CHECK(cosine(v[i], (*eb->find("embeddings"))[src[i]]) >= 0.99999);    // runtime, padded batch
  }
}

TEST_CASE("encoder: random texts (mask tokens anywhere, long, control and non-ASCII characters, invalid UTF-8) never crash") {
  const std::string dm = kData + "encoder_roberta/model.pte";
  const std::string se = kData + "encoder_st_bert/model_batch4.pte";
  if (!fs::exists(dm) || !fs::exists(se)) {
    MESSAGE("skipped: encoder fixtures missing");
    return;
  }
  std::unique_ptr<pte::EncoderRunner> fm, em;
  pte::EncoderOptions o;
  o.model_path = dm;
  REQUIRE(pte::EncoderRunner::create(o, &fm));
  o.model_path = se;
  REQUIRE(pte::EncoderRunner::create(o, &em));
  const char* pieces[] = {"<mask>", "[MASK]", "the", " cat", "\xc3\xa9", "\xe2\x96\x81", "\xf0\x9f\x98\x80", "\n", "\t",
                          "\x01", "\xff", "\xc3", "  ", "<s>", "</s>", "<pad>", "[CLS]", "##", ".", "0123456789"};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&]() {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  int ok_fill = 0, ok_embed = 0;
  for (int iter = 0; iter < 300; ++iter) {
    std::string text;
    const int n = static_cast<int>(next() % (iter % 10 == 0 ? 48 : 12));
    for (int i = 0; i < n; ++i) text += pieces[next() % (sizeof(pieces) / sizeof(pieces[0]))];
    std::vector<pte::MaskPrediction> preds;
    pte::Status s = fm->fill_mask(text, 1 + static_cast<int>(next() % 7), &preds);
    if (s) {
      ++ok_fill;
      CHECK(!preds.empty());
      for (const auto& p : preds)
        for (const auto& c : p.candidates) CHECK((c.score >= 0 && c.score <= 1));
    } else {
      CHECK(s.message().find('\n') == std::string::npos);
    }
    std::vector<std::vector<float>> v;
    s = em->embed({text, "the cat", text}, pte::Pooling::Default, (next() & 1) != 0, &v);
    if (s) {
      ++ok_embed;
      REQUIRE(v.size() == 3);
      CHECK(v[0] == v[2]);  // the same text gives the same vector wherever it sits in the batch
      for (float x : v[0]) CHECK(std::isfinite(x));
    }
  }
  MESSAGE("fill-mask ran on " << ok_fill << " / 300 random texts, embed on " << ok_embed);
  CHECK(ok_fill > 20);
  CHECK(ok_embed > 50);
}

TEST_CASE("encoder: the CLI's fill-mask, embed and info commands") {
  const std::string dm = kData + "encoder_distilbert/model.pte";
  const std::string se = kData + "encoder_st_bert/model.pte";
  if (!fs::exists(dm) || !fs::exists(se)) {
    MESSAGE("skipped: encoder fixtures missing");
    return;
  }
  pte::json::Value refs;
  REQUIRE(load_refs("distilbert", &refs));
  const auto& first = refs.find("items")->items()[0];
  Proc p = run({dm, first.find("text")->as_string(), "--json", "--top-k", "3"});
  REQUIRE_MESSAGE(p.code == 0, p.err);
  pte::json::Value doc;
  REQUIRE(pte::json::parse(p.out, &doc));
  REQUIRE(doc.size() == 1);
  const auto& cands = doc[0].find("candidates")->items();
  REQUIRE(cands.size() == 3);
  for (size_t c = 0; c < 3; ++c)
    CHECK(cands[c].find("token")->as_int() == (*first.find("top_k"))[0].find("ids")->items()[c].as_int());
  // plain text: one line per candidate
  p = run({dm, first.find("text")->as_string()});
  CHECK(p.code == 0);
  CHECK(std::count(p.out.begin(), p.out.end(), '\n') == 5);
  // a text without the mask token: one clear line
  p = run({dm, "Paris is the capital of France."});
  CHECK(p.code == 1);
  CHECK(p.err.find("no mask token [MASK]") != std::string::npos);
  CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
  // a text longer than the program takes
  std::string longtext;
  for (int i = 0; i < 40; ++i) longtext += "cat [MASK] ";
  p = run({dm, longtext});
  CHECK(p.code == 1);
  CHECK(p.err.find("takes at most 32") != std::string::npos);
  // info names the task
  p = run({"info", dm});
  CHECK(p.out.find("fill-mask") != std::string::npos);
  p = run({"info", se});
  CHECK(p.out.find("sentence embeddings") != std::string::npos);

  // embed: --out .npy equals the printed vectors' library values; --similarity diagonal 1
  fs::path dir = scratch();
  pte::json::Value srefs;
  REQUIRE(load_refs("st_bert", &srefs));
  const auto& items = srefs.find("items")->items();
  std::ofstream(dir / "texts.txt") << items[0].find("text")->as_string() << "\n\n"
                                    << items[1].find("text")->as_string() << "\r\n";
  p = run({"embed", se, "--input-file", (dir / "texts.txt").string(), "--out", (dir / "e.npy").string()});
  REQUIRE_MESSAGE(p.code == 0, p.err);
  pte::util::HostTensor t;
  REQUIRE(pte::util::npy_read((dir / "e.npy").string(), &t));
  REQUIRE(t.shape.size() == 2);
  REQUIRE(t.shape[0] == 2);
  for (int i = 0; i < 2; ++i) {
    std::vector<float> v(static_cast<size_t>(t.shape[1]));
    std::memcpy(v.data(), t.bytes.data() + i * v.size() * 4, v.size() * 4);
    CHECK(cosine(v, *items[i].find("embedding")) >= 0.99999);
  }
  p = run({"embed", se, items[0].find("text")->as_string(), items[1].find("text")->as_string(), "--similarity", "--json",
           "--normalize"});
  REQUIRE_MESSAGE(p.code == 0, p.err);
  REQUIRE(pte::json::parse(p.out, &doc));
  const auto& sim = *doc.find("similarity");
  CHECK(std::fabs(sim[0][0].as_double() - 1) < 1e-6);
  CHECK(std::fabs(sim[0][1].as_double() - sim[1][0].as_double()) < 1e-9);
  CHECK(sim[0][1].as_double() < 0.99999);
  CHECK(doc.find("normalized")->as_bool());
  CHECK(doc.find("pooling")->as_string() == "mean");
  // an empty input file, a missing one, a bad pooling name: one clear line each
  std::ofstream(dir / "empty.txt").close();
  p = run({"embed", se, "--input-file", (dir / "empty.txt").string()});
  CHECK(p.code == 1);
  CHECK(p.err.find("no texts") != std::string::npos);
  CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
  p = run({"embed", se, "--input-file", (dir / "missing.txt").string()});
  CHECK(p.code == 1);
  p = run({"embed", se, "x", "--pooling", "median"});
  CHECK(p.code == 2);
  // invalid UTF-8
  p = run({"embed", se, std::string("bad \xff text")});
  CHECK(p.code == 1);
  CHECK(p.err.find("UTF-8") != std::string::npos);
  // fill-mask on the embedding program
  p = run({"fill-mask", se, "the [MASK] sat"});
  CHECK(p.code == 1);
  CHECK(p.err.find("use pte-run embed") != std::string::npos);
  // a malformed or ambiguous 1_Pooling/config.json, a hostile tokenizer_config.json: one clear line
  fs::path copy = dir / "st";
  fs::create_directories(copy / "1_Pooling");
  for (const char* f : {"model.pte", "tokenizer.json", "config.json", "modules.json"})
    fs::copy_file(fs::path(kData) / "encoder_st_bert" / f, copy / f);
  std::ofstream(copy / "1_Pooling" / "config.json") << "{\"pooling_mode_mean_tokens\": tru";
  p = run({"embed", (copy / "model.pte").string(), "x"});
  CHECK(p.code == 1);
  CHECK(p.err.find("1_Pooling/config.json: not a readable JSON file") != std::string::npos);
  std::ofstream(copy / "1_Pooling" / "config.json") << "{\"pooling_mode_mean_tokens\": true, \"pooling_mode_cls_token\": true}";
  p = run({"embed", (copy / "model.pte").string(), "x"});
  CHECK(p.code == 1);
  CHECK(p.err.find("only one of") != std::string::npos);
  std::ofstream(copy / "1_Pooling" / "config.json") << "{\"pooling_mode_cls_token\": true}";
  std::ofstream(copy / "tokenizer_config.json") << "{\"mask_token\": {\"content\": 7}, \"pad_token\": [1, 2]}";
  p = run({"embed", (copy / "model.pte").string(), items[0].find("text")->as_string(), "--json"});
  CHECK_MESSAGE(p.code == 0, p.err);
  REQUIRE(pte::json::parse(p.out, &doc));
  CHECK(doc.find("pooling")->as_string() == "cls");
  // embed on a fill-mask program: refused (its output is logits)
  p = run({"embed", dm, "the cat"});
  CHECK(p.code == 1);
  CHECK(p.err.find("masked-LM logits") != std::string::npos);
  // a program that is not an encoder
  p = run({"embed", kData + "add/model.pte", "x"});
  CHECK(p.code == 1);
  CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
  fs::remove_all(dir);
}
