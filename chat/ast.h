// The parsed form of a template (internal to chat/): expressions and statements.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/value.h"

namespace pte::jinja {

struct Expr;
using ExprP = std::unique_ptr<Expr>;

struct Expr {
  enum class Op {
    Literal,  // value
    Name,     // name
    Attr,     // args[0].name
    Item,     // args[0][args[1]]
    Slice,    // args[0][args[1]:args[2]:args[3]] (null children are omitted bounds)
    Call,     // args[0](args[1..], kwargs)
    Filter,   // args[0] | name(args[1..], kwargs)
    Test,     // args[0] is [not] name(args[1..])
    Not, Neg, Pos,  // args[0]
    Binary,   // args[0] name args[1]: + - * / // % ** ~ == != < > <= >= in "not in" and or
    Cond,     // args[0] if args[1] else args[2] (args[2] may be null)
    ListLit,  // [args...]   (tuples too)
    DictLit,  // {kwargs...} (keys are expressions: args hold key, value pairs)
  };
  Op op = Op::Literal;
  int line = 0;
  Value value;
  std::string name;
  bool negated = false;  // Test: "is not"
  std::vector<ExprP> args;
  std::vector<std::pair<std::string, ExprP>> kwargs;
};

struct Node;
using Body = std::vector<Node>;

struct Node {
  enum class Kind { Text, Output, If, For, Set, SetBlock, Macro, Break, Continue, Block };
  Kind kind = Kind::Text;
  int line = 0;
  std::string text;                   // Text; Set/SetBlock/Macro: the variable / macro name
  std::string attr;                   // Set: "ns.attr" assignment when non-empty
  std::vector<std::string> targets;   // For loop variables; Set with several names
  ExprP expr;                         // Output, Set value, For iterable
  ExprP filter;                       // For ... if filter
  std::vector<std::pair<ExprP, Body>> branches;  // If / elif (condition, body)
  Body body;                          // For / SetBlock / Macro / Block body; If: else body
  Body else_body;                     // For ... else
  std::vector<std::pair<std::string, ExprP>> params;  // Macro parameters (default may be null)
};

}  // namespace pte::jinja
