// pte-run: strict JSON parser and writer (see json.h).
#include "util/json.h"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace pte::json {

const char* type_name(Type t) {
  switch (t) {
    case Type::Null: return "null";
    case Type::Bool: return "bool";
    case Type::Int: return "int";
    case Type::Double: return "double";
    case Type::String: return "string";
    case Type::Array: return "array";
    case Type::Object: return "object";
  }
  return "unknown";
}

// ---------------------------------------------------------------- Value

Value::Value(unsigned long v) {
  if (v > static_cast<unsigned long>(std::numeric_limits<int64_t>::max())) v_ = static_cast<double>(v);
  else v_ = static_cast<int64_t>(v);
}
Value::Value(unsigned long long v) {
  if (v > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max())) v_ = static_cast<double>(v);
  else v_ = static_cast<int64_t>(v);
}

int64_t Value::as_int() const {
  if (is_int()) return std::get<int64_t>(v_);
  if (is_double()) {
    double d = std::get<double>(v_);
    if (std::isnan(d)) return 0;
    if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
    if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(d);
  }
  return 0;
}

double Value::as_double() const {
  if (is_double()) return std::get<double>(v_);
  if (is_int()) return static_cast<double>(std::get<int64_t>(v_));
  return 0.0;
}

const std::string& Value::as_string() const {
  static const std::string empty;
  return is_string() ? std::get<std::string>(v_) : empty;
}

size_t Value::size() const {
  if (is_array()) return std::get<std::vector<Value>>(v_).size();
  if (is_object()) return std::get<std::vector<Member>>(v_).size();
  return 0;
}

const std::vector<Value>& Value::items() const {
  static const std::vector<Value> empty;
  return is_array() ? std::get<std::vector<Value>>(v_) : empty;
}

const std::vector<Member>& Value::members() const {
  static const std::vector<Member> empty;
  return is_object() ? std::get<std::vector<Member>>(v_) : empty;
}

const Value& Value::operator[](size_t i) const {
  static const Value null_value;
  const auto& a = items();
  return i < a.size() ? a[i] : null_value;
}

const Value* Value::find(std::string_view key) const {
  for (const auto& m : members())
    if (m.first == key) return &m.second;
  return nullptr;
}

const Value* Value::find(std::string_view key, Type type) const {
  const Value* v = find(key);
  return v && v->type() == type ? v : nullptr;
}

std::vector<Value>& Value::items_mut() {
  if (!is_array()) v_ = std::vector<Value>();
  return std::get<std::vector<Value>>(v_);
}

std::vector<Member>& Value::members_mut() {
  if (!is_object()) v_ = std::vector<Member>();
  return std::get<std::vector<Member>>(v_);
}

Value& Value::push(Value v) {
  auto& a = items_mut();
  a.push_back(std::move(v));
  return a.back();
}

Value& Value::set(std::string key, Value v) {
  auto& o = members_mut();
  for (auto& m : o)
    if (m.first == key) {
      m.second = std::move(v);
      return m.second;
    }
  o.emplace_back(std::move(key), std::move(v));
  return o.back().second;
}

// ---------------------------------------------------------------- UTF-8

namespace {

// Decodes one UTF-8 sequence at s[i..n); returns its length (1..4) and the code
// point, or 0 when the bytes are not well-formed UTF-8.
size_t utf8_decode(const unsigned char* s, size_t i, size_t n, uint32_t* cp) {
  unsigned char c = s[i];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t len;
  uint32_t v, min;
  if (c >= 0xC2 && c <= 0xDF) len = 2, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) len = 3, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) len = 4, v = c & 0x07, min = 0x10000;
  else return 0;
  if (n - i < len) return 0;
  for (size_t k = 1; k < len; ++k) {
    unsigned char d = s[i + k];
    if ((d & 0xC0) != 0x80) return 0;
    v = (v << 6) | (d & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

void utf8_append(uint32_t cp, std::string* out) {
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

}  // namespace

bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t i = 0, n = s.size();
  while (i < n) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    uint32_t cp;
    size_t len = utf8_decode(p, i, n, &cp);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// ---------------------------------------------------------------- parser

namespace {

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options)
      : p_(reinterpret_cast<const unsigned char*>(text.data())), n_(text.size()), opt_(options) {}

  Status run(Value* out) {
    skip_ws();
    if (!parse_value(out, 0)) return error_status();
    skip_ws();
    if (i_ != n_) {
      fail("unexpected data after the JSON document");
      return error_status();
    }
    return Status::ok();
  }

 private:
  bool fail(const char* msg) {
    if (!err_) {
      err_ = msg;
      err_pos_ = i_;
    }
    return false;
  }
  bool fail_at(size_t pos, const char* msg) {
    i_ = pos;
    return fail(msg);
  }

  Status error_status() const {
    size_t line = 1, col = 1;
    for (size_t k = 0; k < err_pos_ && k < n_; ++k) {
      if (p_[k] == '\n') ++line, col = 1;
      else if ((p_[k] & 0xC0) != 0x80) ++col;  // count characters, not continuation bytes
    }
    return Status::error("JSON: byte " + std::to_string(err_pos_) + " (line " + std::to_string(line) + ", column " +
                         std::to_string(col) + "): " + err_);
  }

  void skip_ws() {
    while (i_ < n_ && (p_[i_] == ' ' || p_[i_] == '\t' || p_[i_] == '\n' || p_[i_] == '\r')) ++i_;
  }

  bool literal(const char* word, size_t len) {
    if (n_ - i_ < len || std::memcmp(p_ + i_, word, len) != 0) return fail("invalid literal (expected null, true or false)");
    i_ += len;
    return true;
  }

  bool parse_value(Value* out, size_t depth) {
    if (i_ >= n_) return fail("unexpected end of input, expected a value");
    switch (p_[i_]) {
      case '{': return parse_object(out, depth + 1);
      case '[': return parse_array(out, depth + 1);
      case '"': {
        std::string s;
        if (!parse_string(&s)) return false;
        *out = Value(std::move(s));
        return true;
      }
      case 't': if (!literal("true", 4)) return false; *out = Value(true); return true;
      case 'f': if (!literal("false", 5)) return false; *out = Value(false); return true;
      case 'n': if (!literal("null", 4)) return false; *out = Value(); return true;
      default:
        if (p_[i_] == '-' || (p_[i_] >= '0' && p_[i_] <= '9')) return parse_number(out);
        return fail("unexpected character, expected a value");
    }
  }

  bool parse_array(Value* out, size_t depth) {
    if (depth > opt_.max_depth) return fail("nesting is deeper than the limit");
    ++i_;  // '['
    Value arr = Value::array();
    auto& items = arr.items_mut();
    skip_ws();
    if (i_ < n_ && p_[i_] == ']') {
      ++i_;
      *out = std::move(arr);
      return true;
    }
    for (;;) {
      skip_ws();
      items.emplace_back();
      if (!parse_value(&items.back(), depth)) return false;
      skip_ws();
      if (i_ >= n_) return fail("unexpected end of input inside an array (missing ']')");
      if (p_[i_] == ',') {
        ++i_;
        continue;
      }
      if (p_[i_] == ']') {
        ++i_;
        break;
      }
      return fail("expected ',' or ']' after an array item");
    }
    *out = std::move(arr);
    return true;
  }

  bool parse_object(Value* out, size_t depth) {
    if (depth > opt_.max_depth) return fail("nesting is deeper than the limit");
    ++i_;  // '{'
    Value obj = Value::object();
    auto& members = obj.members_mut();
    std::vector<size_t> key_pos;
    skip_ws();
    if (i_ < n_ && p_[i_] == '}') {
      ++i_;
      *out = std::move(obj);
      return true;
    }
    for (;;) {
      skip_ws();
      if (i_ >= n_) return fail("unexpected end of input inside an object (missing '}')");
      if (p_[i_] != '"') return fail("expected a string key in an object");
      key_pos.push_back(i_);
      std::string key;
      if (!parse_string(&key)) return false;
      skip_ws();
      if (i_ >= n_ || p_[i_] != ':') return fail("expected ':' after an object key");
      ++i_;
      skip_ws();
      members.emplace_back(std::move(key), Value());
      if (!parse_value(&members.back().second, depth)) return false;
      skip_ws();
      if (i_ >= n_) return fail("unexpected end of input inside an object (missing '}')");
      if (p_[i_] == ',') {
        ++i_;
        continue;
      }
      if (p_[i_] == '}') {
        ++i_;
        break;
      }
      return fail("expected ',' or '}' after an object member");
    }
    if (!opt_.allow_duplicate_keys && !check_duplicates(members, key_pos)) return false;
    *out = std::move(obj);
    return true;
  }

  bool check_duplicates(const std::vector<Member>& members, const std::vector<size_t>& key_pos) {
    size_t n = members.size();
    size_t dup = SIZE_MAX;  // index of the later of a duplicated pair, earliest such
    if (n <= 16) {
      for (size_t a = 1; a < n; ++a)
        for (size_t b = 0; b < a; ++b)
          if (members[a].first == members[b].first) {
            dup = std::min(dup, a);
            break;
          }
    } else {
      std::vector<uint32_t> idx(n);
      for (size_t k = 0; k < n; ++k) idx[k] = static_cast<uint32_t>(k);
      std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
        int c = members[a].first.compare(members[b].first);
        return c != 0 ? c < 0 : a < b;
      });
      for (size_t k = 1; k < n; ++k)
        if (members[idx[k]].first == members[idx[k - 1]].first) dup = std::min<size_t>(dup, idx[k]);
    }
    if (dup == SIZE_MAX) return true;
    return fail_at(key_pos[dup], "duplicate key in an object");
  }

  static int hex(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // Reads the 4 hex digits after "\u" at i_ (i_ points at the backslash).
  bool read_u16(uint32_t* v) {
    if (n_ - i_ < 6) return fail("truncated \\u escape");
    uint32_t r = 0;
    for (size_t k = 2; k < 6; ++k) {
      int h = hex(p_[i_ + k]);
      if (h < 0) return fail("invalid \\u escape (expected 4 hex digits)");
      r = (r << 4) | static_cast<uint32_t>(h);
    }
    *v = r;
    i_ += 6;
    return true;
  }

  bool parse_string(std::string* s) {
    ++i_;  // opening quote
    for (;;) {
      // Fast path: copy the run of plain ASCII characters.
      size_t start = i_;
      while (i_ < n_ && p_[i_] >= 0x20 && p_[i_] < 0x80 && p_[i_] != '"' && p_[i_] != '\\') ++i_;
      s->append(reinterpret_cast<const char*>(p_ + start), i_ - start);
      if (i_ >= n_) return fail("unterminated string");
      unsigned char c = p_[i_];
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return fail("control character inside a string (must be escaped)");
      if (c >= 0x80) {
        uint32_t cp;
        size_t len = utf8_decode(p_, i_, n_, &cp);
        if (len == 0) return fail("invalid UTF-8 in a string");
        s->append(reinterpret_cast<const char*>(p_ + i_), len);
        i_ += len;
        continue;
      }
      // Backslash escape.
      if (n_ - i_ < 2) return fail("unterminated string");
      unsigned char e = p_[i_ + 1];
      switch (e) {
        case '"': s->push_back('"'); i_ += 2; continue;
        case '\\': s->push_back('\\'); i_ += 2; continue;
        case '/': s->push_back('/'); i_ += 2; continue;
        case 'b': s->push_back('\b'); i_ += 2; continue;
        case 'f': s->push_back('\f'); i_ += 2; continue;
        case 'n': s->push_back('\n'); i_ += 2; continue;
        case 'r': s->push_back('\r'); i_ += 2; continue;
        case 't': s->push_back('\t'); i_ += 2; continue;
        case 'u': break;
        default: return fail("invalid escape sequence in a string");
      }
      size_t esc = i_;
      uint32_t u;
      if (!read_u16(&u)) return false;
      if (u >= 0xD800 && u <= 0xDBFF) {
        // High surrogate: a low one must follow as another \u escape.
        uint32_t lo = 0;
        bool paired = false;
        if (n_ - i_ >= 2 && p_[i_] == '\\' && p_[i_ + 1] == 'u') {
          size_t save = i_;
          if (!read_u16(&lo)) return false;
          if (lo >= 0xDC00 && lo <= 0xDFFF) paired = true;
          else i_ = save;  // not a low surrogate: leave it to be parsed on its own
        }
        if (paired) {
          utf8_append(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00), s);
        } else {
          if (!opt_.replace_lone_surrogates) return fail_at(esc, "unpaired UTF-16 surrogate in a \\u escape");
          utf8_append(0xFFFD, s);
        }
      } else if (u >= 0xDC00 && u <= 0xDFFF) {
        if (!opt_.replace_lone_surrogates) return fail_at(esc, "unpaired UTF-16 surrogate in a \\u escape");
        utf8_append(0xFFFD, s);
      } else {
        utf8_append(u, s);
      }
    }
  }

  bool parse_number(Value* out) {
    size_t start = i_;
    bool neg = false;
    if (p_[i_] == '-') {
      neg = true;
      ++i_;
    }
    if (i_ >= n_ || p_[i_] < '0' || p_[i_] > '9') return fail("invalid number (expected a digit)");
    size_t int_start = i_;
    if (p_[i_] == '0') {
      ++i_;
      if (i_ < n_ && p_[i_] >= '0' && p_[i_] <= '9') return fail("invalid number (leading zero)");
    } else {
      while (i_ < n_ && p_[i_] >= '0' && p_[i_] <= '9') ++i_;
    }
    size_t int_end = i_;
    bool integral = true;
    if (i_ < n_ && p_[i_] == '.') {
      integral = false;
      ++i_;
      if (i_ >= n_ || p_[i_] < '0' || p_[i_] > '9') return fail("invalid number (expected a digit after '.')");
      while (i_ < n_ && p_[i_] >= '0' && p_[i_] <= '9') ++i_;
    }
    if (i_ < n_ && (p_[i_] == 'e' || p_[i_] == 'E')) {
      integral = false;
      ++i_;
      if (i_ < n_ && (p_[i_] == '+' || p_[i_] == '-')) ++i_;
      if (i_ >= n_ || p_[i_] < '0' || p_[i_] > '9') return fail("invalid number (expected a digit in the exponent)");
      while (i_ < n_ && p_[i_] >= '0' && p_[i_] <= '9') ++i_;
    }
    if (integral) {
      // Accumulate as a negative number so INT64_MIN fits.
      int64_t v = 0;
      bool overflow = false;
      for (size_t k = int_start; k < int_end; ++k) {
        int d = p_[k] - '0';
        if (v < (std::numeric_limits<int64_t>::min() + d) / 10) {
          overflow = true;
          break;
        }
        v = v * 10 - d;
      }
      if (!overflow) {
        if (!neg) {
          if (v == std::numeric_limits<int64_t>::min()) overflow = true;
          else v = -v;
        }
        if (!overflow) {
          *out = Value(static_cast<long long>(v));
          return true;
        }
      }
      // Too large for int64: fall through to a double.
    }
    const char* first = reinterpret_cast<const char*>(p_ + start);
    const char* last = reinterpret_cast<const char*>(p_ + i_);
    double d = 0;
    auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc::result_out_of_range) {
      if (!underflows(start)) return fail_at(start, "number is out of range for a double");
      d = neg ? -0.0 : 0.0;
    } else if (r.ec != std::errc() || r.ptr != last) {
      return fail_at(start, "invalid number");
    }
    *out = Value(d);
    return true;
  }

  // For a number that from_chars reported out of range: true when its magnitude is tiny.
  bool underflows(size_t start) const {
    size_t k = start;
    if (p_[k] == '-') ++k;
    // Decimal position of the first non-zero digit relative to the decimal point.
    int64_t lead = 0;  // power of ten of the first significant digit
    bool found = false;
    int64_t int_digits = 0;
    size_t j = k;
    while (j < n_ && p_[j] >= '0' && p_[j] <= '9') ++int_digits, ++j;
    int64_t pos = 0;
    for (size_t q = k; q < j; ++q, ++pos)
      if (!found && p_[q] != '0') found = true, lead = int_digits - 1 - pos;
    if (j < n_ && p_[j] == '.') {
      ++j;
      int64_t frac = 1;
      for (; j < n_ && p_[j] >= '0' && p_[j] <= '9'; ++j, ++frac)
        if (!found && p_[j] != '0') found = true, lead = -frac;
    }
    if (!found) return true;  // all zeros
    int64_t e = 0;
    bool eneg = false;
    if (j < n_ && (p_[j] == 'e' || p_[j] == 'E')) {
      ++j;
      if (j < n_ && (p_[j] == '+' || p_[j] == '-')) eneg = p_[j] == '-', ++j;
      for (; j < n_ && p_[j] >= '0' && p_[j] <= '9'; ++j)
        if (e < 100000000) e = e * 10 + (p_[j] - '0');
    }
    return lead + (eneg ? -e : e) < 0;
  }

  const unsigned char* p_;
  size_t n_;
  size_t i_ = 0;
  const ParseOptions& opt_;
  const char* err_ = nullptr;
  size_t err_pos_ = 0;
};

}  // namespace

Status parse(std::string_view text, Value* out, const ParseOptions& options) {
  Value v;
  Parser p(text, options);
  Status s = p.run(&v);
  if (!s) {
    *out = Value();
    return s;
  }
  *out = std::move(v);
  return Status::ok();
}

Status parse_file(const std::string& path, Value* out, const ParseOptions& options) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::error(path + ": cannot open: " + std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) return Status::error(path + ": read error");
  Status s = parse(text, out, options);
  return s.context(path);
}

// ---------------------------------------------------------------- writer

void write_string(std::string_view s, std::string* out, bool ascii_only) {
  static const char kHex[] = "0123456789abcdef";
  auto u_escape = [&](uint32_t u) {
    char b[6] = {'\\', 'u', kHex[(u >> 12) & 15], kHex[(u >> 8) & 15], kHex[(u >> 4) & 15], kHex[u & 15]};
    out->append(b, 6);
  };
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  out->push_back('"');
  size_t i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      size_t start = i;
      while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' && p[i] != '\\') ++i;
      out->append(reinterpret_cast<const char*>(p + start), i - start);
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '"': out->append("\\\""); break;
        case '\\': out->append("\\\\"); break;
        case '\b': out->append("\\b"); break;
        case '\f': out->append("\\f"); break;
        case '\n': out->append("\\n"); break;
        case '\r': out->append("\\r"); break;
        case '\t': out->append("\\t"); break;
        default: u_escape(c); break;
      }
      ++i;
      continue;
    }
    uint32_t cp;
    size_t len = utf8_decode(p, i, n, &cp);
    if (len == 0) {
      cp = 0xFFFD;  // invalid byte: replacement character
      len = 1;
      if (ascii_only) u_escape(cp);
      else out->append("\xEF\xBF\xBD");
    } else if (!ascii_only) {
      out->append(reinterpret_cast<const char*>(p + i), len);
    } else if (cp < 0x10000) {
      u_escape(cp);
    } else {
      uint32_t v = cp - 0x10000;
      u_escape(0xD800 + (v >> 10));
      u_escape(0xDC00 + (v & 0x3FF));
    }
    i += len;
  }
  out->push_back('"');
}

std::string quote(std::string_view s, bool ascii_only) {
  std::string out;
  write_string(s, &out, ascii_only);
  return out;
}

namespace {

void write_double(double d, std::string* out) {
  if (!std::isfinite(d)) {
    out->append("null");
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  out->append(s);
  if (s.find_first_of(".eE") == std::string_view::npos) out->append(".0");
}

void newline(std::string* out, int indent, size_t depth) {
  out->push_back('\n');
  out->append(static_cast<size_t>(indent) * depth, ' ');
}

void write_value(const Value& v, const WriteOptions& o, size_t depth, std::string* out) {
  switch (v.type()) {
    case Type::Null: out->append("null"); return;
    case Type::Bool: out->append(v.as_bool() ? "true" : "false"); return;
    case Type::Int: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, v.as_int());
      out->append(buf, static_cast<size_t>(r.ptr - buf));
      return;
    }
    case Type::Double: write_double(v.as_double(), out); return;
    case Type::String: write_string(v.as_string(), out, o.ascii_only); return;
    case Type::Array: {
      const auto& a = v.items();
      out->push_back('[');
      for (size_t k = 0; k < a.size(); ++k) {
        if (k) out->push_back(',');
        if (o.indent >= 0) newline(out, o.indent, depth + 1);
        write_value(a[k], o, depth + 1, out);
      }
      if (o.indent >= 0 && !a.empty()) newline(out, o.indent, depth);
      out->push_back(']');
      return;
    }
    case Type::Object: {
      const auto& m = v.members();
      out->push_back('{');
      for (size_t k = 0; k < m.size(); ++k) {
        if (k) out->push_back(',');
        if (o.indent >= 0) newline(out, o.indent, depth + 1);
        write_string(m[k].first, out, o.ascii_only);
        out->append(o.indent >= 0 ? ": " : ":");
        write_value(m[k].second, o, depth + 1, out);
      }
      if (o.indent >= 0 && !m.empty()) newline(out, o.indent, depth);
      out->push_back('}');
      return;
    }
  }
}

}  // namespace

std::string write(const Value& v, const WriteOptions& options) {
  std::string out;
  write_value(v, options, 0, &out);
  return out;
}

}  // namespace pte::json
