// Values of the Jinja subset chat templates use, with Python's semantics: str() and
// repr() of lists and dicts, json.dumps (as transformers' tojson), truthiness,
// equality and ordering, and Jinja's Undefined.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pte::jinja {

struct Value;
using List = std::vector<Value>;
using Dict = std::vector<std::pair<std::string, Value>>;  // insertion order, as Python's dict

struct Macro;  // a {% macro %} (defined in the evaluator)

struct Value {
  enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Namespace, Macro };
  Kind kind = Kind::Undefined;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;        // String; for Undefined, the missing name (for messages)
  std::shared_ptr<List> list;
  std::shared_ptr<Dict> dict;  // Dict and Namespace
  std::shared_ptr<const Macro> macro;
  bool tuple = false;   // a List that Python would hold as a tuple: printed (a, b)

  Value() = default;
  static Value undefined(std::string name = "") { Value v; v.s = std::move(name); return v; }
  static Value none() { Value v; v.kind = Kind::None; return v; }
  static Value boolean(bool x) { Value v; v.kind = Kind::Bool; v.b = x; return v; }
  static Value integer(int64_t x) { Value v; v.kind = Kind::Int; v.i = x; return v; }
  static Value number(double x) { Value v; v.kind = Kind::Float; v.f = x; return v; }
  static Value string(std::string x) { Value v; v.kind = Kind::String; v.s = std::move(x); return v; }
  static Value list_of(List x) { Value v; v.kind = Kind::List; v.list = std::make_shared<List>(std::move(x)); return v; }
  static Value tuple_of(List x) { Value v = list_of(std::move(x)); v.tuple = true; return v; }
  static Value dict_of(Dict x) { Value v; v.kind = Kind::Dict; v.dict = std::make_shared<Dict>(std::move(x)); return v; }
  static Value namespace_of(Dict x) { Value v = dict_of(std::move(x)); v.kind = Kind::Namespace; return v; }

  bool is_undefined() const { return kind == Kind::Undefined; }
  bool is_none() const { return kind == Kind::None; }
  bool is_string() const { return kind == Kind::String; }
  bool is_list() const { return kind == Kind::List; }
  bool is_dict() const { return kind == Kind::Dict; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool truthy() const;
  double as_double() const { return kind == Kind::Float ? f : kind == Kind::Bool ? (b ? 1 : 0) : static_cast<double>(i); }
  int64_t as_int() const { return kind == Kind::Bool ? (b ? 1 : 0) : kind == Kind::Float ? static_cast<int64_t>(f) : i; }

  // dict lookup (Dict, Namespace); nullptr when absent
  const Value* find(const std::string& key) const;
  void set(const std::string& key, Value v);  // Dict / Namespace: replace or append
};

// Python's str(): what {{ x }} prints ("" for Undefined).
std::string to_str(const Value& v);
// Python's repr() (strings quoted as Python quotes them).
std::string to_repr(const Value& v);
// json.dumps(v, ensure_ascii=False, indent=indent, sort_keys=sort_keys) with the default
// separators (", " and ": ", or "," and ": " when indented). False when `v` holds
// something JSON cannot encode (Undefined, a namespace, a macro): `err` names it.
bool to_json(const Value& v, int indent, bool sort_keys, std::string* out, std::string* err);
// Python's float repr (shortest round-trip: 0.1, 1.0, 1e+20, inf, nan).
std::string float_repr(double x);

bool equal(const Value& a, const Value& b);
// Python ordering (numbers, strings, lists); false with `ok` cleared when unordered.
bool less(const Value& a, const Value& b, bool* ok);
// "str", "int", "list", "dict", ... (Python's type names, for messages)
const char* type_name(const Value& v);

// UTF-8 helpers: code points of a string and back (invalid bytes become U+FFFD).
std::vector<uint32_t> code_points(const std::string& s);
std::string utf8(const std::vector<uint32_t>& cps, size_t begin, size_t end);
void append_utf8(std::string* out, uint32_t cp);
bool py_isspace(uint32_t cp);
// str.lower() / str.upper() / str.title() / str.capitalize() over Unicode (simple case
// mappings, lowercase from the tokenizer's Unicode tables).
std::string py_lower(const std::string& s);
std::string py_upper(const std::string& s);
std::string py_title(const std::string& s);
std::string py_capitalize(const std::string& s);

}  // namespace pte::jinja
