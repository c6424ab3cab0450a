// Parsing a template into statements (internal to chat/).
#pragma once
#include <string>

#include "chat/ast.h"

namespace pte::jinja {

struct ParseError {
  int line;
  std::string message;
};

// Throws ParseError (caught by Template::parse; never leaves the library).
Body parse_template(const std::string& source);

}  // namespace pte::jinja
