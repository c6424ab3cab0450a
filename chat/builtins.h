// Operators, filters, tests, methods and globals of the Jinja subset (internal to chat/).
#pragma once
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "chat/ast.h"
#include "chat/value.h"

namespace pte::jinja {

struct RenderError {
  int line;
  std::string message;
};
struct RaiseError {  // raise_exception(message) in the template
  std::string message;
};

using KwArgs = std::vector<std::pair<std::string, Value>>;

// What the builtins need from the renderer.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual Value eval(const Expr& e) = 0;
  virtual Value call_macro(const Value& m, const std::vector<Value>& args, const KwArgs& kwargs, int line) = 0;
  virtual void step(int line) = 0;  // counts work against the budget
  virtual std::time_t now() const = 0;  // 0: the current time
};

Value get_attr(const Value& obj, const std::string& name, int line);
Value get_item(const Value& obj, const Value& key, int line);
Value slice(const Value& obj, const Value& start, const Value& stop, const Value& step, int line);
// Items of a for loop / list(): list elements, dict keys, string characters; Undefined
// iterates as empty.
std::vector<Value> iterate(const Value& v, int line);
Value binary_op(const std::string& op, const Value& a, const Value& b, int line);

Value apply_filter(Evaluator& ev, const std::string& name, const Value& v, const std::vector<Value>& args,
                   const KwArgs& kwargs, int line);
bool apply_test(Evaluator& ev, const std::string& name, const Value& v, const std::vector<Value>& args, int line);
Value call_method(Evaluator& ev, const Value& obj, const std::string& name, const std::vector<Value>& args,
                  const KwArgs& kwargs, int line);
// range, namespace, dict, raise_exception, strftime_now
Value call_global(Evaluator& ev, const std::string& name, const std::vector<Value>& args, const KwArgs& kwargs,
                  int line);

}  // namespace pte::jinja
