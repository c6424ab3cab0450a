#include "chat/chat_template.h"

#include "pte/tokenizer.h"
#include "util/json.h"

namespace pte {

namespace jinja {
Value from_json(const json::Value& v) {
  switch (v.type()) {
    case json::Type::Null: return Value::none();
    case json::Type::Bool: return Value::boolean(v.as_bool());
    case json::Type::Int: return Value::integer(v.as_int());
    case json::Type::Double: return Value::number(v.as_double());
    case json::Type::String: return Value::string(v.as_string());
    case json::Type::Array: {
      List l;
      for (const auto& x : v.items()) l.push_back(from_json(x));
      return Value::list_of(std::move(l));
    }
    case json::Type::Object: {
      Dict d;
      for (const auto& m : v.members()) d.emplace_back(m.first, from_json(m.second));
      return Value::dict_of(std::move(d));
    }
  }
  return Value::none();
}
}  // namespace jinja

Status ChatTemplate::parse(const std::string& source, std::unique_ptr<ChatTemplate>* out) {
  std::unique_ptr<ChatTemplate> t(new ChatTemplate());
  PTE_TRY(jinja::Template::parse(source, &t->tpl_).context("chat template"));
  *out = std::move(t);
  return Status::ok();
}

Status ChatTemplate::for_tokenizer(const Tokenizer& tok, std::unique_ptr<ChatTemplate>* out) {
  if (tok.chat_template().empty())
    return Status::error("the tokenizer has no chat template (tokenizer_config.json \"chat_template\" or chat_template.jinja)");
  std::unique_ptr<ChatTemplate> t;
  PTE_TRY(parse(tok.chat_template(), &t));
  for (const auto& kv : tok.special_tokens_map()) t->set(kv.first, jinja::Value::string(kv.second));
  *out = std::move(t);
  return Status::ok();
}

void ChatTemplate::set(const std::string& name, jinja::Value value) {
  for (auto& kv : vars_)
    if (kv.first == name) { kv.second = std::move(value); return; }
  vars_.emplace_back(name, std::move(value));
}

Status ChatTemplate::render_value(const jinja::Value& messages, bool add_generation_prompt, std::string* out) const {
  jinja::Dict ctx;
  ctx.emplace_back("messages", messages);
  ctx.emplace_back("tools", jinja::Value::none());
  ctx.emplace_back("documents", jinja::Value::none());
  ctx.emplace_back("add_generation_prompt", jinja::Value::boolean(add_generation_prompt));
  jinja::Value c = jinja::Value::dict_of(std::move(ctx));
  for (const auto& kv : vars_) c.set(kv.first, kv.second);
  return tpl_->render(c, out, options_).context("chat template");
}

Status ChatTemplate::render(const std::vector<ChatMessage>& messages, bool add_generation_prompt, std::string* out) const {
  jinja::List l;
  for (const auto& m : messages)
    l.push_back(jinja::Value::dict_of({{"role", jinja::Value::string(m.role)}, {"content", jinja::Value::string(m.content)}}));
  return render_value(jinja::Value::list_of(std::move(l)), add_generation_prompt, out);
}

Status ChatTemplate::render_json(const json::Value& messages, bool add_generation_prompt, std::string* out) const {
  return render_value(jinja::from_json(messages), add_generation_prompt, out);
}

}  // namespace pte
