#include "chat/value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "tokenizer/unicode.h"

namespace pte::jinja {

bool Value::truthy() const {
  switch (kind) {
    case Kind::Undefined: case Kind::None: return false;
    case Kind::Bool: return b;
    case Kind::Int: return i != 0;
    case Kind::Float: return f != 0;
    case Kind::String: return !s.empty();
    case Kind::List: return !list->empty();
    case Kind::Dict: return !dict->empty();
    case Kind::Namespace: case Kind::Macro: return true;
  }
  return false;
}

const Value* Value::find(const std::string& key) const {
  if (!dict) return nullptr;
  for (const auto& kv : *dict)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

void Value::set(const std::string& key, Value v) {
  for (auto& kv : *dict)
    if (kv.first == key) { kv.second = std::move(v); return; }
  dict->emplace_back(key, std::move(v));
}

void append_utf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::vector<uint32_t> code_points(const std::string& s) {
  std::vector<uint32_t> r;
  r.reserve(s.size());
  size_t i = 0, n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!len || i + len > n) { r.push_back(0xFFFD); ++i; continue; }
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    bool ok = true;
    for (int k = 1; k < len; ++k) {
      unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) { ok = false; break; }
      cp = (cp << 6) | (d & 0x3F);
    }
    if (!ok) { r.push_back(0xFFFD); ++i; continue; }
    r.push_back(cp);
    i += len;
  }
  return r;
}

std::string utf8(const std::vector<uint32_t>& cps, size_t begin, size_t end) {
  std::string r;
  for (size_t k = begin; k < end && k < cps.size(); ++k) append_utf8(&r, cps[k]);
  return r;
}

// str.isspace() of Python: the characters with bidirectional type WS, B or S, or category Zs.
bool py_isspace(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

namespace {

uint32_t lower_cp(uint32_t c, std::u32string* buf) {
  buf->clear();
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  tok::append_lowercase(static_cast<char32_t>(c), buf);
  return buf->size() == 1 ? static_cast<uint32_t>((*buf)[0]) : c;
}

// upper case as the inverse of the one-character lowercase mappings
uint32_t upper_cp(uint32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
  static std::once_flag once;
  static std::unordered_map<uint32_t, uint32_t>* map;
  std::call_once(once, [] {
    map = new std::unordered_map<uint32_t, uint32_t>();
    std::u32string buf;
    for (uint32_t u = 0x80; u < 0x20000; ++u) {
      buf.clear();
      tok::append_lowercase(static_cast<char32_t>(u), &buf);
      if (buf.size() == 1 && static_cast<uint32_t>(buf[0]) != u && tok::general_category(static_cast<char32_t>(u)) == tok::kLu)
        map->emplace(static_cast<uint32_t>(buf[0]), u);
    }
  });
  auto it = map->find(c);
  return it == map->end() ? c : it->second;
}

bool is_cased_letter(uint32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  tok::Gc g = tok::general_category(static_cast<char32_t>(c));
  return g == tok::kLu || g == tok::kLl || g == tok::kLt;
}

}  // namespace

std::string py_lower(const std::string& s) {
  std::string r;
  std::u32string buf;
  for (uint32_t c : code_points(s)) {
    if (c >= 0x80) {
      buf.clear();
      tok::append_lowercase(static_cast<char32_t>(c), &buf);
      for (char32_t x : buf) append_utf8(&r, static_cast<uint32_t>(x));
      continue;
    }
    append_utf8(&r, lower_cp(c, &buf));
  }
  return r;
}

std::string py_upper(const std::string& s) {
  std::string r;
  for (uint32_t c : code_points(s)) append_utf8(&r, upper_cp(c));
  return r;
}

std::string py_title(const std::string& s) {
  std::string r;
  std::u32string buf;
  bool prev_cased = false;
  for (uint32_t c : code_points(s)) {
    bool cased = is_cased_letter(c);
    append_utf8(&r, cased ? (prev_cased ? lower_cp(c, &buf) : upper_cp(c)) : c);
    prev_cased = cased;
  }
  return r;
}

std::string py_capitalize(const std::string& s) {
  std::string r;
  std::u32string buf;
  bool first = true;
  for (uint32_t c : code_points(s)) {
    append_utf8(&r, first ? upper_cp(c) : lower_cp(c, &buf));
    first = false;
  }
  return r;
}

std::string float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buf[64];
  int prec = 1;
  for (; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::string m = buf;  // [-]d.ddde[+-]XX
  bool neg = m[0] == '-';
  if (neg) m.erase(0, 1);
  size_t epos = m.find('e');
  int exp = std::atoi(m.c_str() + epos + 1);
  std::string digits;
  for (size_t k = 0; k < epos; ++k)
    if (m[k] != '.') digits += m[k];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string r = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      std::string ip = digits.substr(0, std::min<size_t>(digits.size(), exp + 1));
      while (static_cast<int>(ip.size()) < exp + 1) ip += '0';
      std::string fp = static_cast<int>(digits.size()) > exp + 1 ? digits.substr(exp + 1) : "0";
      r += ip + "." + fp;
    } else {
      r += "0." + std::string(-exp - 1, '0') + digits;
    }
  } else {
    r += digits.substr(0, 1);
    if (digits.size() > 1) r += "." + digits.substr(1);
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    r += e;
  }
  return r;
}

namespace {

std::string repr_string(const std::string& s) {
  bool has_single = s.find('\'') != std::string::npos, has_double = s.find('"') != std::string::npos;
  char q = has_single && !has_double ? '"' : '\'';
  std::string r(1, q);
  for (uint32_t c : code_points(s)) {
    if (c == static_cast<uint32_t>(q) || c == '\\') { r += '\\'; r += static_cast<char>(c); }
    else if (c == '\n') r += "\\n";
    else if (c == '\r') r += "\\r";
    else if (c == '\t') r += "\\t";
    else if (c < 0x20 || (c >= 0x7F && c < 0xA0)) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      r += b;
    } else {
      append_utf8(&r, c);
    }
  }
  r += q;
  return r;
}

void json_string(const std::string& s, std::string* out) {
  *out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          *out += b;
        } else {
          *out += static_cast<char>(c);
        }
    }
  }
  *out += '"';
}

bool json_rec(const Value& v, int indent, bool sort_keys, int depth, std::string* out, std::string* err) {
  auto newline = [&](int d) {
    *out += '\n';
    out->append(static_cast<size_t>(indent * d), ' ');
  };
  switch (v.kind) {
    case Value::Kind::None: *out += "null"; return true;
    case Value::Kind::Bool: *out += v.b ? "true" : "false"; return true;
    case Value::Kind::Int: *out += std::to_string(v.i); return true;
    case Value::Kind::Float:
      if (std::isnan(v.f)) *out += "NaN";
      else if (std::isinf(v.f)) *out += v.f < 0 ? "-Infinity" : "Infinity";
      else *out += float_repr(v.f);
      return true;
    case Value::Kind::String: json_string(v.s, out); return true;
    case Value::Kind::List: {
      if (v.list->empty()) { *out += "[]"; return true; }
      *out += '[';
      for (size_t k = 0; k < v.list->size(); ++k) {
        if (k) *out += indent >= 0 ? "," : ", ";
        if (indent >= 0) newline(depth + 1);
        if (!json_rec((*v.list)[k], indent, sort_keys, depth + 1, out, err)) return false;
      }
      if (indent >= 0) newline(depth);
      *out += ']';
      return true;
    }
    case Value::Kind::Dict: {
      if (v.dict->empty()) { *out += "{}"; return true; }
      std::vector<const std::pair<std::string, Value>*> items;
      for (const auto& kv : *v.dict) items.push_back(&kv);
      if (sort_keys)
        std::stable_sort(items.begin(), items.end(), [](auto* a, auto* b) { return a->first < b->first; });
      *out += '{';
      for (size_t k = 0; k < items.size(); ++k) {
        if (k) *out += indent >= 0 ? "," : ", ";
        if (indent >= 0) newline(depth + 1);
        json_string(items[k]->first, out);
        *out += ": ";
        if (!json_rec(items[k]->second, indent, sort_keys, depth + 1, out, err)) return false;
      }
      if (indent >= 0) newline(depth);
      *out += '}';
      return true;
    }
    default:
      *err = std::string("Object of type ") + type_name(v) + " is not JSON serializable";
      return false;
  }
}

}  // namespace

const char* type_name(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Undefined: return "Undefined";
    case Value::Kind::None: return "NoneType";
    case Value::Kind::Bool: return "bool";
    case Value::Kind::Int: return "int";
    case Value::Kind::Float: return "float";
    case Value::Kind::String: return "str";
    case Value::Kind::List: return "list";
    case Value::Kind::Dict: return "dict";
    case Value::Kind::Namespace: return "Namespace";
    case Value::Kind::Macro: return "Macro";
  }
  return "?";
}

std::string to_repr(const Value& v) {
  switch (v.kind) {
    case Value::Kind::String: return repr_string(v.s);
    case Value::Kind::List: {
      std::string r = v.tuple ? "(" : "[";
      for (size_t k = 0; k < v.list->size(); ++k) r += (k ? ", " : "") + to_repr((*v.list)[k]);
      if (v.tuple && v.list->size() == 1) r += ",";
      return r + (v.tuple ? ")" : "]");
    }
    case Value::Kind::Dict: {
      std::string r = "{";
      bool first = true;
      for (const auto& kv : *v.dict) {
        r += (first ? "" : ", ") + repr_string(kv.first) + ": " + to_repr(kv.second);
        first = false;
      }
      return r + "}";
    }
    default: return to_str(v);
  }
}

std::string to_str(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Undefined: return "";
    case Value::Kind::None: return "None";
    case Value::Kind::Bool: return v.b ? "True" : "False";
    case Value::Kind::Int: return std::to_string(v.i);
    case Value::Kind::Float: return float_repr(v.f);
    case Value::Kind::String: return v.s;
    case Value::Kind::List: case Value::Kind::Dict: return to_repr(v);
    case Value::Kind::Namespace: return "<Namespace>";
    case Value::Kind::Macro: return "<Macro>";
  }
  return "";
}

bool to_json(const Value& v, int indent, bool sort_keys, std::string* out, std::string* err) {
  std::string r;
  if (!json_rec(v, indent, sort_keys, 0, &r, err)) return false;
  *out = std::move(r);
  return true;
}

bool equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind == Value::Kind::Float || b.kind == Value::Kind::Float) return a.as_double() == b.as_double();
    return a.as_int() == b.as_int();
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::Undefined: case Value::Kind::None: return true;
    case Value::Kind::String: return a.s == b.s;
    case Value::Kind::List:
      if (a.list->size() != b.list->size()) return false;
      for (size_t k = 0; k < a.list->size(); ++k)
        if (!equal((*a.list)[k], (*b.list)[k])) return false;
      return true;
    case Value::Kind::Dict:
      if (a.dict->size() != b.dict->size()) return false;
      for (const auto& kv : *a.dict) {
        const Value* o = b.find(kv.first);
        if (!o || !equal(kv.second, *o)) return false;
      }
      return true;
    default: return a.dict == b.dict && a.macro == b.macro;
  }
}

bool less(const Value& a, const Value& b, bool* ok) {
  *ok = true;
  if (a.is_number() && b.is_number()) {
    if (a.kind == Value::Kind::Float || b.kind == Value::Kind::Float) return a.as_double() < b.as_double();
    return a.as_int() < b.as_int();
  }
  if (a.is_string() && b.is_string()) return a.s < b.s;  // UTF-8 byte order is code point order
  if (a.is_list() && b.is_list()) {
    size_t n = std::min(a.list->size(), b.list->size());
    for (size_t k = 0; k < n; ++k) {
      if (equal((*a.list)[k], (*b.list)[k])) continue;
      return less((*a.list)[k], (*b.list)[k], ok);
    }
    return a.list->size() < b.list->size();
  }
  *ok = false;
  return false;
}

}  // namespace pte::jinja
