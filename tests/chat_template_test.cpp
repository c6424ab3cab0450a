// Chat templates (chat/): the real templates in fixtures/chat_templates/ render byte for
// byte as transformers' apply_chat_template rendered them (vectors.json, recorded by
// record_vectors.py), engine features against Jinja2 itself, and bad templates fail
// with one line.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "chat/chat_template.h"
#include "chat/jinja.h"
#include "pte/tokenizer.h"
#include "util/json.h"

namespace {

const std::string kDir = "fixtures/chat_templates/";

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

pte::json::Value vectors() {
  pte::json::Value doc;
  pte::Status s = pte::json::parse_file(kDir + "vectors.json", &doc);
  REQUIRE_MESSAGE(s, s.message());
  return doc;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

}  // namespace

TEST_CASE("chat templates: 20+ real templates render byte-equal to transformers' apply_chat_template") {
  pte::json::Value doc = vectors();
  int64_t fixed = doc.find("fixed_time")->as_int();
  const pte::json::Value* templates = doc.find("templates", pte::json::Type::Array);
  REQUIRE(templates);
  CHECK(templates->size() >= 15);
  int rendered = 0, raised = 0;
  std::set<std::string> files;
  for (const auto& t : templates->items()) {
    std::string file = t.find("file")->as_string();
    files.insert(file);
    CAPTURE(file);
    std::string source = slurp(kDir + file);
    REQUIRE(!source.empty());
    for (const auto& c : t.find("cases")->items()) {
      CAPTURE(c.find("name")->as_string());
      std::unique_ptr<pte::ChatTemplate> ct;
      pte::Status s = pte::ChatTemplate::parse(source, &ct);
      REQUIRE_MESSAGE(s, s.message());
      ct->set_time(static_cast<std::time_t>(fixed));
      for (const auto& kv : t.find("special_tokens")->members()) ct->set(kv.first, pte::jinja::from_json(kv.second));
      if (const auto* vars = c.find("variables"))
        for (const auto& kv : vars->members()) ct->set(kv.first, pte::jinja::from_json(kv.second));
      std::string out;
      s = ct->render_json(*c.find("messages"), c.find("add_generation_prompt")->as_bool(), &out);
      if (const auto* text = c.find("text", pte::json::Type::String)) {
        REQUIRE_MESSAGE(s, s.message());
        CHECK(out == text->as_string());
        ++rendered;
      } else {
        // the template rejected the conversation: so do we, with its message in one line
        REQUIRE(!s);
        CHECK(one_line(s.message()));
        if (c.find("error_type")->as_string() == "TemplateError")
          CHECK(s.message() == "chat template: raise_exception: " + c.find("error")->as_string());
        ++raised;
      }
    }
  }
  CHECK(rendered >= 200);
  CHECK(raised >= 20);
  for (const char* family : {"SmolLM2", "Qwen2.5", "Qwen3", "Llama-3.1", "Llama-3.2", "gemma-7b", "gemma-2", "gemma-3",
                             "Phi-3", "phi-4", "Mistral", "OLMo-2", "command-r7b", "granite", "DeepSeek"}) {
    bool found = false;
    for (const auto& f : files) found |= f.find(family) != std::string::npos;
    CHECK_MESSAGE(found, family << " has no template in vectors.json");
  }
}

TEST_CASE("chat templates: engine features render as Jinja2 with transformers' settings") {
  pte::json::Value doc = vectors();
  pte::jinja::Value ctx = pte::jinja::from_json(*doc.find("feature_context"));
  const pte::json::Value* features = doc.find("features", pte::json::Type::Array);
  REQUIRE(features);
  CHECK(features->size() >= 30);
  for (const auto& c : features->items()) {
    std::string src = c.find("template")->as_string();
    CAPTURE(src);
    std::unique_ptr<pte::jinja::Template> t;
    pte::Status s = pte::jinja::Template::parse(src, &t);
    std::string out;
    if (s) s = t->render(ctx, &out);
    if (const auto* text = c.find("text", pte::json::Type::String)) {
      REQUIRE_MESSAGE(s, s.message());
      CHECK(out == text->as_string());
    } else {
      CHECK(!s);
      CHECK(one_line(s.message()));
    }
  }
}

TEST_CASE("chat templates: broken or hostile templates fail with one line") {
  auto parse_error = [](const std::string& src) {
    std::unique_ptr<pte::ChatTemplate> t;
    pte::Status s = pte::ChatTemplate::parse(src, &t);
    CHECK(!s);
    CHECK(one_line(s.message()));
    return s.message();
  };
  CHECK(parse_error("{% if x %}no end") == "chat template: line 1: missing {% endif %}");
  CHECK(parse_error("a\n{{ x ") == "chat template: line 2: unclosed {{");
  CHECK(parse_error("{% for x in %}{% endfor %}").find("line 1: expected an expression") != std::string::npos);
  CHECK(parse_error("{% frobnicate %}").find("unknown or unsupported statement 'frobnicate'") != std::string::npos);
  CHECK(parse_error("{{ 'unterminated }}").find("unterminated string") != std::string::npos);
  CHECK(parse_error("{% endif %}").find("unexpected 'endif'") != std::string::npos);
  CHECK(parse_error("{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}").find("nested too deeply") != std::string::npos);
  std::string deep;
  for (int i = 0; i < 1000; ++i) deep += "{% if true %}";
  CHECK(parse_error(deep).find("nested too deeply") != std::string::npos);

  auto render_error = [](const std::string& src) {
    std::unique_ptr<pte::ChatTemplate> t;
    pte::Status s = pte::ChatTemplate::parse(src, &t);
    REQUIRE_MESSAGE(s, s.message());
    std::string out;
    s = t->render({{"user", "hi"}}, true, &out);
    CHECK(!s);
    CHECK(one_line(s.message()));
    return s.message();
  };
  CHECK(render_error("{{ raise_exception('Only user and assistant roles') }}") ==
        "chat template: raise_exception: Only user and assistant roles");
  // A runaway loop stops at the step budget. The default budget (10^7 steps, seconds of work)
  // is too slow to spend under the sanitizers and qemu, so the same guard runs with a smaller one.
  CHECK(pte::jinja::RenderOptions{}.max_steps <= 10'000'000u);
  {
    std::unique_ptr<pte::jinja::Template> t;
    REQUIRE(pte::jinja::Template::parse(
        "{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}", &t));
    pte::jinja::RenderOptions small;
    small.max_steps = 20'000;
    std::string out;
    pte::Status s = t->render(pte::jinja::Value::dict_of({}), &out, small);
    CHECK(!s);
    CHECK(one_line(s.message()));
    CHECK(s.message().find("too long") != std::string::npos);
  }
  CHECK(render_error("{% for i in range(10**9) %}{% endfor %}").find("range too large") != std::string::npos);
  CHECK(render_error("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}").find("nested too deeply") != std::string::npos);
  CHECK(render_error("{{ ('x' * 1000000) * 1000 }}").find("too large") != std::string::npos);
  CHECK(render_error("{{ messages[0].content.nope.deeper }}").find("'nope' is undefined") != std::string::npos);
  CHECK(render_error("{{ messages.append(1) }}").find("unsafe") != std::string::npos);
}

TEST_CASE("chat templates: a tokenizer's template gets its special tokens") {
  std::unique_ptr<pte::Tokenizer> tok;
  pte::Status s = pte::Tokenizer::load("fixtures/tokenizers/smollm2", &tok);
  REQUIRE_MESSAGE(s, s.message());
  std::unique_ptr<pte::ChatTemplate> t;
  s = pte::ChatTemplate::for_tokenizer(*tok, &t);
  REQUIRE_MESSAGE(s, s.message());
  std::string out;
  REQUIRE(t->render({{"user", "Hi"}}, true, &out));
  CHECK(out ==
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  bool has_bos = false;
  for (const auto& kv : tok->special_tokens_map()) has_bos |= kv.first == "bos_token" && kv.second == "<|im_start|>";
  CHECK(has_bos);
  // a template that prints bos_token sees the tokenizer's
  std::unique_ptr<pte::ChatTemplate> t2;
  REQUIRE(pte::ChatTemplate::parse("{{ bos_token }}|{{ eos_token }}", &t2));
  for (const auto& kv : tok->special_tokens_map()) t2->set(kv.first, pte::jinja::Value::string(kv.second));
  REQUIRE(t2->render({}, false, &out));
  CHECK(out == "<|im_start|>|<|im_end|>");
}
