#include "llm/chat.h"

#include "llm/session.h"
#include "util/json.h"

namespace pte {

ChatSession::ChatSession(TextRunner& runner, const GenerationConfig& config, std::string system_prompt, bool context_shift)
    : r_(runner), cfg_(config), system_(std::move(system_prompt)), context_shift_(context_shift) {
  cfg_.chat = false;  // the session renders the template itself
}

Status ChatSession::init() {
  PTE_TRY(ChatTemplate::for_tokenizer(r_.tokenizer(), &tpl_));
  reset();
  // the template must accept a plain exchange
  std::string probe;
  std::vector<ChatMessage> m = msgs_;
  m.push_back({"user", "hi"});
  return tpl_->render(m, true, &probe);
}

void ChatSession::reset() {
  r_.reset();
  msgs_.clear();
  if (!system_.empty()) msgs_.push_back({"system", system_});
  fed_.clear();
  marks_.clear();
}

Status ChatSession::restore_tokens(const std::vector<int32_t>& tokens) {
  const std::vector<int32_t>& have = r_.tokens();
  size_t common = 0;
  while (common < have.size() && common < tokens.size() && have[common] == tokens[common]) ++common;
  PTE_TRY(r_.rewind(static_cast<int64_t>(common)));
  if (common < tokens.size()) {
    const float* logits = nullptr;
    PTE_TRY(r_.prefill(std::vector<int32_t>(tokens.begin() + static_cast<long>(common), tokens.end()), &logits));
  }
  return Status::ok();
}

Status ChatSession::turn(const std::string& user, const std::function<void(const std::string&)>& on_text, ChatTurnStats* stats) {
  ChatTurnStats ts;
  std::vector<ChatMessage> next = msgs_;
  next.push_back({"user", user});
  std::string full;
  PTE_TRY(tpl_->render(next, /*add_generation_prompt=*/true, &full));
  const int64_t cap = r_.metadata().max_context_len;

  Mark mark{r_.tokens(), fed_, msgs_.size()};
  std::vector<int32_t> ids;
  bool incremental = !fed_.empty() && full.compare(0, fed_.size(), fed_) == 0;
  std::string new_fed = full;
  if (incremental) {
    PTE_TRY(r_.tokenizer().encode(std::string_view(full).substr(fed_.size()), false, &ids));
    if (r_.position() + static_cast<int64_t>(ids.size()) >= cap) incremental = false;  // shifting below
  }
  if (!incremental) {
    // the whole conversation's tokens; the cache keeps their common prefix
    std::vector<int32_t> all;
    PTE_TRY(r_.tokenizer().encode(full, false, &all));
    while (static_cast<int64_t>(all.size()) >= cap) {
      size_t first = (!next.empty() && next[0].role == "system") ? 1 : 0;
      if (next.size() <= first + 1)  // nothing left to drop but the turn itself
        return Status::error("the turn (" + std::to_string(all.size()) + " tokens with the template) does not fit the context of " +
                             std::to_string(cap) + " tokens");
      if (!context_shift_)
        return Status::error("the context is full (" + std::to_string(r_.position()) + " of " + std::to_string(cap) +
                             " tokens used, this turn needs " + std::to_string(all.size()) +
                             " in all): /reset or /undo, or run with --context-shift");
      // drop the oldest exchange (a user message and the replies up to the next one)
      size_t end = first + 1;
      while (end < next.size() - 1 && next[end].role != "user") ++end;
      next.erase(next.begin() + static_cast<long>(first), next.begin() + static_cast<long>(end));
      ++ts.dropped_turns;
      PTE_TRY(tpl_->render(next, true, &full));
      PTE_TRY(r_.tokenizer().encode(full, false, &all));
    }
    const std::vector<int32_t>& have = r_.tokens();
    size_t common = 0;
    while (common < have.size() && common < all.size() && have[common] == all[common]) ++common;
    if (common == all.size()) --common;  // at least one token to prefill (its logits start the reply)
    PTE_TRY(r_.rewind(static_cast<int64_t>(common)));
    ids.assign(all.begin() + static_cast<long>(common), all.end());
    new_fed = full;
  } else {
    new_fed = full;
  }
  ts.reused = r_.position();
  Status s = r_.generate_ids(ids, cfg_, on_text, &ts.gen);
  if (!s) {
    (void)restore_tokens(mark.tokens);
    return s;
  }
  // The cache holds the prompt and every generated token but the last sampled one.
  std::vector<int32_t> fed_gen(ts.gen.tokens.begin(), ts.gen.tokens.end());
  if (!fed_gen.empty()) fed_gen.pop_back();
  fed_ = new_fed + r_.tokenizer().decode(fed_gen);
  if (ts.dropped_turns) {
    marks_.clear();  // earlier turns are gone
    msgs_.assign(next.begin(), next.end() - 1);
  }
  msgs_.push_back({"user", user});
  msgs_.push_back({"assistant", ts.gen.text});
  marks_.push_back(std::move(mark));
  if (ts.dropped_turns) marks_.back().msgs = msgs_.size() - 2;
  if (stats) *stats = ts;
  return Status::ok();
}

Status ChatSession::undo() {
  if (marks_.empty()) return Status::error("/undo: no turn to undo");
  Mark m = marks_.back();
  PTE_TRY(restore_tokens(m.tokens));
  fed_ = m.fed;
  msgs_.resize(std::min(m.msgs, msgs_.size()));
  marks_.pop_back();
  return Status::ok();
}

std::string ChatSession::extra_state() const {
  json::Value v = json::Value::object();
  json::Value msgs = json::Value::array();
  for (const auto& m : msgs_) {
    json::Value o = json::Value::object();
    o.members_mut().emplace_back("role", json::Value(m.role));
    o.members_mut().emplace_back("content", json::Value(m.content));
    msgs.items_mut().push_back(std::move(o));
  }
  v.members_mut().emplace_back("kind", json::Value("pte-run chat"));
  v.members_mut().emplace_back("messages", std::move(msgs));
  v.members_mut().emplace_back("fed", json::Value(fed_));
  return json::write(v);
}

Status ChatSession::save(const std::string& path) { return save_session(r_, path, extra_state()); }

Status ChatSession::load(const std::string& path) {
  // read and check everything before touching the conversation
  SessionData s;
  PTE_TRY(read_session(path, &s));
  json::Value v;
  if (!json::parse(s.extra, &v) || !v.find("messages", json::Type::Array) || !v.find("fed", json::Type::String))
    return Status::error(path + ": not a chat session (saved by pte-run MODEL \"prompt\" --save-session?)");
  std::vector<ChatMessage> msgs;
  for (const auto& m : v.find("messages")->items()) {
    const json::Value* role = m.find("role", json::Type::String);
    const json::Value* content = m.find("content", json::Type::String);
    if (!role || !content) return Status::error(path + ": corrupt chat session (a message without role or content)");
    msgs.push_back({role->as_string(), content->as_string()});
  }
  PTE_TRY(load_session(r_, path));
  msgs_ = std::move(msgs);
  fed_ = v.find("fed")->as_string();
  marks_.clear();
  return Status::ok();
}

}  // namespace pte
