// Tokenizer unit tests: the regex engine, Unicode helpers, loading (formats,
// configs, errors), the streaming decoder and speed. Expected values are worked out
// by hand (or from the reference library where noted).
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "pte/tokenizer.h"
#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"
#include "util/json.h"

using pte::tok::Regex;

namespace {

std::u32string u32(std::string_view s) {
  std::u32string out;
  REQUIRE(pte::tok::utf8_decode(s, &out, nullptr));
  return out;
}

// The matched substrings of find_all, as UTF-8.
std::vector<std::string> matches(const char* pattern, std::string_view text) {
  Regex re;
  std::string err;
  REQUIRE_MESSAGE(Regex::compile(pattern, &re, &err), err);
  std::u32string t = u32(text);
  std::vector<std::pair<size_t, size_t>> m;
  re.find_all(t, &m);
  std::vector<std::string> out;
  for (auto [a, b] : m) out.push_back(pte::tok::to_utf8(std::u32string_view(t).substr(a, b - a)));
  return out;
}

using Strs = std::vector<std::string>;

const char* kGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
const char* kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::string temp_dir() {
  char tmpl[] = "/tmp/pte-tok-XXXXXX";
  char* d = mkdtemp(tmpl);
  REQUIRE(d != nullptr);
  return d;
}

void write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

// A minimal valid tokenizer.json with one field replaced.
std::string tiny_json(const std::string& field, const std::string& value) {
  pte::json::Value doc;
  std::string base = R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,
    "pre_tokenizer":null,"post_processor":null,"decoder":null,
    "model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]}})";
  REQUIRE(pte::json::parse(base, &doc));
  if (!field.empty()) {
    pte::json::Value v;
    REQUIRE(pte::json::parse(value, &v));
    doc.set(field, v);
  }
  return pte::json::write(doc);
}

std::string load_error(const std::string& text) {
  std::string dir = temp_dir();
  std::string path = dir + "/tokenizer.json";
  write_file(path, text);
  std::unique_ptr<pte::Tokenizer> tok;
  pte::Status s = pte::Tokenizer::load(path, &tok);
  std::remove(path.c_str());
  rmdir(dir.c_str());
  return s ? std::string() : s.message().substr(path.size() + 2);  // drop "<path>: "
}

std::unique_ptr<pte::Tokenizer> load(const std::string& path) {
  std::unique_ptr<pte::Tokenizer> tok;
  pte::Status s = pte::Tokenizer::load(path, &tok);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  return tok;
}

bool have_fixtures() {
  std::FILE* f = std::fopen("fixtures/tokenizers/gpt2/tokenizer.json", "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

}  // namespace

TEST_CASE("tokenizer regex: GPT-2 and Llama 3 split patterns") {
  CHECK(matches(kGpt2, "Hello world's  end  ") == Strs{"Hello", " world", "'s", " ", " end", "  "});
  CHECK(matches(kGpt2, "I'M 12345 ok?!") == Strs{"I", "'", "M", " 12345", " ok", "?!"});
  CHECK(matches(kLlama3, "I'M 12345 ok?!\n\nx") == Strs{"I", "'M", " ", "123", "45", " ok", "?!\n\n", "x"});
  CHECK(matches(kLlama3, "a  \n b") == Strs{"a", "  \n", " b"});
  CHECK(matches(kGpt2, "") == Strs{});
  // Case-insensitive contractions fold Unicode's long s and Kelvin sign too.
  CHECK(matches("(?i:'s|'k)", "'S '\u017F 'K '\u212A") == Strs{"'S", "'\u017F", "'K", "'\u212A"});
}

TEST_CASE("tokenizer regex: constructs") {
  CHECK(matches("a*", "baaa") == Strs{"", "aaa"});            // empty match, then the run
  CHECK(matches("x{2,}|y{,2}", "xxxyyy") == Strs{"xxx", "yy", "y"});  // no empty match right after "y"
  CHECK(matches("(?:ab|a)(?:bc)?c*?", "abcc") == Strs{"ab"});
  CHECK(matches("a+?b", "aaab") == Strs{"aaab"});
  CHECK(matches("(?>a+)a|b", "aaab") == Strs{"b"});            // atomic: never gives an 'a' back
  CHECK(matches("a++a|c", "aac") == Strs{"c"});                // possessive
  CHECK(matches("(?<=a)b|(?<!x)y", "ab xy zy") == Strs{"b", "y"});
  CHECK(matches(R"(\s+$)", "a  \nb  ") == Strs{"  ", "  "});   // $ is end of line (Ruby syntax)
  CHECK(matches(R"([^\p{L}&&[^0-9]]+)", "ab12-+c") == Strs{"12-+"});  // not (letter and not digit)
  CHECK(matches(R"(\x{1F600}|\u00e9|[\x41-\x43]+)", "😀éABCD") == Strs{"😀", "é", "ABC"});
  CHECK(matches(R"(\p{Lu}\p{Ll}+)", "ΣίσυφοςAbc") == Strs{"Σίσυφος", "Abc"});
  // Oniguruma: a standalone \w counts '²' as a word character, \w inside a class does not.
  CHECK(matches(R"(\w+)", "a²b") == Strs{"a²b"});
  CHECK(matches(R"([\w]+)", "a²b") == Strs{"a", "b"});
  Regex re;
  std::string err;
  CHECK_FALSE(Regex::compile(R"(\p{Han})", &re, &err));
  CHECK(err == "regex property \\p{Han} is not supported");
  CHECK_FALSE(Regex::compile(R"((a)\1)", &re, &err));
  CHECK(err == "backreferences are not supported");
  CHECK_FALSE(Regex::compile("[a-", &re, &err));
  CHECK_FALSE(Regex::compile("(a", &re, &err));
  CHECK(err == "missing ')'");
}

TEST_CASE("tokenizer unicode: categories, case, normalization, UTF-8") {
  using namespace pte::tok;
  CHECK(general_category(U'A') == kLu);
  CHECK(general_category(U'ß') == kLl);
  CHECK(general_category(U'٣') == kNd);
  CHECK(general_category(0x1F600) == kSo);
  CHECK(general_category(0xE000) == kCo);
  CHECK(is_white_space(0x3000));
  CHECK_FALSE(is_white_space(0x200B));
  std::u32string low;
  append_lowercase(0x130, &low);  // İ -> i + combining dot above
  CHECK(low == std::u32string{U'i', 0x307});
  auto norm = [](NormForm f, std::string_view s) {
    std::u32string out;
    normalize(f, u32(s), nullptr, &out, nullptr);
    return to_utf8(out);
  };
  CHECK(norm(NormForm::NFC, "e\xCC\x81") == "\xC3\xA9");                 // e + acute -> é
  CHECK(norm(NormForm::NFD, "\xC3\xA9") == "e\xCC\x81");
  CHECK(norm(NormForm::NFD, "각") == "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8");  // Hangul LVT
  CHECK(norm(NormForm::NFC, "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8") == "각");
  CHECK(norm(NormForm::NFKC, "ﬁ½") == "fi1\xE2\x81\x84" "2");            // ligature, fraction slash
  CHECK(norm(NormForm::NFD, "a\xCC\x81\xCC\x96") == "a\xCC\x96\xCC\x81");  // ccc 220 before 230
  CHECK(norm(NormForm::NFC, "\xE2\x84\xAB") == "\xC3\x85");               // Angstrom sign -> Å
  CHECK(utf8_lossy("a\xE2\x82") == "a\xEF\xBF\xBD");                     // truncated: one U+FFFD
  CHECK(utf8_lossy("\xF0\x80z") == "\xEF\xBF\xBD\xEF\xBF\xBDz");         // bad second byte: two
  CHECK(utf8_lossy("\xFF\xC3\xA9") == "\xEF\xBF\xBD\xC3\xA9");
  CHECK_FALSE(utf8_valid("\xED\xA0\x80"));                               // surrogate
}

TEST_CASE("tokenizer load: clear errors for bad or unsupported files") {
  CHECK(load_error(tiny_json("", "")) == "");
  CHECK(load_error(tiny_json("pre_tokenizer", R"({"type":"Foo"})")) == "pre_tokenizer type \"Foo\" is not supported");
  CHECK(load_error(tiny_json("normalizer", R"({"type":"Precompiled","precompiled_charsmap":"AAAA"})")) ==
        "normalizer type \"Precompiled\" (a SentencePiece charsmap) is not supported");
  CHECK(load_error(tiny_json("decoder", R"({"type":"Sequence","decoders":[{"type":"Bar"}]})")) ==
        "decoder type \"Bar\" is not supported");
  CHECK(load_error(tiny_json("post_processor", R"({"type":"Baz"})")) == "post_processor type \"Baz\" is not supported");
  CHECK(load_error(tiny_json("model", R"({"type":"Qux","vocab":{}})")) == "model type \"Qux\" is not supported");
  CHECK(load_error(tiny_json("model", R"({"type":"BPE","vocab":{"a":0},"merges":["a b"]})")) ==
        "model BPE: merge token \"b\" is not in the vocabulary");
  CHECK(load_error(tiny_json("pre_tokenizer", R"({"type":"Split","pattern":{"Regex":"\\p{Han}+"},"behavior":"Isolated","invert":false})")) ==
        "pre_tokenizer Split: regex \"\\\\p{Han}+\": regex property \\p{Han} is not supported");
  CHECK(load_error("{\"model\": ") .find("JSON: byte") == 0);
  CHECK(load_error("\x0A\x05hello") == "a SentencePiece model is not supported; use its tokenizer.json "
                                       "(or llama2.c's tokenizer.bin export)");
  std::unique_ptr<pte::Tokenizer> tok;
  pte::Status s = pte::Tokenizer::load("/nonexistent/tokenizer.json", &tok);
  CHECK(s.message().find("/nonexistent/tokenizer.json: cannot open") == 0);
}

TEST_CASE("tokenizer: a hand-built BPE tokenizer.json") {
  std::string dir = temp_dir();
  std::string path = dir + "/tokenizer.json";
  // Byte-level pieces are unnecessary here: no pre-tokenizer, plain BPE with byte fallback.
  write_file(path, R"({"version":"1.0","added_tokens":[{"id":5,"content":"<s>","special":true,"normalized":false,
      "single_word":false,"lstrip":false,"rstrip":false}],
    "normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"WhitespaceSplit"},
    "post_processor":{"type":"TemplateProcessing","single":"<s> $A","special_tokens":{"<s>":{"id":"<s>","ids":[5],"tokens":["<s>"]}}},
    "decoder":{"type":"Sequence","decoders":[{"type":"ByteFallback"},{"type":"Fuse"}]},
    "model":{"type":"BPE","byte_fallback":true,"vocab":{"a":0,"b":1,"ab":2,"<0xC3>":3,"<0xA9>":4,"<s>":5,"abb":6},
             "merges":[["a","b"],["ab","b"]]}})");
  auto tok = load(path);
  std::vector<int32_t> ids;
  REQUIRE(tok->encode("AB abb É", true, &ids));
  // "ab" -> [ab]; "abb" -> a,b,b -> ab,b -> abb; "é" (after lowercase) has no token: bytes C3 A9.
  CHECK(ids == std::vector<int32_t>{5, 2, 6, 3, 4});
  REQUIRE(tok->encode("AB abb É", false, &ids));
  CHECK(ids == std::vector<int32_t>{2, 6, 3, 4});
  CHECK(tok->decode({5, 2, 6, 3, 4}, false) == "<s>ababbé");
  CHECK(tok->decode({5, 2, 6, 3, 4}, true) == "ababbé");
  CHECK(tok->decode({3, 2}, false) == "\xEF\xBF\xBD" "ab");  // a lone byte is invalid UTF-8
  CHECK(tok->vocab_size() == 7);
  CHECK(tok->id_to_token(5) == "<s>");
  CHECK(tok->token_to_id("abb") == 6);
  CHECK(tok->token_to_id("zzz") == -1);
  CHECK(tok->is_special(5));
  CHECK_FALSE(tok->is_special(2));
  CHECK(tok->bos_id() == 5);  // guessed from the special "<s>"
  std::vector<int32_t> bad;
  pte::Status s = tok->encode("\xC3", true, &bad);
  CHECK(s.message() == "text is not valid UTF-8");
  // Streaming: the two byte tokens of 'é' come out together, never half a character.
  pte::TokenStream stream(*tok);
  std::string chunk, all;
  for (int32_t id : std::vector<int32_t>{2, 3, 4, 6}) {
    REQUIRE(stream.step(id, &chunk));
    CHECK(pte::json::valid_utf8(chunk));
    all += chunk + "|";
  }
  CHECK(all == "ab||é|abb|");
  stream.reset();
  REQUIRE(stream.step(3, &chunk));
  CHECK(chunk.empty());
  CHECK(stream.flush() == "\xEF\xBF\xBD");  // an unfinished character is flushed as U+FFFD
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("tokenizer: configs, formats and finding the tokenizer") {
  if (!have_fixtures()) {
    MESSAGE("skipping: fixtures/tokenizers is absent");
    return;
  }
  auto smol = load("fixtures/tokenizers/smollm2");
  CHECK(smol->kind() == "tokenizer.json (BPE)");
  CHECK(smol->vocab_size() == 49152);
  CHECK(smol->bos_id() == 1);
  REQUIRE_FALSE(smol->eos_ids().empty());
  CHECK(smol->eos_ids()[0] == 2);
  CHECK(smol->id_to_token(2) == "<|im_end|>");
  CHECK(smol->chat_template().find("<|im_start|>") != std::string::npos);

  auto qwen = load("fixtures/tokenizers/qwen2/tokenizer.json");
  CHECK(qwen->eos_ids()[0] == qwen->token_to_id("<|im_end|>"));
  CHECK(qwen->chat_template().find("add_generation_prompt") != std::string::npos);

  auto bin = load("fixtures/tokenizers/llama2c/tokenizer.bin");
  CHECK(bin->kind() == "llama2.c tokenizer.bin");
  CHECK(bin->bos_id() == 1);
  CHECK(bin->eos_ids() == std::vector<int32_t>{2});
  std::vector<int32_t> ids;
  REQUIRE(bin->encode("", true, &ids));
  CHECK(ids == std::vector<int32_t>{1});  // no dummy prefix for empty text

  auto tt = load("fixtures/tokenizers/tiktoken/tokenizer.model");
  CHECK(tt->kind() == "tiktoken");
  int32_t base = tt->token_to_id("<|begin_of_text|>");
  CHECK(tt->bos_id() == base);
  CHECK(tt->vocab_size() == base + 256);
  CHECK(tt->token_to_id("<|eot_id|>") == base + 9);
  REQUIRE(tt->encode("<|eot_id|>", false, &ids));
  CHECK(ids == std::vector<int32_t>{base + 9});

  // Found next to a program, or given explicitly.
  std::unique_ptr<pte::Tokenizer> t;
  REQUIRE(pte::Tokenizer::load_for_program("fixtures/tokenizers/bert/model.pte", "", &t));
  CHECK(t->kind() == "tokenizer.json (WordPiece)");
  REQUIRE(pte::Tokenizer::load_for_program("fixtures/tokenizers/bert/model.pte", "fixtures/tokenizers/llama2c/tokenizer.bin", &t));
  CHECK(t->kind() == "llama2.c tokenizer.bin");
  pte::Status s = pte::Tokenizer::load_for_program("fixtures/model.pte", "", &t);
  CHECK(s.message().find("give one with --tokenizer") != std::string::npos);

  // BERT pads to 128 and truncates, as its tokenizer.json says; that can be switched off.
  auto bert = load("fixtures/tokenizers/bert");
  REQUIRE(bert->encode("hello world", true, &ids));
  CHECK(ids.size() == 128);
  CHECK(std::vector<int32_t>(ids.begin(), ids.begin() + 4) == std::vector<int32_t>{101, 7592, 2088, 102});
  pte::TokenizerOptions opt;
  opt.apply_truncation_and_padding = false;
  std::unique_ptr<pte::Tokenizer> bert2;
  REQUIRE(pte::Tokenizer::load("fixtures/tokenizers/bert", opt, &bert2));
  REQUIRE(bert2->encode("hello world", true, &ids));
  CHECK(ids == std::vector<int32_t>{101, 7592, 2088, 102});
}

TEST_CASE("tokenizer: speed and thread safety") {
  if (!have_fixtures()) {
    MESSAGE("skipping: fixtures/tokenizers is absent");
    return;
  }
  std::string text;
  const char* parts[] = {"The quick brown fox jumps over the lazy dog. ", "Привет, мир! ", "你好，世界！",
                         "def f(x):\n    return x ** 2\n", "😀👍🏽 ", "1234567890 ", "      \n\n"};
  while (text.size() < 200000)
    for (const char* p : parts) text += p;
  for (const char* name : {"smollm2", "llama3", "gemma", "unigram", "bert", "tiktoken/tokenizer.model",
                           "llama2c/tokenizer.bin"}) {
    auto tok = load(std::string("fixtures/tokenizers/") + name);
    std::vector<int32_t> ids;
    auto t0 = std::chrono::steady_clock::now();
    REQUIRE(tok->encode(text, false, &ids));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    // Time is reported, never asserted (bench/ measures speed); the result must be real.
    MESSAGE(std::string(name) << ": " << text.size() << " bytes -> " << ids.size() << " ids in " << ms << " ms");
    CHECK(!ids.empty());
  }
  // Pathological inputs stay linear-ish.
  auto gpt2 = load("fixtures/tokenizers/gpt2/tokenizer.json");
  std::vector<int32_t> ids;
  auto t0 = std::chrono::steady_clock::now();
  REQUIRE(gpt2->encode(std::string(100000, ' ') + "x", false, &ids));
  REQUIRE(gpt2->encode(std::string(100000, 'a'), false, &ids));
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("pathological runs: " << ms << " ms");
  CHECK(!ids.empty());

  auto smol = load("fixtures/tokenizers/smollm2");
  std::vector<int32_t> want;
  REQUIRE(smol->encode(text.substr(0, 20000), true, &want));
  std::vector<int32_t> got[2];
  std::thread a([&] { (void)smol->encode(text.substr(0, 20000), true, &got[0]); });
  std::thread b([&] { (void)smol->encode(text.substr(0, 20000), true, &got[1]); });
  a.join();
  b.join();
  CHECK(got[0] == want);
  CHECK(got[1] == want);
}

TEST_CASE("tokenizer regex: reference vectors (Oniguruma)") {
  pte::json::Value doc;
  pte::Status st = pte::json::parse_file("fixtures/tokenizers/regex_vectors.json", &doc);
  if (!st) {
    MESSAGE("skipping: " << st.message());
    return;
  }
  int cases = 0, failures = 0;
  for (const auto& p : doc.find("patterns")->items()) {
    const std::string& name = p.find("name")->as_string();
    Regex re;
    std::string err;
    REQUIRE_MESSAGE(Regex::compile(p.find("pattern")->as_string(), &re, &err), name << ": " << err);
    for (const auto& c : p.find("cases")->items()) {
      ++cases;
      std::u32string t = u32(c.find("text")->as_string());
      std::vector<std::pair<size_t, size_t>> m;
      re.find_all(t, &m);
      std::vector<std::pair<size_t, size_t>> nonempty, pieces;
      size_t prev = 0;
      for (auto [a, b] : m) {
        if (a != b) nonempty.emplace_back(a, b);
        if (prev != a) pieces.emplace_back(prev, a);
        if (a != b) pieces.emplace_back(a, b);
        prev = b;
      }
      if (prev != t.size()) pieces.emplace_back(prev, t.size());
      auto spans = [](const pte::json::Value* v) {
        std::vector<std::pair<size_t, size_t>> out;
        for (const auto& x : v->items())
          out.emplace_back(static_cast<size_t>(x[0].as_int()), static_cast<size_t>(x[1].as_int()));
        return out;
      };
      if (nonempty != spans(c.find("matches")) || pieces != spans(c.find("pieces"))) {
        if (++failures <= 5) FAIL_CHECK(name << ": " << pte::json::quote(c.find("text")->as_string()));
      }
    }
  }
  MESSAGE(cases << " regex vectors");
  CHECK(cases > 1000);
  CHECK(failures == 0);
}
