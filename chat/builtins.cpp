#include "chat/builtins.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace pte::jinja {

namespace {

[[noreturn]] void fail(int line, const std::string& msg) { throw RenderError{line, msg}; }

[[noreturn]] void undefined_error(const Value& v, int line) {
  fail(line, "'" + (v.s.empty() ? std::string("value") : v.s) + "' is undefined");
}

constexpr size_t kMaxItems = 1u << 20;  // longest list / repetition a template may build

const Value* kwarg(const KwArgs& kw, const char* name) {
  for (const auto& a : kw)
    if (a.first == name) return &a.second;
  return nullptr;
}

// positional argument k, else the keyword `name`, else nullptr
const Value* arg(const std::vector<Value>& args, const KwArgs& kw, size_t k, const char* name) {
  if (k < args.size()) return &args[k];
  return kwarg(kw, name);
}

int64_t want_int(const Value& v, int line, const char* what) {
  if (v.kind != Value::Kind::Int && v.kind != Value::Kind::Bool) fail(line, std::string(what) + " must be an integer, not " + type_name(v));
  return v.as_int();
}

const std::string& want_str(const Value& v, int line, const char* what) {
  if (!v.is_string()) fail(line, std::string(what) + " must be a string, not " + type_name(v));
  return v.s;
}

// str.strip / lstrip / rstrip with Python's whitespace or a set of characters
std::string strip(const std::string& s, const Value* chars, bool left, bool right, int line) {
  std::vector<uint32_t> cps = code_points(s);
  std::vector<uint32_t> set;
  bool ws = !chars || chars->is_none() || chars->is_undefined();
  if (!ws) set = code_points(want_str(*chars, line, "strip characters"));
  auto strip_it = [&](uint32_t c) { return ws ? py_isspace(c) : std::find(set.begin(), set.end(), c) != set.end(); };
  size_t b = 0, e = cps.size();
  if (left)
    while (b < e && strip_it(cps[b])) ++b;
  if (right)
    while (e > b && strip_it(cps[e - 1])) --e;
  if (b == 0 && e == cps.size()) return s;
  return utf8(cps, b, e);
}

std::vector<Value> split(const std::string& s, const Value* sep, int64_t maxsplit, int line) {
  std::vector<Value> r;
  if (!sep || sep->is_none()) {
    std::vector<uint32_t> cps = code_points(s);
    size_t k = 0, n = cps.size();
    while (true) {
      while (k < n && py_isspace(cps[k])) ++k;
      if (k >= n) break;
      if (maxsplit >= 0 && static_cast<int64_t>(r.size()) >= maxsplit) {
        size_t e = n;
        while (e > k && py_isspace(cps[e - 1])) --e;
        r.push_back(Value::string(utf8(cps, k, e)));
        break;
      }
      size_t b = k;
      while (k < n && !py_isspace(cps[k])) ++k;
      r.push_back(Value::string(utf8(cps, b, k)));
    }
    return r;
  }
  const std::string& d = want_str(*sep, line, "the separator");
  if (d.empty()) fail(line, "empty separator");
  size_t at = 0;
  while (true) {
    size_t hit = (maxsplit >= 0 && static_cast<int64_t>(r.size()) >= maxsplit) ? std::string::npos : s.find(d, at);
    if (hit == std::string::npos) {
      r.push_back(Value::string(s.substr(at)));
      break;
    }
    r.push_back(Value::string(s.substr(at, hit - at)));
    at = hit + d.size();
  }
  return r;
}

std::string replace_all(const std::string& s, const std::string& from, const std::string& to, int64_t count) {
  if (from.empty()) {  // Python inserts `to` between characters
    std::vector<uint32_t> cps = code_points(s);
    std::string r;
    int64_t done = 0;
    for (size_t k = 0; k <= cps.size(); ++k) {
      if (count < 0 || done < count) { r += to; ++done; }
      if (k < cps.size()) append_utf8(&r, cps[k]);
    }
    return r;
  }
  std::string r;
  size_t at = 0;
  int64_t done = 0;
  while (count < 0 || done < count) {
    size_t hit = s.find(from, at);
    if (hit == std::string::npos) break;
    r += s.substr(at, hit - at) + to;
    at = hit + from.size();
    ++done;
  }
  return r + s.substr(at);
}

Value length_of(const Value& v, int line) {
  switch (v.kind) {
    case Value::Kind::String: return Value::integer(static_cast<int64_t>(code_points(v.s).size()));
    case Value::Kind::List: return Value::integer(static_cast<int64_t>(v.list->size()));
    case Value::Kind::Dict: case Value::Kind::Namespace: return Value::integer(static_cast<int64_t>(v.dict->size()));
    case Value::Kind::Undefined: return Value::integer(0);
    default: fail(line, std::string("object of type '") + type_name(v) + "' has no len()");
  }
}

// getattr-or-item by a dotted path, as Jinja's attribute= arguments
Value attribute_path(const Value& v, const std::string& path, int line) {
  Value cur = v;
  size_t at = 0;
  while (true) {
    size_t dot = path.find('.', at);
    std::string part = path.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    cur = digits ? get_item(cur, Value::integer(std::stoll(part)), line) : get_item(cur, Value::string(part), line);
    if (dot == std::string::npos) return cur;
    at = dot + 1;
  }
}

int64_t py_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

void check_size(size_t n, int line) {
  if (n > kMaxItems * 64) fail(line, "the value is too large");
}

}  // namespace

Value get_attr(const Value& obj, const std::string& name, int line) {
  if (obj.is_undefined()) undefined_error(obj, line);
  if (obj.dict) {
    if (const Value* v = obj.find(name)) return *v;
  }
  return Value::undefined(name);
}

Value get_item(const Value& obj, const Value& key, int line) {
  if (obj.is_undefined()) undefined_error(obj, line);
  if (obj.is_list() && (key.kind == Value::Kind::Int || key.kind == Value::Kind::Bool)) {
    int64_t n = static_cast<int64_t>(obj.list->size()), k = key.as_int();
    if (k < 0) k += n;
    if (k < 0 || k >= n) return Value::undefined("item");
    return (*obj.list)[static_cast<size_t>(k)];
  }
  if (obj.is_string() && (key.kind == Value::Kind::Int || key.kind == Value::Kind::Bool)) {
    std::vector<uint32_t> cps = code_points(obj.s);
    int64_t n = static_cast<int64_t>(cps.size()), k = key.as_int();
    if (k < 0) k += n;
    if (k < 0 || k >= n) return Value::undefined("item");
    return Value::string(utf8(cps, static_cast<size_t>(k), static_cast<size_t>(k) + 1));
  }
  if (obj.dict && key.is_string()) {
    if (const Value* v = obj.find(key.s)) return *v;
    return Value::undefined(key.s);
  }
  return Value::undefined(key.is_string() ? key.s : "item");
}

Value slice(const Value& obj, const Value& start, const Value& stop, const Value& step_v, int line) {
  if (obj.is_undefined()) undefined_error(obj, line);
  auto opt = [&](const Value& v, const char* what, int64_t dflt) {
    return v.is_none() || v.is_undefined() ? dflt : want_int(v, line, what);
  };
  int64_t step = opt(step_v, "slice step", 1);
  if (step == 0) fail(line, "slice step cannot be zero");
  std::vector<uint32_t> cps;
  int64_t n;
  if (obj.is_list()) n = static_cast<int64_t>(obj.list->size());
  else if (obj.is_string()) { cps = code_points(obj.s); n = static_cast<int64_t>(cps.size()); }
  else fail(line, std::string("'") + type_name(obj) + "' object is not subscriptable");
  auto clamp = [&](const Value& v, bool is_start) {
    if (v.is_none() || v.is_undefined()) return step > 0 ? (is_start ? int64_t{0} : n) : (is_start ? n - 1 : int64_t{-1});
    int64_t k = want_int(v, line, "slice index");
    if (k < 0) k += n;
    if (step > 0) return std::clamp<int64_t>(k, 0, n);
    return std::clamp<int64_t>(k, -1, n - 1);
  };
  int64_t b = clamp(start, true), e = clamp(stop, false);
  std::vector<size_t> idx;
  if (step > 0)
    for (int64_t k = b; k < e; k += step) idx.push_back(static_cast<size_t>(k));
  else
    for (int64_t k = b; k > e; k += step) idx.push_back(static_cast<size_t>(k));
  if (obj.is_list()) {
    List r;
    for (size_t k : idx) r.push_back((*obj.list)[k]);
    return Value::list_of(std::move(r));
  }
  std::string r;
  for (size_t k : idx) append_utf8(&r, cps[k]);
  return Value::string(std::move(r));
}

std::vector<Value> iterate(const Value& v, int line) {
  switch (v.kind) {
    case Value::Kind::Undefined: return {};
    case Value::Kind::List: return *v.list;
    case Value::Kind::Dict: {
      std::vector<Value> r;
      for (const auto& kv : *v.dict) r.push_back(Value::string(kv.first));
      return r;
    }
    case Value::Kind::String: {
      std::vector<Value> r;
      std::vector<uint32_t> cps = code_points(v.s);
      for (size_t k = 0; k < cps.size(); ++k) r.push_back(Value::string(utf8(cps, k, k + 1)));
      return r;
    }
    default: fail(line, std::string("'") + type_name(v) + "' object is not iterable");
  }
}

Value binary_op(const std::string& op, const Value& a, const Value& b, int line) {
  if (op == "~") return Value::string(to_str(a) + to_str(b));
  if (op == "==") return Value::boolean(equal(a, b));
  if (op == "!=") return Value::boolean(!equal(a, b));
  if (op == "in" || op == "not in") {
    bool found = false;
    if (b.is_string()) {
      if (!a.is_string()) fail(line, std::string("'in <string>' requires string as left operand, not ") + type_name(a));
      found = b.s.find(a.s) != std::string::npos;
    } else if (b.is_list()) {
      for (const Value& x : *b.list)
        if (equal(x, a)) { found = true; break; }
    } else if (b.dict) {
      found = a.is_string() && b.find(a.s);
    } else if (!b.is_undefined()) {
      fail(line, std::string("argument of type '") + type_name(b) + "' is not iterable");
    }
    return Value::boolean(op == "in" ? found : !found);
  }
  if (a.is_undefined()) undefined_error(a, line);
  if (b.is_undefined()) undefined_error(b, line);
  if (op == "<" || op == ">" || op == "<=" || op == ">=") {
    bool ok = true;
    bool r;
    if (op == "<") r = less(a, b, &ok);
    else if (op == ">") r = less(b, a, &ok);
    else if (op == "<=") r = !less(b, a, &ok);
    else r = !less(a, b, &ok);
    if (!ok) fail(line, "'" + op + "' not supported between instances of '" + type_name(a) + "' and '" + type_name(b) + "'");
    return Value::boolean(r);
  }
  bool fl = a.kind == Value::Kind::Float || b.kind == Value::Kind::Float;
  if (a.is_number() && b.is_number()) {
    if (op == "+") return fl ? Value::number(a.as_double() + b.as_double()) : Value::integer(a.as_int() + b.as_int());
    if (op == "-") return fl ? Value::number(a.as_double() - b.as_double()) : Value::integer(a.as_int() - b.as_int());
    if (op == "*") return fl ? Value::number(a.as_double() * b.as_double()) : Value::integer(a.as_int() * b.as_int());
    if (op == "/") {
      if (b.as_double() == 0) fail(line, "division by zero");
      return Value::number(a.as_double() / b.as_double());
    }
    if (op == "//" || op == "%") {
      if (b.as_double() == 0) fail(line, op == "//" ? "integer division or modulo by zero" : "modulo by zero");
      if (fl) {
        double x = a.as_double(), y = b.as_double();
        double m = std::fmod(x, y);
        if (m != 0 && ((m < 0) != (y < 0))) m += y;
        return op == "%" ? Value::number(m) : Value::number(std::floor(x / y));
      }
      int64_t x = a.as_int(), y = b.as_int();
      int64_t q = py_floordiv(x, y);
      return op == "//" ? Value::integer(q) : Value::integer(x - q * y);
    }
    if (op == "**") {
      if (!fl && b.as_int() >= 0) {
        double r = std::pow(a.as_double(), b.as_double());
        if (std::fabs(r) < 9.0e15) return Value::integer(static_cast<int64_t>(std::llround(r)));
        fail(line, "integer power too large");
      }
      return Value::number(std::pow(a.as_double(), b.as_double()));
    }
  }
  if (op == "+") {
    if (a.is_string() && b.is_string()) return Value::string(a.s + b.s);
    if (a.is_list() && b.is_list()) {
      List r = *a.list;
      r.insert(r.end(), b.list->begin(), b.list->end());
      return Value::list_of(std::move(r));
    }
    if (a.is_string()) fail(line, std::string("can only concatenate str (not \"") + type_name(b) + "\") to str");
  }
  if (op == "*") {
    const Value* seq = a.is_string() || a.is_list() ? &a : b.is_string() || b.is_list() ? &b : nullptr;
    const Value* cnt = seq == &a ? &b : &a;
    if (seq && (cnt->kind == Value::Kind::Int || cnt->kind == Value::Kind::Bool)) {
      int64_t n = std::max<int64_t>(0, cnt->as_int());
      size_t unit = seq->is_string() ? seq->s.size() : seq->list->size();
      if (unit && static_cast<uint64_t>(n) > kMaxItems * 64 / unit) fail(line, "the repeated value is too large");
      if (seq->is_string()) {
        std::string r;
        for (int64_t k = 0; k < n; ++k) r += seq->s;
        return Value::string(std::move(r));
      }
      List r;
      for (int64_t k = 0; k < n; ++k) r.insert(r.end(), seq->list->begin(), seq->list->end());
      return Value::list_of(std::move(r));
    }
  }
  if (op == "%" && a.is_string()) fail(line, "printf-style string formatting is not supported");
  fail(line, "unsupported operand type(s) for " + op + ": '" + type_name(a) + "' and '" + type_name(b) + "'");
}

bool apply_test(Evaluator& ev, const std::string& name, const Value& v, const std::vector<Value>& args, int line) {
  (void)ev;
  auto need = [&](size_t n) {
    if (args.size() < n) fail(line, "test '" + name + "' needs an argument");
  };
  using K = Value::Kind;
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "none") return v.is_none();
  if (name == "string") return v.is_string();
  if (name == "number") return v.is_number();
  if (name == "integer") return v.kind == K::Int;
  if (name == "float") return v.kind == K::Float;
  if (name == "boolean") return v.kind == K::Bool;
  if (name == "true") return v.kind == K::Bool && v.b;
  if (name == "false") return v.kind == K::Bool && !v.b;
  if (name == "mapping") return v.kind == K::Dict;
  if (name == "iterable") return v.is_string() || v.is_list() || v.is_dict() || v.is_undefined();
  if (name == "sequence") return v.is_string() || v.is_list() || v.is_dict() || v.is_undefined();
  if (name == "callable") return v.kind == K::Macro;
  if (name == "equalto" || name == "eq" || name == "==" || name == "sameas") { need(1); return equal(v, args[0]); }
  if (name == "ne" || name == "!=") { need(1); return !equal(v, args[0]); }
  if (name == "lt" || name == "lessthan" || name == "<") { need(1); return binary_op("<", v, args[0], line).b; }
  if (name == "le" || name == "<=") { need(1); return binary_op("<=", v, args[0], line).b; }
  if (name == "gt" || name == "greaterthan" || name == ">") { need(1); return binary_op(">", v, args[0], line).b; }
  if (name == "ge" || name == ">=") { need(1); return binary_op(">=", v, args[0], line).b; }
  if (name == "in") { need(1); return binary_op("in", v, args[0], line).b; }
  if (name == "odd" || name == "even") {
    int64_t x = want_int(v, line, "the value");
    return name == "odd" ? (x % 2 != 0) : (x % 2 == 0);
  }
  if (name == "divisibleby") {
    need(1);
    int64_t d = want_int(args[0], line, "the divisor");
    if (d == 0) fail(line, "modulo by zero");
    return want_int(v, line, "the value") % d == 0;
  }
  if (name == "lower" || name == "upper") {
    if (!v.is_string()) return false;
    bool cased = false;
    for (char c : v.s) {
      if (c >= 'a' && c <= 'z') { if (name == "upper") return false; cased = true; }
      if (c >= 'A' && c <= 'Z') { if (name == "lower") return false; cased = true; }
    }
    return cased;
  }
  fail(line, "unknown test '" + name + "'");
}

namespace {

// select / reject / selectattr / rejectattr
Value select_items(Evaluator& ev, const Value& seq, const std::vector<Value>& args, bool by_attr, bool keep, int line) {
  size_t at = 0;
  std::string attr;
  if (by_attr) {
    if (args.empty()) fail(line, "selectattr / rejectattr need an attribute name");
    attr = want_str(args[0], line, "the attribute name");
    at = 1;
  }
  std::string test;
  std::vector<Value> test_args;
  if (at < args.size()) {
    test = want_str(args[at], line, "the test name");
    test_args.assign(args.begin() + static_cast<long>(at) + 1, args.end());
  }
  List r;
  for (const Value& item : iterate(seq, line)) {
    ev.step(line);
    Value x = by_attr ? attribute_path(item, attr, line) : item;
    bool t = test.empty() ? x.truthy() : apply_test(ev, test, x, test_args, line);
    if (t == keep) r.push_back(item);
  }
  return Value::list_of(std::move(r));
}

std::string indent_text(const std::string& s, const std::string& pad, bool first, bool blank) {
  std::string r;
  size_t at = 0;
  bool is_first = true;
  while (true) {
    size_t nl = s.find('\n', at);
    std::string line = s.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    bool add = (!is_first || first) && (blank || !line.empty());
    if (!is_first) r += '\n';
    if (add) r += pad;
    r += line;
    is_first = false;
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return r;
}

}  // namespace

Value apply_filter(Evaluator& ev, const std::string& name, const Value& v, const std::vector<Value>& args,
                   const KwArgs& kw, int line) {
  ev.step(line);
  if (name == "default" || name == "d") {
    const Value* dflt = arg(args, kw, 0, "default_value");
    const Value* boolean = arg(args, kw, 1, "boolean");
    bool use = v.is_undefined() || (boolean && boolean->truthy() && !v.truthy());
    return use ? (dflt ? *dflt : Value::string("")) : v;
  }
  if (name == "tojson") {
    const Value* indent = arg(args, kw, 0, "indent");
    const Value* sort = kwarg(kw, "sort_keys");
    const Value* ascii = kwarg(kw, "ensure_ascii");
    if (kwarg(kw, "separators")) fail(line, "tojson(separators=...) is not supported");
    if (ascii && ascii->truthy()) fail(line, "tojson(ensure_ascii=true) is not supported");
    int ind = indent && !indent->is_none() ? static_cast<int>(want_int(*indent, line, "indent")) : -1;
    if (ind > 64) fail(line, "tojson indent too large");
    std::string out, err;
    if (!to_json(v, ind, sort && sort->truthy(), &out, &err)) fail(line, err);
    return Value::string(std::move(out));
  }
  if (v.is_undefined() && (name == "trim" || name == "lower" || name == "upper" || name == "string" || name == "capitalize" || name == "title"))
    return Value::string("");
  if (name == "string") return v.is_string() ? v : Value::string(to_str(v));
  if (name == "safe" || name == "e" || name == "escape" || name == "forceescape") {
    if (name != "safe") fail(line, "filter '" + name + "' is not supported");
    return v;
  }
  if (name == "length" || name == "count") return length_of(v, line);
  if (name == "list") return Value::list_of(iterate(v, line));
  if (name == "first" || name == "last") {
    std::vector<Value> items = iterate(v, line);
    if (items.empty()) return Value::undefined(name);
    return name == "first" ? items.front() : items.back();
  }
  if (name == "reverse") {
    if (v.is_string()) {
      std::vector<uint32_t> cps = code_points(v.s);
      std::reverse(cps.begin(), cps.end());
      return Value::string(utf8(cps, 0, cps.size()));
    }
    std::vector<Value> items = iterate(v, line);
    std::reverse(items.begin(), items.end());
    return Value::list_of(std::move(items));
  }
  if (name == "items") {
    if (v.is_undefined()) return Value::list_of({});
    if (!v.dict) fail(line, "items needs a mapping");
    List r;
    for (const auto& kv : *v.dict) r.push_back(Value::tuple_of({Value::string(kv.first), kv.second}));
    return Value::list_of(std::move(r));
  }
  if (name == "join") {
    const Value* sep = arg(args, kw, 0, "d");
    const Value* attr = arg(args, kw, 1, "attribute");
    std::string s = sep ? to_str(*sep) : "", r;
    bool first = true;
    for (const Value& x : iterate(v, line)) {
      r += (first ? "" : s) + to_str(attr ? attribute_path(x, to_str(*attr), line) : x);
      first = false;
      check_size(r.size(), line);
    }
    return Value::string(std::move(r));
  }
  if (name == "selectattr") return select_items(ev, v, args, true, true, line);
  if (name == "rejectattr") return select_items(ev, v, args, true, false, line);
  if (name == "select") return select_items(ev, v, args, false, true, line);
  if (name == "reject") return select_items(ev, v, args, false, false, line);
  if (name == "map") {
    List r;
    const Value* attr = kwarg(kw, "attribute");
    const Value* dflt = kwarg(kw, "default");
    for (const Value& x : iterate(v, line)) {
      if (attr) {
        Value y = attribute_path(x, to_str(*attr), line);
        r.push_back(y.is_undefined() && dflt ? *dflt : y);
      } else {
        if (args.empty()) fail(line, "map needs a filter name or attribute=");
        std::vector<Value> rest(args.begin() + 1, args.end());
        r.push_back(apply_filter(ev, want_str(args[0], line, "the filter name"), x, rest, {}, line));
      }
    }
    return Value::list_of(std::move(r));
  }
  if (name == "unique") {
    List r;
    for (const Value& x : iterate(v, line)) {
      bool seen = false;
      for (const Value& y : r) seen |= equal(x, y);
      if (!seen) r.push_back(x);
    }
    return Value::list_of(std::move(r));
  }
  if (name == "sort") {
    std::vector<Value> items = iterate(v, line);
    const Value* rev = arg(args, kw, 0, "reverse");
    const Value* attr = arg(args, kw, 2, "attribute");
    bool bad = false;
    std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) {
      bool ok = true;
      Value a = attr ? attribute_path(x, to_str(*attr), line) : x, b = attr ? attribute_path(y, to_str(*attr), line) : y;
      bool r = rev && rev->truthy() ? less(b, a, &ok) : less(a, b, &ok);
      bad |= !ok;
      return r;
    });
    if (bad) fail(line, "sort: the items cannot be ordered");
    return Value::list_of(std::move(items));
  }
  if (name == "dictsort") {
    if (!v.dict) fail(line, "dictsort needs a mapping");
    Dict d = *v.dict;
    std::stable_sort(d.begin(), d.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    List r;
    for (const auto& kv : d) r.push_back(Value::tuple_of({Value::string(kv.first), kv.second}));
    return Value::list_of(std::move(r));
  }
  if (name == "sum" || name == "min" || name == "max") {
    std::vector<Value> items = iterate(v, line);
    if (name == "sum") {
      const Value* attr = kwarg(kw, "attribute");
      Value total = kwarg(kw, "start") ? *kwarg(kw, "start") : Value::integer(0);
      for (const Value& x : items) total = binary_op("+", total, attr ? attribute_path(x, to_str(*attr), line) : x, line);
      return total;
    }
    if (items.empty()) return Value::undefined(name);
    Value best = items[0];
    for (const Value& x : items) {
      bool ok = true;
      bool better = name == "min" ? less(x, best, &ok) : less(best, x, &ok);
      if (!ok) fail(line, name + ": the items cannot be ordered");
      if (better) best = x;
    }
    return best;
  }
  if (name == "abs") {
    if (v.kind == Value::Kind::Float) return Value::number(std::fabs(v.f));
    if (v.is_number()) return Value::integer(std::llabs(v.as_int()));
    fail(line, "abs needs a number");
  }
  if (name == "int") {
    const Value* dflt = arg(args, kw, 0, "default");
    Value d = dflt ? *dflt : Value::integer(0);
    if (v.is_number()) return Value::integer(v.kind == Value::Kind::Float ? static_cast<int64_t>(std::trunc(v.f)) : v.as_int());
    if (v.is_string()) {
      std::string t = strip(v.s, nullptr, true, true, line);
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(t.c_str(), &end, 10);
      if (!t.empty() && end && *end == 0 && errno == 0) return Value::integer(x);
      double f = std::strtod(t.c_str(), &end);
      if (!t.empty() && end && *end == 0 && std::isfinite(f)) return Value::integer(static_cast<int64_t>(std::trunc(f)));
    }
    return d;
  }
  if (name == "float") {
    const Value* dflt = arg(args, kw, 0, "default");
    if (v.is_number()) return Value::number(v.as_double());
    if (v.is_string()) {
      std::string t = strip(v.s, nullptr, true, true, line);
      char* end = nullptr;
      double f = std::strtod(t.c_str(), &end);
      if (!t.empty() && end && *end == 0) return Value::number(f);
    }
    return dflt ? *dflt : Value::number(0);
  }
  if (name == "round") {
    const Value* prec = arg(args, kw, 0, "precision");
    const Value* method = arg(args, kw, 1, "method");
    int p = prec ? static_cast<int>(want_int(*prec, line, "precision")) : 0;
    std::string m = method ? to_str(*method) : "common";
    double x = v.as_double(), s = std::pow(10.0, p);
    double r = m == "floor" ? std::floor(x * s) / s : m == "ceil" ? std::ceil(x * s) / s : std::round(x * s) / s;
    return Value::number(r);
  }
  if (!v.is_string() && (name == "trim" || name == "lower" || name == "upper" || name == "capitalize" || name == "title" ||
                         name == "replace" || name == "indent" || name == "wordcount" || name == "center" || name == "truncate"))
    return apply_filter(ev, name, Value::string(to_str(v)), args, kw, line);
  if (name == "trim") return Value::string(strip(v.s, arg(args, kw, 0, "chars"), true, true, line));
  if (name == "lower") return Value::string(py_lower(v.s));
  if (name == "upper") return Value::string(py_upper(v.s));
  if (name == "title") return Value::string(py_title(v.s));
  if (name == "capitalize") return Value::string(py_capitalize(v.s));
  if (name == "replace") {
    const Value* from = arg(args, kw, 0, "old");
    const Value* to = arg(args, kw, 1, "new");
    const Value* count = arg(args, kw, 2, "count");
    if (!from || !to) fail(line, "replace needs two arguments");
    std::string r = replace_all(v.s, to_str(*from), to_str(*to), count && !count->is_none() ? want_int(*count, line, "count") : -1);
    check_size(r.size(), line);
    return Value::string(std::move(r));
  }
  if (name == "indent") {
    const Value* width = arg(args, kw, 0, "width");
    const Value* first = arg(args, kw, 1, "first");
    const Value* blank = arg(args, kw, 2, "blank");
    std::string pad = width && width->is_string() ? width->s : std::string(static_cast<size_t>(std::clamp<int64_t>(width ? want_int(*width, line, "width") : 4, 0, 256)), ' ');
    return Value::string(indent_text(v.s, pad, first && first->truthy(), blank && blank->truthy()));
  }
  if (name == "wordcount") return Value::integer(static_cast<int64_t>(split(v.s, nullptr, -1, line).size()));
  fail(line, "unknown filter '" + name + "'");
}

Value call_method(Evaluator& ev, const Value& obj, const std::string& name, const std::vector<Value>& args,
                  const KwArgs& kw, int line) {
  ev.step(line);
  if (obj.is_string()) {
    const std::string& s = obj.s;
    if (name == "strip") return Value::string(strip(s, arg(args, kw, 0, "chars"), true, true, line));
    if (name == "lstrip") return Value::string(strip(s, arg(args, kw, 0, "chars"), true, false, line));
    if (name == "rstrip") return Value::string(strip(s, arg(args, kw, 0, "chars"), false, true, line));
    if (name == "split" || name == "rsplit") {
      const Value* maxsplit = arg(args, kw, 1, "maxsplit");
      int64_t m = maxsplit ? want_int(*maxsplit, line, "maxsplit") : -1;
      const Value* sep = arg(args, kw, 0, "sep");
      if (name == "rsplit" && m >= 0) {
        // rsplit with a limit: split all, then join the leading parts back
        std::vector<Value> all = split(s, sep, -1, line);
        if (!sep || sep->is_none()) fail(line, "rsplit(None, maxsplit) is not supported");
        if (static_cast<int64_t>(all.size()) > m + 1) {
          std::string head;
          size_t keep = all.size() - static_cast<size_t>(m);
          for (size_t k = 0; k < keep; ++k) head += (k ? sep->s : "") + all[k].s;
          std::vector<Value> r{Value::string(head)};
          r.insert(r.end(), all.begin() + static_cast<long>(keep), all.end());
          return Value::list_of(std::move(r));
        }
        return Value::list_of(std::move(all));
      }
      return Value::list_of(split(s, sep, m, line));
    }
    if (name == "splitlines") {
      List r;
      size_t at = 0;
      while (at < s.size()) {
        size_t nl = s.find_first_of("\n\r", at);
        if (nl == std::string::npos) { r.push_back(Value::string(s.substr(at))); break; }
        r.push_back(Value::string(s.substr(at, nl - at)));
        at = nl + ((s[nl] == '\r' && nl + 1 < s.size() && s[nl + 1] == '\n') ? 2 : 1);
      }
      return Value::list_of(std::move(r));
    }
    if (name == "startswith" || name == "endswith") {
      if (args.empty()) fail(line, name + " needs an argument");
      std::vector<Value> options = args[0].is_list() ? *args[0].list : std::vector<Value>{args[0]};
      for (const Value& o : options) {
        const std::string& p = want_str(o, line, "the prefix");
        if (p.size() > s.size()) continue;
        if (name == "startswith" ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0) return Value::boolean(true);
      }
      return Value::boolean(false);
    }
    if (name == "upper") return Value::string(py_upper(s));
    if (name == "lower") return Value::string(py_lower(s));
    if (name == "title") return Value::string(py_title(s));
    if (name == "capitalize") return apply_filter(ev, "capitalize", obj, {}, {}, line);
    if (name == "replace") return apply_filter(ev, "replace", obj, args, kw, line);
    if (name == "find" || name == "rfind" || name == "index" || name == "count") {
      if (args.empty()) fail(line, name + " needs an argument");
      const std::string& sub = want_str(args[0], line, "the substring");
      if (name == "count") {
        if (sub.empty()) return Value::integer(static_cast<int64_t>(code_points(s).size()) + 1);
        int64_t n = 0;
        for (size_t at = s.find(sub); at != std::string::npos; at = s.find(sub, at + sub.size())) ++n;
        return Value::integer(n);
      }
      size_t at = name == "rfind" ? s.rfind(sub) : s.find(sub);
      if (at == std::string::npos) {
        if (name == "index") fail(line, "substring not found");
        return Value::integer(-1);
      }
      return Value::integer(static_cast<int64_t>(code_points(s.substr(0, at)).size()));
    }
    if (name == "join") {
      if (args.empty()) fail(line, "join needs an argument");
      std::string r;
      bool first = true;
      for (const Value& x : iterate(args[0], line)) {
        r += (first ? "" : s) + want_str(x, line, "each joined item");
        first = false;
        check_size(r.size(), line);
      }
      return Value::string(std::move(r));
    }
    if (name == "removeprefix" || name == "removesuffix") {
      if (args.empty()) fail(line, name + " needs an argument");
      const std::string& p = want_str(args[0], line, "the affix");
      if (name == "removeprefix" && s.compare(0, p.size(), p) == 0) return Value::string(s.substr(p.size()));
      if (name == "removesuffix" && p.size() <= s.size() && s.compare(s.size() - p.size(), p.size(), p) == 0 && !p.empty())
        return Value::string(s.substr(0, s.size() - p.size()));
      return obj;
    }
    if (name == "isdigit" || name == "isalpha" || name == "isalnum" || name == "isspace") {
      if (s.empty()) return Value::boolean(false);
      for (uint32_t c : code_points(s)) {
        bool d = c >= '0' && c <= '9', a = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool ok = name == "isdigit" ? d : name == "isalpha" ? a : name == "isalnum" ? (a || d) : py_isspace(c);
        if (!ok) return Value::boolean(false);
      }
      return Value::boolean(true);
    }
    if (name == "islower" || name == "isupper") return Value::boolean(apply_test(ev, name.substr(2), obj, {}, line));
  } else if (obj.kind == Value::Kind::Dict) {
    if (obj.s == "loop" && name == "cycle") {
      if (args.empty()) fail(line, "loop.cycle needs arguments");
      int64_t i = obj.find("index0")->i;
      return args[static_cast<size_t>(i % static_cast<int64_t>(args.size()))];
    }
    if (name == "items") {
      List r;
      for (const auto& kv : *obj.dict) r.push_back(Value::tuple_of({Value::string(kv.first), kv.second}));
      return Value::list_of(std::move(r));
    }
    if (name == "keys" || name == "values") {
      List r;
      for (const auto& kv : *obj.dict) r.push_back(name == "keys" ? Value::string(kv.first) : kv.second);
      return Value::list_of(std::move(r));
    }
    if (name == "get") {
      if (args.empty()) fail(line, "get needs a key");
      if (args[0].is_string())
        if (const Value* x = obj.find(args[0].s)) return *x;
      return args.size() > 1 ? args[1] : Value::none();
    }
  } else if (obj.is_list()) {
    if (name == "append" || name == "extend" || name == "pop" || name == "insert" || name == "remove" || name == "clear" ||
        name == "sort" || name == "reverse")
      fail(line, "access to attribute '" + name + "' of 'list' object is unsafe");
    if (name == "index" || name == "count") {
      if (args.empty()) fail(line, name + " needs an argument");
      int64_t n = 0;
      for (size_t k = 0; k < obj.list->size(); ++k) {
        if (!equal((*obj.list)[k], args[0])) continue;
        if (name == "index") return Value::integer(static_cast<int64_t>(k));
        ++n;
      }
      if (name == "index") fail(line, "the value is not in the list");
      return Value::integer(n);
    }
  }
  fail(line, std::string("'") + type_name(obj) + "' object has no method '" + name + "'");
}

Value call_global(Evaluator& ev, const std::string& name, const std::vector<Value>& args, const KwArgs& kw, int line) {
  if (name == "raise_exception") throw RaiseError{args.empty() ? std::string() : to_str(args[0])};
  if (name == "namespace" || name == "dict") {
    Dict d;
    if (!args.empty()) {
      if (!args[0].dict) fail(line, name + "() takes keyword arguments or a mapping");
      d = *args[0].dict;
    }
    Value r = name == "namespace" ? Value::namespace_of(std::move(d)) : Value::dict_of(std::move(d));
    for (const auto& a : kw) r.set(a.first, a.second);
    return r;
  }
  if (name == "range") {
    if (args.empty() || args.size() > 3) fail(line, "range takes 1 to 3 arguments");
    int64_t start = 0, stop, step = 1;
    if (args.size() == 1) stop = want_int(args[0], line, "range's argument");
    else {
      start = want_int(args[0], line, "range's start");
      stop = want_int(args[1], line, "range's stop");
      if (args.size() == 3) step = want_int(args[2], line, "range's step");
    }
    if (step == 0) fail(line, "range() step must not be zero");
    // the length first (unsigned: the ends may be anywhere in int64), so that a huge range
    // fails at once rather than after building a million values
    uint64_t count = 0;
    if (step > 0 ? stop > start : start > stop) {
      uint64_t span = step > 0 ? static_cast<uint64_t>(stop) - static_cast<uint64_t>(start)
                               : static_cast<uint64_t>(start) - static_cast<uint64_t>(stop);
      uint64_t mag = step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
      count = (span - 1) / mag + 1;
    }
    if (count > kMaxItems) fail(line, "range too large");
    List r;
    r.reserve(static_cast<size_t>(count));
    for (uint64_t k = 0; k < count; ++k)
      r.push_back(Value::integer(static_cast<int64_t>(static_cast<uint64_t>(start) + k * static_cast<uint64_t>(step))));
    return Value::list_of(std::move(r));
  }
  if (name == "strftime_now") {
    if (args.empty()) fail(line, "strftime_now needs a format");
    const std::string& fmt = want_str(args[0], line, "the format");
    std::tm tm{};
    if (ev.now()) {
      std::time_t t = ev.now();
      gmtime_r(&t, &tm);
    } else {
      std::time_t t = std::time(nullptr);
      localtime_r(&t, &tm);
    }
    char buf[512];
    size_t n = std::strftime(buf, sizeof buf, fmt.c_str(), &tm);
    if (n == 0 && !fmt.empty()) fail(line, "strftime_now: the format gives an empty or too long text");
    return Value::string(std::string(buf, n));
  }
  fail(line, "'" + name + "' is undefined");
}

}  // namespace pte::jinja
