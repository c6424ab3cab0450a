// Chat templates: a model's Jinja template (tokenizer_config.json "chat_template" or
// chat_template.jinja) rendered as transformers' apply_chat_template renders it.
//
//   std::unique_ptr<pte::ChatTemplate> t;
//   pte::Status s = pte::ChatTemplate::for_tokenizer(tokenizer, &t);
//   std::string text;
//   s = t->render({{"system", "Be brief."}, {"user", "Hi"}}, /*add_generation_prompt=*/true, &text);
#pragma once
#include <ctime>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/jinja.h"
#include "pte/status.h"

namespace pte {

class Tokenizer;
namespace json {
class Value;
}

struct ChatMessage {
  std::string role;     // "system", "user", "assistant", ...
  std::string content;
};

class ChatTemplate {
 public:
  // Errors: "chat template: line N: ...".
  static Status parse(const std::string& source, std::unique_ptr<ChatTemplate>* out);
  // The tokenizer's template, with its named special tokens (bos_token, eos_token,
  // unk_token, sep_token, pad_token, cls_token, mask_token: transformers 5's
  // special_tokens_map) as variables. Fails with one line when the tokenizer has no template.
  static Status for_tokenizer(const Tokenizer& tok, std::unique_ptr<ChatTemplate>* out);

  // A template variable (bos_token, enable_thinking, ...); strings, or any JSON value.
  void set(const std::string& name, jinja::Value value);
  // strftime_now() formats this time (as UTC) instead of the local time now (tests).
  void set_time(std::time_t t) { options_.now = t; }

  // messages, tools=None, documents=None, add_generation_prompt, and the variables.
  // A raise_exception() of the template: "chat template: raise_exception: ...".
  Status render(const std::vector<ChatMessage>& messages, bool add_generation_prompt, std::string* out) const;
  // messages as JSON (content may be a list of parts, tool_calls, ...).
  Status render_json(const json::Value& messages, bool add_generation_prompt, std::string* out) const;

 private:
  Status render_value(const jinja::Value& messages, bool add_generation_prompt, std::string* out) const;
  std::unique_ptr<jinja::Template> tpl_;
  jinja::Dict vars_;
  jinja::RenderOptions options_;
};

namespace jinja {
Value from_json(const json::Value& v);
}

}  // namespace pte
