// A chat over a TextRunner: the conversation's messages, rendered with the model's chat
// template; each turn prefills only the tokens its text adds after what the cache
// already holds (the template's glue and the user's line), so the history is never
// re-read. When the template rewrites earlier turns (trims them, drops reasoning), the
// cache rewinds to the longest common token prefix and re-prefills from there.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "chat/chat_template.h"
#include "llm/runner.h"

namespace pte {

struct ChatTurnStats {
  GenerationStats gen;     // gen.prompt_tokens: tokens this turn prefilled
  int64_t reused = 0;      // tokens of the cache the turn kept
  int dropped_turns = 0;   // by --context-shift
};

class ChatSession {
 public:
  ChatSession(TextRunner& runner, const GenerationConfig& config, std::string system_prompt, bool context_shift);
  // Fails (one line) when the model has no usable chat template.
  Status init();

  // One user turn: streams the reply to on_text. On failure nothing changes.
  Status turn(const std::string& user, const std::function<void(const std::string&)>& on_text, ChatTurnStats* stats);
  // Back to before the last turn.
  Status undo();
  // Forget the conversation (the system prompt stays).
  void reset();
  Status save(const std::string& path);
  Status load(const std::string& path);

  const std::vector<ChatMessage>& messages() const { return msgs_; }
  size_t turns() const { return marks_.size(); }
  TextRunner& runner() { return r_; }

 private:
  struct Mark {
    std::vector<int32_t> tokens;  // the cache before the turn
    std::string fed;
    size_t msgs;
  };
  // Puts the cache at `tokens`: rewinds to the common prefix, prefills the rest.
  Status restore_tokens(const std::vector<int32_t>& tokens);
  std::string extra_state() const;

  TextRunner& r_;
  GenerationConfig cfg_;
  std::string system_;
  bool context_shift_;
  std::unique_ptr<ChatTemplate> tpl_;
  std::vector<ChatMessage> msgs_;
  std::string fed_;  // the rendered text whose tokens the cache holds
  std::vector<Mark> marks_;
};

}  // namespace pte
