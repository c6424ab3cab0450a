// Lexer and parser of the Jinja subset (see jinja.h). Whitespace handling follows
// Jinja2 with trim_blocks and lstrip_blocks (transformers' settings): newlines are
// normalized to \n and one trailing newline of the source is dropped.
#include <cstdlib>
#include <cstring>

#include "chat/ast.h"
#include "chat/parse.h"

namespace pte::jinja {

namespace {

struct Token {
  enum class T { Name, Int, Float, Str, Op, End };
  T t = T::End;
  std::string s;
  int64_t i = 0;
  double f = 0;
  int line = 0;
};

struct Segment {
  enum class T { Text, Var, Block } t = T::Text;
  std::string text;
  std::vector<Token> tokens;
  int line = 0;
};

[[noreturn]] void fail(int line, const std::string& msg) { throw ParseError{line, msg}; }

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Python's unicode-escape of a Jinja string literal's body (unknown escapes are kept).
std::string unescape(const std::string& body, int line) {
  std::string r;
  for (size_t k = 0; k < body.size(); ++k) {
    char c = body[k];
    if (c != '\\' || k + 1 >= body.size()) { r += c; continue; }
    char e = body[++k];
    auto hex = [&](int n) {
      uint32_t v = 0;
      for (int d = 0; d < n; ++d) {
        if (k + 1 >= body.size()) fail(line, "truncated \\x/\\u escape in a string");
        char h = body[++k];
        v <<= 4;
        if (h >= '0' && h <= '9') v |= h - '0';
        else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
        else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
        else fail(line, "bad hex digit in a string escape");
      }
      if (v > 0x10FFFF) fail(line, "escape out of the Unicode range");
      append_utf8(&r, v);
    };
    switch (e) {
      case '\n': break;
      case '\\': r += '\\'; break;
      case '\'': r += '\''; break;
      case '"': r += '"'; break;
      case 'a': r += '\a'; break;
      case 'b': r += '\b'; break;
      case 'f': r += '\f'; break;
      case 'n': r += '\n'; break;
      case 'r': r += '\r'; break;
      case 't': r += '\t'; break;
      case 'v': r += '\v'; break;
      case 'x': hex(2); break;
      case 'u': hex(4); break;
      case 'U': hex(8); break;
      default:
        if (e >= '0' && e <= '7') {
          uint32_t v = e - '0';
          for (int d = 0; d < 2 && k + 1 < body.size() && body[k + 1] >= '0' && body[k + 1] <= '7'; ++d) v = v * 8 + (body[++k] - '0');
          append_utf8(&r, v);
        } else {
          r += '\\';
          r += e;
        }
    }
  }
  return r;
}

class Lexer {
 public:
  explicit Lexer(const std::string& src) {
    // newlines normalized, one trailing newline dropped (keep_trailing_newline=False)
    for (size_t k = 0; k < src.size(); ++k) {
      if (src[k] == '\r') {
        s_ += '\n';
        if (k + 1 < src.size() && src[k + 1] == '\n') ++k;
      } else {
        s_ += src[k];
      }
    }
    if (!s_.empty() && s_.back() == '\n') s_.pop_back();
  }

  std::vector<Segment> run() {
    std::vector<Segment> segs;
    bool strip_next = false;  // the previous tag ended with '-'
    bool trim_next = false;   // the previous block tag ended without '-' or '+' (trim_blocks)
    while (pos_ < s_.size()) {
      size_t at = find_tag(pos_);
      std::string text = s_.substr(pos_, at - pos_);
      int text_line = line_;
      advance_lines(pos_, at);
      pos_ = at;
      // the tag, if any
      char kind = at < s_.size() ? s_[at + 1] : 0;
      bool open_minus = false, open_plus = false;
      if (kind) {
        char m = at + 2 < s_.size() ? s_[at + 2] : 0;
        open_minus = m == '-';
        open_plus = m == '+';
      }
      // whitespace control on the text before the tag; line_starting: the text begins a
      // line (template start, or the previous tag's whitespace control ate a newline)
      bool line_starting = segs.empty() && !after_tag_;
      if (strip_next) {
        std::string kept = lstrip_all(text);
        size_t removed = text.size() - kept.size();
        line_starting = removed > 0 && text[removed - 1] == '\n';
        text = std::move(kept);
      } else if (trim_next && !text.empty() && text[0] == '\n') {
        text.erase(0, 1);
        line_starting = true;
      }
      after_tag_ = true;
      if (kind && open_minus) {
        text = rstrip_all(text);
      } else if ((kind == '%' || kind == '#') && !open_plus) {
        // lstrip_blocks: spaces and tabs between the line start and the tag go
        size_t nl = text.rfind('\n');
        size_t from = nl == std::string::npos ? 0 : nl + 1;
        bool line_start = nl != std::string::npos || line_starting;
        if (line_start && text.find_first_not_of(" \t", from) == std::string::npos) text.erase(from);
      }
      if (!text.empty()) {
        Segment t;
        t.t = Segment::T::Text;
        t.text = std::move(text);
        t.line = text_line;
        segs.push_back(std::move(t));
      }
      strip_next = trim_next = false;
      if (!kind) break;
      pos_ = at + 2 + ((open_minus || open_plus) ? 1 : 0);
      int tag_line = line_;
      bool close_minus = false, close_plus = false;
      if (kind == '#') {
        size_t end = s_.find("#}", pos_);
        if (end == std::string::npos) fail(tag_line, "unclosed comment {#");
        close_minus = end > pos_ && s_[end - 1] == '-';
        close_plus = end > pos_ && s_[end - 1] == '+';
        advance_lines(pos_, end + 2);
        pos_ = end + 2;
        strip_next = close_minus;
        trim_next = !close_minus && !close_plus;
        continue;
      }
      Segment seg;
      seg.t = kind == '{' ? Segment::T::Var : Segment::T::Block;
      seg.line = tag_line;
      lex_tag(kind == '{' ? '}' : '%', &seg.tokens, &close_minus, &close_plus);
      if (seg.t == Segment::T::Block && !seg.tokens.empty() && seg.tokens[0].t == Token::T::Name && seg.tokens[0].s == "raw") {
        // {% raw %} ... {% endraw %}: the text verbatim
        size_t end = pos_;
        size_t body_start = pos_;
        while (true) {
          end = s_.find("{%", end);
          if (end == std::string::npos) fail(tag_line, "unclosed {% raw %}");
          size_t p = end + 2;
          bool em = p < s_.size() && (s_[p] == '-' || s_[p] == '+');
          if (em) ++p;
          while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\n')) ++p;
          if (s_.compare(p, 6, "endraw") == 0) {
            std::string body = s_.substr(body_start, end - body_start);
            if (close_minus) body = lstrip_all(body);
            else if (!close_plus && !body.empty() && body[0] == '\n') body.erase(0, 1);
            if (em && s_[end + 2] == '-') body = rstrip_all(body);
            size_t close = s_.find("%}", p);
            if (close == std::string::npos) fail(tag_line, "unclosed {% endraw %}");
            bool cm = s_[close - 1] == '-', cp = s_[close - 1] == '+';
            advance_lines(pos_, close + 2);
            pos_ = close + 2;
            Segment t;
            t.t = Segment::T::Text;
            t.text = body;
            t.line = tag_line;
            if (!body.empty()) segs.push_back(std::move(t));
            strip_next = cm;
            trim_next = !cm && !cp;
            break;
          }
          end += 2;
        }
        continue;
      }
      segs.push_back(std::move(seg));
      strip_next = close_minus;
      trim_next = kind == '%' && !close_minus && !close_plus;
    }
    return segs;
  }

 private:
  size_t find_tag(size_t from) const {
    while (true) {
      size_t at = s_.find('{', from);
      if (at == std::string::npos || at + 1 >= s_.size()) return s_.size();
      char c = s_[at + 1];
      if (c == '{' || c == '%' || c == '#') return at;
      from = at + 1;
    }
  }
  void advance_lines(size_t from, size_t to) {
    for (size_t k = from; k < to && k < s_.size(); ++k)
      if (s_[k] == '\n') ++line_;
  }
  static std::string lstrip_all(const std::string& t) {
    size_t k = t.find_first_not_of(" \t\n\r\f\v");
    return k == std::string::npos ? "" : t.substr(k);
  }
  static std::string rstrip_all(const std::string& t) {
    size_t k = t.find_last_not_of(" \t\n\r\f\v");
    return k == std::string::npos ? "" : t.substr(0, k + 1);
  }

  // Tokens of a tag up to its closing "}}" / "%}" at bracket depth 0.
  void lex_tag(char close, std::vector<Token>* out, bool* minus, bool* plus) {
    int depth = 0;
    while (true) {
      while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) {
        if (s_[pos_] == '\n') ++line_;
        ++pos_;
      }
      if (pos_ >= s_.size()) fail(line_, close == '}' ? "unclosed {{" : "unclosed {%");
      char c = s_[pos_];
      if (depth == 0) {
        if ((c == '-' || c == '+') && s_.compare(pos_ + 1, 2, std::string(1, close) + "}") == 0) {
          *minus = c == '-';
          *plus = c == '+';
          pos_ += 3;
          return;
        }
        if (c == close && pos_ + 1 < s_.size() && s_[pos_ + 1] == '}') {
          pos_ += 2;
          return;
        }
      }
      Token t;
      t.line = line_;
      if (is_name_start(c)) {
        size_t b = pos_;
        while (pos_ < s_.size() && (is_name_start(s_[pos_]) || is_digit(s_[pos_]))) ++pos_;
        t.t = Token::T::Name;
        t.s = s_.substr(b, pos_ - b);
      } else if (is_digit(c)) {
        size_t b = pos_;
        bool is_float = false;
        while (pos_ < s_.size() && (is_digit(s_[pos_]) || s_[pos_] == '_')) ++pos_;
        if (pos_ + 1 < s_.size() && s_[pos_] == '.' && is_digit(s_[pos_ + 1])) {
          is_float = true;
          ++pos_;
          while (pos_ < s_.size() && (is_digit(s_[pos_]) || s_[pos_] == '_')) ++pos_;
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
          size_t q = pos_ + 1;
          if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) ++q;
          if (q < s_.size() && is_digit(s_[q])) {
            is_float = true;
            pos_ = q;
            while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
          }
        }
        std::string num;
        for (size_t k = b; k < pos_; ++k)
          if (s_[k] != '_') num += s_[k];
        if (is_float) {
          t.t = Token::T::Float;
          t.f = std::strtod(num.c_str(), nullptr);
        } else {
          t.t = Token::T::Int;
          errno = 0;
          t.i = std::strtoll(num.c_str(), nullptr, 10);
          if (errno == ERANGE) fail(line_, "integer literal too large");
        }
      } else if (c == '\'' || c == '"') {
        size_t k = pos_ + 1;
        std::string body;
        while (k < s_.size() && s_[k] != c) {
          if (s_[k] == '\\' && k + 1 < s_.size()) body += s_[k++];
          if (s_[k] == '\n') ++line_;
          body += s_[k++];
        }
        if (k >= s_.size()) fail(t.line, "unterminated string literal");
        pos_ = k + 1;
        t.t = Token::T::Str;
        t.s = unescape(body, t.line);
      } else {
        static const char* ops[] = {"//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">", "=",
                                    "(", ")", "[", "]", "{", "}", ",", ".", ":", "|"};
        const char* hit = nullptr;
        for (const char* o : ops)
          if (s_.compare(pos_, std::strlen(o), o) == 0) { hit = o; break; }
        if (!hit) fail(line_, std::string("unexpected character '") + c + "'");
        t.t = Token::T::Op;
        t.s = hit;
        pos_ += std::strlen(hit);
        if (t.s == "(" || t.s == "[" || t.s == "{") ++depth;
        if ((t.s == ")" || t.s == "]" || t.s == "}") && depth > 0) --depth;
      }
      out->push_back(std::move(t));
    }
  }

  std::string s_;
  size_t pos_ = 0;
  int line_ = 1;
  bool after_tag_ = false;
};

constexpr int kMaxDepth = 200;

class Parser {
 public:
  explicit Parser(std::vector<Segment> segs) : segs_(std::move(segs)) {}

  Body parse_all() {
    Body b = parse_body({});
    if (seg_ < segs_.size()) fail(segs_[seg_].line, "unexpected '" + block_name(segs_[seg_]) + "'");
    return b;
  }

 private:
  static std::string block_name(const Segment& s) {
    return s.tokens.empty() || s.tokens[0].t != Token::T::Name ? "" : s.tokens[0].s;
  }

  // Statements until a block tag whose name is in `ends` (left unconsumed).
  Body parse_body(const std::vector<std::string>& ends) {
    if (++nest_ > kMaxDepth) fail(seg_ < segs_.size() ? segs_[seg_].line : 0, "blocks nested too deeply");
    Body body;
    while (seg_ < segs_.size()) {
      Segment& s = segs_[seg_];
      if (s.t == Segment::T::Text) {
        Node n;
        n.kind = Node::Kind::Text;
        n.text = s.text;
        n.line = s.line;
        body.push_back(std::move(n));
        ++seg_;
        continue;
      }
      toks_ = &s.tokens;
      tok_ = 0;
      if (s.t == Segment::T::Var) {
        Node n;
        n.kind = Node::Kind::Output;
        n.line = s.line;
        if (toks_->empty()) fail(s.line, "empty {{ }}");
        n.expr = parse_expression(true);
        expect_end();
        body.push_back(std::move(n));
        ++seg_;
        continue;
      }
      std::string name = block_name(s);
      if (name.empty()) fail(s.line, "a block tag must start with a statement name");
      for (const auto& e : ends)
        if (name == e) { --nest_; return body; }
      body.push_back(parse_statement(name, s.line));
    }
    if (!ends.empty()) fail(segs_.empty() ? 0 : segs_.back().line, "missing {% " + ends.back() + " %}");
    --nest_;
    return body;
  }

  // The current segment is the block tag `name`; consumes through its end tag.
  Node parse_statement(const std::string& name, int line) {
    Node n;
    n.line = line;
    tok_ = 1;
    if (name == "if") {
      n.kind = Node::Kind::If;
      ExprP cond = parse_expression(true);
      expect_end();
      ++seg_;
      while (true) {
        Body b = parse_body({"elif", "else", "endif"});
        n.branches.emplace_back(std::move(cond), std::move(b));
        std::string tag = enter_tag();
        if (tag == "elif") {
          cond = parse_expression(true);
          expect_end();
          ++seg_;
          continue;
        }
        if (tag == "else") {
          expect_end();
          ++seg_;
          n.body = parse_body({"endif"});
          enter_tag();
        }
        expect_end();
        ++seg_;
        break;
      }
    } else if (name == "for") {
      n.kind = Node::Kind::For;
      bool paren = accept_op("(");
      do {
        n.targets.push_back(expect_name());
      } while (accept_op(","));
      if (paren) expect_op(")");
      if (!accept_name("in")) fail(line, "expected 'in' in a for loop");
      n.expr = parse_tuple_or_expr(false);
      if (accept_name("if")) n.filter = parse_expression(true);
      if (accept_name("recursive")) fail(line, "recursive loops are not supported");
      expect_end();
      ++seg_;
      n.body = parse_body({"else", "endfor"});
      if (enter_tag() == "else") {
        expect_end();
        ++seg_;
        n.else_body = parse_body({"endfor"});
        enter_tag();
      }
      expect_end();
      ++seg_;
    } else if (name == "set") {
      std::string first = expect_name();
      if (accept_op(".")) {
        n.attr = expect_name();
        n.text = first;
      } else {
        n.targets.push_back(first);
        while (accept_op(",")) n.targets.push_back(expect_name());
      }
      if (accept_op("=")) {
        n.kind = Node::Kind::Set;
        n.expr = parse_tuple_or_expr(true);
        expect_end();
        ++seg_;
      } else {
        if (!n.attr.empty() || n.targets.size() != 1) fail(line, "a {% set %} block takes one name");
        n.kind = Node::Kind::SetBlock;
        n.text = first;
        if (at_op("|")) fail(line, "filtered {% set %} blocks are not supported");
        expect_end();
        ++seg_;
        n.body = parse_body({"endset"});
        enter_tag();
        expect_end();
        ++seg_;
      }
    } else if (name == "macro") {
      n.kind = Node::Kind::Macro;
      n.text = expect_name();
      expect_op("(");
      if (!accept_op(")")) {
        do {
          std::string p = expect_name();
          ExprP def;
          if (accept_op("=")) def = parse_expression(true);
          n.params.emplace_back(p, std::move(def));
        } while (accept_op(","));
        expect_op(")");
      }
      expect_end();
      ++seg_;
      n.body = parse_body({"endmacro"});
      enter_tag();
      accept_name(n.text);
      expect_end();
      ++seg_;
    } else if (name == "break" || name == "continue") {
      n.kind = name == "break" ? Node::Kind::Break : Node::Kind::Continue;
      expect_end();
      ++seg_;
    } else if (name == "generation") {
      // transformers' assistant-mask extension: renders its content
      n.kind = Node::Kind::Block;
      expect_end();
      ++seg_;
      n.body = parse_body({"endgeneration"});
      enter_tag();
      expect_end();
      ++seg_;
    } else if (name.compare(0, 3, "end") == 0 || name == "elif" || name == "else") {
      fail(line, "unexpected '" + name + "'");
    } else {
      fail(line, "unknown or unsupported statement '" + name + "'");
    }
    return n;
  }

  // Points the token cursor into the current block tag, past its name; returns the name.
  std::string enter_tag() {
    Segment& s = segs_[seg_];
    toks_ = &s.tokens;
    tok_ = 1;
    return block_name(s);
  }

  // ---- tokens
  const Token& peek(size_t ahead = 0) const {
    static const Token end;
    return tok_ + ahead < toks_->size() ? (*toks_)[tok_ + ahead] : end;
  }
  int line() const { return peek().t == Token::T::End ? (toks_->empty() ? 0 : toks_->back().line) : peek().line; }
  bool at_op(const char* o) const { return peek().t == Token::T::Op && peek().s == o; }
  bool at_name(const char* n) const { return peek().t == Token::T::Name && peek().s == n; }
  bool accept_op(const char* o) {
    if (!at_op(o)) return false;
    ++tok_;
    return true;
  }
  bool accept_name(const std::string& n) {
    if (peek().t != Token::T::Name || peek().s != n) return false;
    ++tok_;
    return true;
  }
  void expect_op(const char* o) {
    if (!accept_op(o)) fail(line(), std::string("expected '") + o + "'" + got());
  }
  std::string expect_name() {
    if (peek().t != Token::T::Name) fail(line(), "expected a name" + got());
    return (*toks_)[tok_++].s;
  }
  void expect_end() {
    if (peek().t != Token::T::End) fail(line(), "unexpected" + got() + " (expected the end of the tag)");
  }
  std::string got() const {
    const Token& t = peek();
    switch (t.t) {
      case Token::T::End: return ", got the end of the tag";
      case Token::T::Str: return ", got a string";
      case Token::T::Int: case Token::T::Float: return ", got a number";
      default: return ", got '" + t.s + "'";
    }
  }

  ExprP make(Expr::Op op, int ln) {
    ExprP e = std::make_unique<Expr>();
    e->op = op;
    e->line = ln;
    return e;
  }

  // ---- expressions (Jinja2's precedence)
  ExprP parse_tuple_or_expr(bool with_cond) {
    int ln = line();
    ExprP first = parse_expression(with_cond);
    if (!at_op(",")) return first;
    ExprP t = make(Expr::Op::ListLit, ln);
    t->name = "tuple";
    t->args.push_back(std::move(first));
    while (accept_op(",")) {
      if (peek().t == Token::T::End) break;
      t->args.push_back(parse_expression(with_cond));
    }
    return t;
  }

  ExprP parse_expression(bool with_cond) {
    if (++depth_ > kMaxDepth) fail(line(), "expression nested too deeply");
    ExprP e = with_cond ? parse_cond() : parse_or();
    --depth_;
    return e;
  }

  ExprP parse_cond() {
    ExprP e = parse_or();
    while (at_name("if")) {
      int ln = line();
      ++tok_;
      ExprP c = make(Expr::Op::Cond, ln);
      ExprP cond = parse_or();
      ExprP other;
      if (accept_name("else")) other = parse_cond();
      c->args.push_back(std::move(e));
      c->args.push_back(std::move(cond));
      c->args.push_back(std::move(other));
      e = std::move(c);
    }
    return e;
  }

  ExprP binary(const std::string& op, ExprP a, ExprP b, int ln) {
    ExprP e = make(Expr::Op::Binary, ln);
    e->name = op;
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  }

  ExprP parse_or() {
    ExprP e = parse_and();
    while (at_name("or")) {
      int ln = line();
      ++tok_;
      e = binary("or", std::move(e), parse_and(), ln);
    }
    return e;
  }
  ExprP parse_and() {
    ExprP e = parse_not();
    while (at_name("and")) {
      int ln = line();
      ++tok_;
      e = binary("and", std::move(e), parse_not(), ln);
    }
    return e;
  }
  ExprP parse_not() {
    if (at_name("not")) {
      int ln = line();
      ++tok_;
      if (++depth_ > kMaxDepth) fail(ln, "expression nested too deeply");
      ExprP e = make(Expr::Op::Not, ln);
      e->args.push_back(parse_not());
      --depth_;
      return e;
    }
    return parse_compare();
  }
  ExprP parse_compare() {
    int ln = line();
    ExprP e = parse_math1();
    bool compared = false;
    while (true) {
      std::string op;
      if (peek().t == Token::T::Op && (peek().s == "==" || peek().s == "!=" || peek().s == "<" || peek().s == ">" ||
                                       peek().s == "<=" || peek().s == ">=")) {
        op = peek().s;
        ++tok_;
      } else if (at_name("in")) {
        op = "in";
        ++tok_;
      } else if (at_name("not") && peek(1).t == Token::T::Name && peek(1).s == "in") {
        op = "not in";
        tok_ += 2;
      } else {
        break;
      }
      if (compared) fail(ln, "chained comparisons are not supported");
      compared = true;
      e = binary(op, std::move(e), parse_math1(), ln);
    }
    return e;
  }
  ExprP parse_math1() {
    ExprP e = parse_concat();
    while (at_op("+") || at_op("-")) {
      int ln = line();
      std::string op = (*toks_)[tok_++].s;
      e = binary(op, std::move(e), parse_concat(), ln);
    }
    return e;
  }
  ExprP parse_concat() {
    ExprP e = parse_math2();
    while (at_op("~")) {
      int ln = line();
      ++tok_;
      e = binary("~", std::move(e), parse_math2(), ln);
    }
    return e;
  }
  ExprP parse_math2() {
    ExprP e = parse_pow();
    while (at_op("*") || at_op("/") || at_op("//") || at_op("%")) {
      int ln = line();
      std::string op = (*toks_)[tok_++].s;
      e = binary(op, std::move(e), parse_pow(), ln);
    }
    return e;
  }
  ExprP parse_pow() {
    ExprP e = parse_unary(true);
    while (at_op("**")) {
      int ln = line();
      ++tok_;
      e = binary("**", std::move(e), parse_unary(true), ln);
    }
    return e;
  }
  ExprP parse_unary(bool with_filter) {
    int ln = line();
    ExprP e;
    if (at_op("-") || at_op("+")) {
      bool neg = at_op("-");
      ++tok_;
      if (++depth_ > kMaxDepth) fail(ln, "expression nested too deeply");
      e = make(neg ? Expr::Op::Neg : Expr::Op::Pos, ln);
      e->args.push_back(parse_unary(false));
      --depth_;
    } else {
      e = parse_primary();
    }
    e = parse_postfix(std::move(e));
    if (with_filter) e = parse_filters(std::move(e));
    return e;
  }

  ExprP parse_primary() {
    const Token& t = peek();
    int ln = line();
    if (t.t == Token::T::Name) {
      ++tok_;
      ExprP e = make(Expr::Op::Literal, ln);
      if (t.s == "true" || t.s == "True") e->value = Value::boolean(true);
      else if (t.s == "false" || t.s == "False") e->value = Value::boolean(false);
      else if (t.s == "none" || t.s == "None") e->value = Value::none();
      else { e->op = Expr::Op::Name; e->name = t.s; }
      return e;
    }
    if (t.t == Token::T::Str) {
      std::string s;
      while (peek().t == Token::T::Str) s += (*toks_)[tok_++].s;
      ExprP e = make(Expr::Op::Literal, ln);
      e->value = Value::string(s);
      return e;
    }
    if (t.t == Token::T::Int || t.t == Token::T::Float) {
      ++tok_;
      ExprP e = make(Expr::Op::Literal, ln);
      e->value = t.t == Token::T::Int ? Value::integer(t.i) : Value::number(t.f);
      return e;
    }
    if (accept_op("(")) {
      if (accept_op(")")) {  // ()
        ExprP t = make(Expr::Op::ListLit, ln);
        t->name = "tuple";
        return t;
      }
      ExprP e = parse_expression(true);
      if (at_op(",")) {
        ExprP tup = make(Expr::Op::ListLit, ln);
        tup->name = "tuple";
        tup->args.push_back(std::move(e));
        while (accept_op(",")) {
          if (at_op(")")) break;
          tup->args.push_back(parse_expression(true));
        }
        e = std::move(tup);
      }
      expect_op(")");
      return e;
    }
    if (accept_op("[")) {
      ExprP e = make(Expr::Op::ListLit, ln);
      while (!accept_op("]")) {
        if (!e->args.empty()) {
          expect_op(",");
          if (accept_op("]")) break;
        }
        e->args.push_back(parse_expression(true));
      }
      return e;
    }
    if (accept_op("{")) {
      ExprP e = make(Expr::Op::DictLit, ln);
      while (!accept_op("}")) {
        if (!e->args.empty()) {
          expect_op(",");
          if (accept_op("}")) break;
        }
        e->args.push_back(parse_expression(true));
        expect_op(":");
        e->args.push_back(parse_expression(true));
      }
      return e;
    }
    fail(ln, "expected an expression" + got());
  }

  ExprP parse_postfix(ExprP e) {
    while (true) {
      int ln = line();
      if (accept_op(".")) {
        ExprP a = make(Expr::Op::Attr, ln);
        if (peek().t == Token::T::Int) {  // x.0 is x[0]
          a->op = Expr::Op::Item;
          ExprP idx = make(Expr::Op::Literal, ln);
          idx->value = Value::integer((*toks_)[tok_++].i);
          a->args.push_back(std::move(e));
          a->args.push_back(std::move(idx));
        } else {
          a->name = expect_name();
          a->args.push_back(std::move(e));
        }
        e = std::move(a);
      } else if (accept_op("[")) {
        ExprP parts[3];
        bool slice = false;
        int k = 0;
        if (!at_op(":")) parts[0] = parse_expression(true);
        while (accept_op(":")) {
          slice = true;
          if (++k > 2) fail(ln, "bad slice");
          if (!at_op(":") && !at_op("]")) parts[k] = parse_expression(true);
        }
        expect_op("]");
        ExprP s = make(slice ? Expr::Op::Slice : Expr::Op::Item, ln);
        s->args.push_back(std::move(e));
        if (!slice && !parts[0]) fail(ln, "empty subscript");
        s->args.push_back(std::move(parts[0]));
        if (slice) {
          s->args.push_back(std::move(parts[1]));
          s->args.push_back(std::move(parts[2]));
        }
        e = std::move(s);
      } else if (at_op("(")) {
        ExprP c = make(Expr::Op::Call, ln);
        c->args.push_back(std::move(e));
        parse_call_args(c.get());
        e = std::move(c);
      } else {
        return e;
      }
    }
  }

  void parse_call_args(Expr* c) {
    expect_op("(");
    bool first = true;
    while (!accept_op(")")) {
      if (!first) {
        expect_op(",");
        if (accept_op(")")) break;
      }
      first = false;
      if (at_op("*") || at_op("**")) fail(line(), "*args / **kwargs in calls are not supported");
      if (peek().t == Token::T::Name && peek(1).t == Token::T::Op && peek(1).s == "=") {
        std::string k = (*toks_)[tok_].s;
        tok_ += 2;
        c->kwargs.emplace_back(k, parse_expression(true));
      } else {
        if (!c->kwargs.empty()) fail(line(), "a positional argument follows a keyword argument");
        c->args.push_back(parse_expression(true));
      }
    }
  }

  ExprP parse_filters(ExprP e) {
    while (true) {
      int ln = line();
      if (accept_op("|")) {
        ExprP f = make(Expr::Op::Filter, ln);
        f->name = expect_name();
        while (accept_op(".")) f->name += "." + expect_name();
        f->args.push_back(std::move(e));
        if (at_op("(")) parse_call_args(f.get());
        e = std::move(f);
      } else if (accept_name("is")) {
        ExprP t = make(Expr::Op::Test, ln);
        t->negated = accept_name("not");
        t->name = expect_name();
        while (accept_op(".")) t->name += "." + expect_name();
        t->args.push_back(std::move(e));
        if (at_op("(")) {
          parse_call_args(t.get());
        } else {
          const Token& n = peek();
          bool arg = n.t == Token::T::Str || n.t == Token::T::Int || n.t == Token::T::Float || at_op("[") || at_op("{") ||
                     (n.t == Token::T::Name && n.s != "else" && n.s != "or" && n.s != "and" && n.s != "if" && n.s != "in" &&
                      n.s != "not" && n.s != "is");
          if (arg) t->args.push_back(parse_postfix(parse_primary()));
        }
        e = std::move(t);
      } else if (at_op("(")) {
        ExprP c = make(Expr::Op::Call, ln);
        c->args.push_back(std::move(e));
        parse_call_args(c.get());
        e = std::move(c);
      } else {
        return e;
      }
    }
  }

  std::vector<Segment> segs_;
  size_t seg_ = 0;
  const std::vector<Token>* toks_ = nullptr;
  size_t tok_ = 0;
  int depth_ = 0, nest_ = 0;
};

}  // namespace

Body parse_template(const std::string& source) {
  Lexer lx(source);
  Parser p(lx.run());
  return p.parse_all();
}

}  // namespace pte::jinja
