// pte-run: a small strict JSON library (RFC 8259). Parses text into a DOM whose
// objects keep their key order, and writes a DOM back with correct escaping.
//
//   pte::json::Value doc;
//   pte::Status s = pte::json::parse(text, &doc);        // "JSON: byte 17 (line 2, column 5): ..."
//   const pte::json::Value* v = doc.find("vocab");       // nullptr when absent
//   std::string out = pte::json::write(doc, 2);          // pretty, 2-space indent
//
// Numbers: integral literals (no fraction, no exponent) that fit int64 are Int;
// everything else is Double. Strings are UTF-8 (validated on parse); \uXXXX escapes,
// including surrogate pairs, are decoded to UTF-8. Nesting depth is bounded.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "pte/status.h"

namespace pte::json {

enum class Type : uint8_t { Null, Bool, Int, Double, String, Array, Object };

// "null", "bool", "int", "double", "string", "array", "object".
const char* type_name(Type t);

class Value;
using Member = std::pair<std::string, Value>;

class Value {
 public:
  Value() = default;                       // null
  Value(std::nullptr_t) {}
  Value(bool b) : v_(b) {}
  Value(int v) : v_(static_cast<int64_t>(v)) {}
  Value(unsigned v) : v_(static_cast<int64_t>(v)) {}
  Value(long v) : v_(static_cast<int64_t>(v)) {}
  Value(long long v) : v_(static_cast<int64_t>(v)) {}
  Value(unsigned long v);                  // > INT64_MAX becomes a Double
  Value(unsigned long long v);
  Value(double d) : v_(d) {}
  Value(float f) : v_(static_cast<double>(f)) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}

  static Value array() { Value v; v.v_ = std::vector<Value>(); return v; }
  static Value object() { Value v; v.v_ = std::vector<Member>(); return v; }

  Type type() const { return static_cast<Type>(v_.index()); }
  bool is_null() const { return type() == Type::Null; }
  bool is_bool() const { return type() == Type::Bool; }
  bool is_int() const { return type() == Type::Int; }
  bool is_double() const { return type() == Type::Double; }
  bool is_number() const { return is_int() || is_double(); }
  bool is_string() const { return type() == Type::String; }
  bool is_array() const { return type() == Type::Array; }
  bool is_object() const { return type() == Type::Object; }

  // Accessors return a neutral value (false, 0, "", empty) on a type mismatch;
  // check the type first when it matters.
  bool as_bool() const { return is_bool() ? std::get<bool>(v_) : false; }
  int64_t as_int() const;                  // Int, or a Double truncated toward 0 (saturating)
  double as_double() const;                // Int or Double
  const std::string& as_string() const;

  // Arrays and objects: number of items/members (0 for scalars).
  size_t size() const;
  const std::vector<Value>& items() const;       // empty for non-arrays
  const std::vector<Member>& members() const;    // empty for non-objects
  const Value& operator[](size_t i) const;       // array item; a null Value when out of range
  // Object lookup (linear scan, first match); nullptr when absent or not an object.
  const Value* find(std::string_view key) const;
  // Typed lookup helpers: nullptr when absent or of another type.
  const Value* find(std::string_view key, Type type) const;

  // Building. push() turns a null into an array; set() turns a null into an object
  // and replaces an existing key's value in place (keeping its position).
  Value& push(Value v);
  Value& set(std::string key, Value v);
  std::vector<Value>& items_mut();
  std::vector<Member>& members_mut();

  friend bool operator==(const Value& a, const Value& b) { return a.v_ == b.v_; }

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<Value>, std::vector<Member>> v_;
};

struct ParseOptions {
  size_t max_depth = 256;            // nesting of arrays/objects
  bool allow_duplicate_keys = false; // strict by default: a repeated key is an error
  // Lone surrogate escapes (\uD800 without its pair): error by default; when true they
  // become U+FFFD (some Python-written files contain them).
  bool replace_lone_surrogates = false;
};

// Parses one JSON document (surrounding whitespace allowed, nothing else after it).
// On error `out` is left null and the message names the byte offset, line and column.
Status parse(std::string_view text, Value* out, const ParseOptions& options = {});
// Reads and parses a file; the message starts with the path.
Status parse_file(const std::string& path, Value* out, const ParseOptions& options = {});

struct WriteOptions {
  int indent = -1;           // < 0: compact on one line; >= 0: newlines and this many spaces per level
  bool ascii_only = false;   // escape every non-ASCII character as \uXXXX (surrogate pairs above U+FFFF)
};

// Serialises `v`. Non-finite doubles are written as null (JSON has no NaN/Infinity);
// finite doubles use the shortest round-trip form and always show a '.' or exponent,
// so they parse back as Double. Invalid UTF-8 inside strings is written as U+FFFD.
std::string write(const Value& v, const WriteOptions& options);
inline std::string write(const Value& v, int indent = -1) {
  WriteOptions o;
  o.indent = indent;
  return write(v, o);
}

// Appends `s` as a quoted, escaped JSON string literal to `out`.
void write_string(std::string_view s, std::string* out, bool ascii_only = false);
// The escaped literal as a new string.
std::string quote(std::string_view s, bool ascii_only = false);

// True when `s` is well-formed UTF-8 (no overlongs, surrogates or values > U+10FFFF).
bool valid_utf8(std::string_view s);

}  // namespace pte::json
