// A Jinja2 subset, as Hugging Face chat templates use it: rendered the way transformers'
// apply_chat_template renders (an immutable sandbox with trim_blocks, lstrip_blocks and
// loop controls; tojson as json.dumps with ensure_ascii=False; raise_exception and
// strftime_now as globals).
//
// Supported: {{ }}, {% %}, {# #} with the - and + whitespace controls; if / elif / else,
// for (tuple targets, "if" filters, else, loop.*), set (names, namespace attributes,
// blocks), macro, break / continue, generation blocks (rendered as their content), raw;
// literals, arithmetic, comparisons, and/or/not, in, ~, conditional expressions,
// attribute and item access, slicing; the common filters, tests and str/dict methods.
// Anything else is a parse or render error naming the line.
#pragma once
#include <ctime>
#include <memory>
#include <string>

#include "chat/value.h"
#include "pte/status.h"

namespace pte::jinja {

struct Node;

struct RenderOptions {
  // The time strftime_now() formats, as UTC; 0 = now, in local time (as transformers).
  std::time_t now = 0;
  size_t max_output_bytes = 64u << 20;
  uint64_t max_steps = 10'000'000;  // evaluation steps before giving up (runaway loops)
};

class Template {
 public:
  // Errors: "line N: ..." (one line).
  static Status parse(const std::string& source, std::unique_ptr<Template>* out);
  ~Template();
  // `context` is a dict of the variables (messages, add_generation_prompt, bos_token, ...).
  // A raise_exception() in the template becomes the error "raise_exception: MESSAGE".
  Status render(const Value& context, std::string* out, const RenderOptions& options = {}) const;

 private:
  Template();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pte::jinja
