// Tokenizer test vectors: every committed vector (fixtures/tokenizers/<name>/vectors.json,
// made by fixtures/tokenizers/make_vectors.py from the reference implementations)
// must be reproduced exactly: encode with and without special tokens, decode with
// and without skipping special tokens, and the streaming decoder's chunks.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "pte/tokenizer.h"
#include "util/json.h"

namespace {

std::string show_ids(const std::vector<int32_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s.push_back(',');
    s.append(std::to_string(v[i]));
  }
  s.push_back(']');
  return s;
}

std::vector<int32_t> ids_of(const pte::json::Value* v) {
  std::vector<int32_t> out;
  if (v)
    for (const auto& x : v->items()) out.push_back(static_cast<int32_t>(x.as_int()));
  return out;
}

struct Counts {
  int cases = 0, failures = 0;
};

void report(Counts* c, const std::string& what) {
  if (++c->failures <= 6) FAIL_CHECK(what);
}

// Feeds ids to a TokenStream; checks chunk validity, the reference chunks (when
// given) and, when `whole` (ids that came from encoding a text), that everything
// emitted plus the flush equals `decoded`. For arbitrary id lists the reference's
// stream itself can differ from the whole decode (e.g. byte-fallback bytes that
// only fail to form UTF-8 once later bytes arrive), so only its chunks are compared.
void check_stream(const pte::Tokenizer& tok, const std::vector<int32_t>& ids, const pte::json::Value* ref,
                  const std::string& decoded, const std::string& label, Counts* c, bool whole) {
  pte::TokenStream stream(tok, false);
  std::string all, chunk;
  for (size_t i = 0; i < ids.size(); ++i) {
    pte::Status s = stream.step(ids[i], &chunk);
    if (!s) {
      if (ref && !ref->is_null()) report(c, label + ": stream step failed: " + s.message());
      return;  // the reference fails too (not prefix-stable)
    }
    if (!pte::json::valid_utf8(chunk)) report(c, label + ": stream chunk is not valid UTF-8");
    if (ref && ref->is_array() && (*ref)[i].as_string() != chunk) {
      report(c, label + ": stream chunk " + std::to_string(i) + " is " + pte::json::quote(chunk) + ", want " +
                    pte::json::quote((*ref)[i].as_string()));
      return;
    }
    all += chunk;
  }
  all += stream.flush();
  if (whole && all != decoded) report(c, label + ": stream total " + pte::json::quote(all) + " != decode " + pte::json::quote(decoded));
}

void run_vectors(const std::string& name) {
  const std::string dir = "fixtures/tokenizers/";
  pte::json::Value doc;
  pte::Status st = pte::json::parse_file(dir + name + "/vectors.json", &doc);
  if (!st) {
    MESSAGE("skipping " << name << ": " << st.message());
    return;
  }
  const std::string tok_path = dir + doc.find("tokenizer")->as_string();
  std::unique_ptr<pte::Tokenizer> tok;
  auto t0 = std::chrono::steady_clock::now();
  st = pte::Tokenizer::load(tok_path, &tok);
  double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_MESSAGE(st.is_ok(), st.message());
  // Reported, not asserted: timings on a shared machine are not test results.
  WARN_MESSAGE(load_ms < 1000.0, name << " loads in " << load_ms << " ms");

  Counts c;
  double enc_ms = 0;
  for (const auto& cs : doc.find("cases")->items()) {
    ++c.cases;
    const std::string& text = cs.find("text")->as_string();
    const std::string label = name + " " + pte::json::quote(text.size() > 60 ? text.substr(0, 60) + "..." : text);
    std::vector<int32_t> want = ids_of(cs.find("ids")), want_plain = ids_of(cs.find("ids_plain"));
    std::vector<int32_t> got, got_plain;
    auto e0 = std::chrono::steady_clock::now();
    pte::Status s1 = tok->encode(text, true, &got);
    pte::Status s2 = tok->encode(text, false, &got_plain);
    enc_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - e0).count();
    if (!s1 || !s2) {
      report(&c, label + ": encode failed: " + (s1 ? s2.message() : s1.message()));
      continue;
    }
    if (got != want) report(&c, label + ": ids " + show_ids(got) + " want " + show_ids(want));
    if (got_plain != want_plain)
      report(&c, label + ": ids without special tokens " + show_ids(got_plain) + " want " + show_ids(want_plain));
    const std::string& dec = cs.find("decoded")->as_string();
    const std::string& dec_skip = cs.find("decoded_skip")->as_string();
    std::string d1 = tok->decode(want, false), d2 = tok->decode(want, true);
    if (d1 != dec) report(&c, label + ": decode " + pte::json::quote(d1) + " want " + pte::json::quote(dec));
    if (d2 != dec_skip)
      report(&c, label + ": decode(skip special) " + pte::json::quote(d2) + " want " + pte::json::quote(dec_skip));
    check_stream(*tok, want, cs.find("stream"), dec, label, &c, true);
  }
  for (const auto& cs : doc.find("decode_cases")->items()) {
    ++c.cases;
    std::vector<int32_t> ids = ids_of(cs.find("ids"));
    const std::string label = name + " decode " + show_ids(ids);
    const std::string& dec = cs.find("decoded")->as_string();
    const std::string& dec_skip = cs.find("decoded_skip")->as_string();
    std::string d1 = tok->decode(ids, false), d2 = tok->decode(ids, true);
    if (d1 != dec) report(&c, label + ": " + pte::json::quote(d1) + " want " + pte::json::quote(dec));
    if (d2 != dec_skip) report(&c, label + ": (skip special) " + pte::json::quote(d2) + " want " + pte::json::quote(dec_skip));
    check_stream(*tok, ids, cs.find("stream"), dec, label, &c, false);
  }
  MESSAGE(name << ": " << c.cases << " vectors, " << c.failures << " failures; load " << load_ms << " ms, encode "
               << enc_ms << " ms");
  CHECK(c.cases > 100);
  CHECK(c.failures == 0);
}

}  // namespace

#define PTE_TOKENIZER_VECTORS(name) \
  TEST_CASE("tokenizer vectors: " name) { run_vectors(name); }

PTE_TOKENIZER_VECTORS("smollm2")
PTE_TOKENIZER_VECTORS("bert")
PTE_TOKENIZER_VECTORS("gpt2")
PTE_TOKENIZER_VECTORS("roberta")
PTE_TOKENIZER_VECTORS("llama3")
PTE_TOKENIZER_VECTORS("qwen2")
PTE_TOKENIZER_VECTORS("smollm_style")
PTE_TOKENIZER_VECTORS("deepseek_v3")
PTE_TOKENIZER_VECTORS("gpt4o_style")
PTE_TOKENIZER_VECTORS("llama2")
PTE_TOKENIZER_VECTORS("mistral")
PTE_TOKENIZER_VECTORS("gemma")
PTE_TOKENIZER_VECTORS("unigram")
PTE_TOKENIZER_VECTORS("bert_cased")
PTE_TOKENIZER_VECTORS("wordlevel")
PTE_TOKENIZER_VECTORS("char_bpe")
PTE_TOKENIZER_VECTORS("prefix_bpe")
PTE_TOKENIZER_VECTORS("tiktoken")
PTE_TOKENIZER_VECTORS("llama2c")
PTE_TOKENIZER_VECTORS("unigram_bytes")
PTE_TOKENIZER_VECTORS("ctc_char")
