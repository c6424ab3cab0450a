// Evaluation of a parsed template: scopes as Jinja2 has them (a for loop's body gets a
// fresh scope each iteration, so plain assignments do not outlive it; namespaces carry
// state out), macros, loop controls. Failures throw RenderError internally and leave
// Template::render as a Status.
#include <cmath>
#include <cstring>

#include "chat/ast.h"
#include "chat/builtins.h"
#include "chat/jinja.h"
#include "chat/parse.h"

namespace pte::jinja {

struct Macro {
  const Node* node;
};

namespace {

enum class Flow { Normal, Break, Continue };

struct Frame {
  std::vector<std::pair<std::string, Value>> vars;
  Value* find(const std::string& n) {
    for (auto& kv : vars)
      if (kv.first == n) return &kv.second;
    return nullptr;
  }
  void set(const std::string& n, Value v) {
    if (Value* p = find(n)) *p = std::move(v);
    else vars.emplace_back(n, std::move(v));
  }
};

class Renderer final : public Evaluator {
 public:
  Renderer(const RenderOptions& o, std::string* out) : opt_(o), out_(out) {}

  void run(const Body& body, const Value& context) {
    frames_.emplace_back();
    if (context.dict)
      for (const auto& kv : *context.dict) frames_.back().set(kv.first, kv.second);
    exec(body);
  }

  // ---- Evaluator (used by the builtins)
  Value call_macro(const Value& m, const std::vector<Value>& args, const std::vector<std::pair<std::string, Value>>& kwargs,
                   int line) override {
    const Node& n = *m.macro->node;
    if (++macro_depth_ > 64) throw RenderError{line, "macro calls nested too deeply"};
    if (args.size() > n.params.size()) throw RenderError{line, "macro '" + n.text + "' takes " + std::to_string(n.params.size()) + " arguments"};
    Frame f;
    for (size_t k = 0; k < n.params.size(); ++k) {
      const std::string& p = n.params[k].first;
      const Value* kw = nullptr;
      for (const auto& a : kwargs)
        if (a.first == p) kw = &a.second;
      if (k < args.size()) f.set(p, args[k]);
      else if (kw) f.set(p, *kw);
      else if (n.params[k].second) f.set(p, eval(*n.params[k].second));
      else f.set(p, Value::undefined(p));
    }
    for (const auto& a : kwargs) {
      bool known = false;
      for (const auto& p : n.params) known |= p.first == a.first;
      if (!known) throw RenderError{line, "macro '" + n.text + "' takes no keyword argument '" + a.first + "'"};
    }
    // the macro sees its parameters and the template's top level
    std::vector<Frame> saved;
    saved.swap(frames_);
    frames_.push_back(saved.front());
    frames_.push_back(std::move(f));
    std::string buf;
    std::string* prev = out_;
    out_ = &buf;
    Flow flow = Flow::Normal;
    try {
      flow = exec(n.body);
    } catch (...) {
      out_ = prev;
      saved.front() = std::move(frames_.front());
      frames_.swap(saved);
      --macro_depth_;
      throw;
    }
    (void)flow;
    out_ = prev;
    saved.front() = std::move(frames_.front());
    frames_.swap(saved);
    --macro_depth_;
    return Value::string(std::move(buf));
  }
  void step(int line) override {
    if (++steps_ > opt_.max_steps) throw RenderError{line, "the template takes too long (runaway loop?)"};
  }
  std::time_t now() const override { return opt_.now; }

 private:
  Value lookup(const std::string& n) {
    for (size_t k = frames_.size(); k-- > 0;)
      if (Value* v = frames_[k].find(n)) return *v;
    // the environment's global functions ("strftime_now is defined" holds)
    for (const char* g : {"raise_exception", "strftime_now", "range", "namespace", "dict"})
      if (n == g) {
        Value f;
        f.kind = Value::Kind::Macro;  // without a macro: a builtin, named by s
        f.s = n;
        return f;
      }
    return Value::undefined(n);
  }
  Value* lookup_ref(const std::string& n) {
    for (size_t k = frames_.size(); k-- > 0;)
      if (Value* v = frames_[k].find(n)) return v;
    return nullptr;
  }

  void emit(const std::string& s, int line) {
    out_->append(s);
    if (out_->size() > opt_.max_output_bytes) throw RenderError{line, "the rendered text exceeds the output limit"};
  }

  Flow exec(const Body& body) {
    for (const Node& n : body) {
      step(n.line);
      switch (n.kind) {
        case Node::Kind::Text: emit(n.text, n.line); break;
        case Node::Kind::Output: {
          Value v = eval(*n.expr);
          emit(to_str(v), n.line);
          break;
        }
        case Node::Kind::If: {
          bool taken = false;
          for (const auto& br : n.branches) {
            if (eval(*br.first).truthy()) {
              taken = true;
              Flow f = exec(br.second);
              if (f != Flow::Normal) return f;
              break;
            }
          }
          if (!taken) {
            Flow f = exec(n.body);
            if (f != Flow::Normal) return f;
          }
          break;
        }
        case Node::Kind::For: exec_for(n); break;
        case Node::Kind::Set: {
          Value v = eval(*n.expr);
          if (!n.attr.empty()) {
            Value* ns = lookup_ref(n.text);
            if (!ns || ns->kind != Value::Kind::Namespace)
              throw RenderError{n.line, "can only assign attributes of a namespace ('" + n.text + "' is not one)"};
            ns->set(n.attr, std::move(v));
          } else if (n.targets.size() == 1) {
            frames_.back().set(n.targets[0], std::move(v));
          } else {
            std::vector<Value> items = iterate(v, n.line);
            if (items.size() != n.targets.size()) throw RenderError{n.line, "cannot unpack " + std::to_string(items.size()) + " values into " + std::to_string(n.targets.size()) + " names"};
            for (size_t k = 0; k < items.size(); ++k) frames_.back().set(n.targets[k], items[k]);
          }
          break;
        }
        case Node::Kind::SetBlock: {
          std::string buf;
          std::string* prev = out_;
          out_ = &buf;
          try {
            exec(n.body);
          } catch (...) {
            out_ = prev;
            throw;
          }
          out_ = prev;
          frames_.back().set(n.text, Value::string(std::move(buf)));
          break;
        }
        case Node::Kind::Macro: {
          Value m;
          m.kind = Value::Kind::Macro;
          m.macro = std::make_shared<Macro>(Macro{&n});
          frames_.back().set(n.text, std::move(m));
          break;
        }
        case Node::Kind::Break: return Flow::Break;
        case Node::Kind::Continue: return Flow::Continue;
        case Node::Kind::Block: {
          Flow f = exec(n.body);
          if (f != Flow::Normal) return f;
          break;
        }
      }
    }
    return Flow::Normal;
  }

  void exec_for(const Node& n) {
    Value seq = eval(*n.expr);
    std::vector<Value> items = iterate(seq, n.line);
    auto bind = [&](Frame& f, const Value& item) {
      if (n.targets.size() == 1) {
        f.set(n.targets[0], item);
        return;
      }
      std::vector<Value> parts = iterate(item, n.line);
      if (parts.size() != n.targets.size())
        throw RenderError{n.line, "cannot unpack " + std::to_string(parts.size()) + " values into " + std::to_string(n.targets.size()) + " loop variables"};
      for (size_t k = 0; k < parts.size(); ++k) f.set(n.targets[k], parts[k]);
    };
    if (n.filter) {  // "for x in xs if cond": the loop sees only the kept items
      std::vector<Value> kept;
      for (const Value& it : items) {
        step(n.line);
        frames_.emplace_back();
        try {
          bind(frames_.back(), it);
          if (eval(*n.filter).truthy()) kept.push_back(it);
        } catch (...) {
          frames_.pop_back();
          throw;
        }
        frames_.pop_back();
      }
      items.swap(kept);
    }
    if (items.empty()) {
      exec(n.else_body);
      return;
    }
    Value outer_loop = lookup("loop");
    (void)outer_loop;
    size_t len = items.size();
    for (size_t k = 0; k < len; ++k) {
      step(n.line);
      frames_.emplace_back();
      Frame& f = frames_.back();
      Dict loop;
      loop.emplace_back("index", Value::integer(static_cast<int64_t>(k + 1)));
      loop.emplace_back("index0", Value::integer(static_cast<int64_t>(k)));
      loop.emplace_back("revindex", Value::integer(static_cast<int64_t>(len - k)));
      loop.emplace_back("revindex0", Value::integer(static_cast<int64_t>(len - k - 1)));
      loop.emplace_back("first", Value::boolean(k == 0));
      loop.emplace_back("last", Value::boolean(k + 1 == len));
      loop.emplace_back("length", Value::integer(static_cast<int64_t>(len)));
      loop.emplace_back("previtem", k > 0 ? items[k - 1] : Value::undefined("previtem"));
      loop.emplace_back("nextitem", k + 1 < len ? items[k + 1] : Value::undefined("nextitem"));
      loop.emplace_back("depth", Value::integer(1));
      loop.emplace_back("depth0", Value::integer(0));
      Value lv = Value::dict_of(std::move(loop));
      lv.s = "loop";  // marks the loop object (for loop.cycle)
      f.set("loop", std::move(lv));
      Flow flow;
      try {
        bind(f, items[k]);
        flow = exec(n.body);
      } catch (...) {
        frames_.pop_back();
        throw;
      }
      frames_.pop_back();
      if (flow == Flow::Break) break;
    }
  }

  // ---- expressions
  Value eval(const Expr& e) override {
    step(e.line);
    switch (e.op) {
      case Expr::Op::Literal: return e.value;
      case Expr::Op::Name: return lookup(e.name);
      case Expr::Op::Attr: return get_attr(eval(*e.args[0]), e.name, e.line);
      case Expr::Op::Item: return get_item(eval(*e.args[0]), eval(*e.args[1]), e.line);
      case Expr::Op::Slice: {
        Value obj = eval(*e.args[0]);
        Value a = e.args[1] ? eval(*e.args[1]) : Value::none();
        Value b = e.args[2] ? eval(*e.args[2]) : Value::none();
        Value c = e.args[3] ? eval(*e.args[3]) : Value::none();
        return slice(obj, a, b, c, e.line);
      }
      case Expr::Op::Call: return eval_call(e);
      case Expr::Op::Filter: {
        Value subject = eval(*e.args[0]);
        std::vector<Value> args;
        for (size_t k = 1; k < e.args.size(); ++k) args.push_back(eval(*e.args[k]));
        std::vector<std::pair<std::string, Value>> kw;
        for (const auto& a : e.kwargs) kw.emplace_back(a.first, eval(*a.second));
        return apply_filter(*this, e.name, subject, args, kw, e.line);
      }
      case Expr::Op::Test: {
        Value subject = eval(*e.args[0]);
        std::vector<Value> args;
        for (size_t k = 1; k < e.args.size(); ++k) args.push_back(eval(*e.args[k]));
        bool r = apply_test(*this, e.name, subject, args, e.line);
        return Value::boolean(e.negated ? !r : r);
      }
      case Expr::Op::Not: return Value::boolean(!eval(*e.args[0]).truthy());
      case Expr::Op::Neg: case Expr::Op::Pos: {
        Value v = eval(*e.args[0]);
        if (v.is_undefined()) throw RenderError{e.line, "'" + v.s + "' is undefined"};
        if (!v.is_number()) throw RenderError{e.line, std::string("bad operand type for unary ") + (e.op == Expr::Op::Neg ? "-" : "+") + ": '" + type_name(v) + "'"};
        if (e.op == Expr::Op::Pos) return v.kind == Value::Kind::Bool ? Value::integer(v.as_int()) : v;
        return v.kind == Value::Kind::Float ? Value::number(-v.f) : Value::integer(-v.as_int());
      }
      case Expr::Op::Binary: {
        if (e.name == "and") {
          Value a = eval(*e.args[0]);
          return a.truthy() ? eval(*e.args[1]) : a;
        }
        if (e.name == "or") {
          Value a = eval(*e.args[0]);
          return a.truthy() ? a : eval(*e.args[1]);
        }
        Value a = eval(*e.args[0]);
        Value b = eval(*e.args[1]);
        return binary_op(e.name, a, b, e.line);
      }
      case Expr::Op::Cond: {
        if (eval(*e.args[1]).truthy()) return eval(*e.args[0]);
        return e.args[2] ? eval(*e.args[2]) : Value::undefined();
      }
      case Expr::Op::ListLit: {
        List l;
        for (const auto& a : e.args) l.push_back(eval(*a));
        return e.name == "tuple" ? Value::tuple_of(std::move(l)) : Value::list_of(std::move(l));
      }
      case Expr::Op::DictLit: {
        Value d = Value::dict_of({});
        for (size_t k = 0; k + 1 < e.args.size(); k += 2) {
          Value key = eval(*e.args[k]);
          if (!key.is_string()) throw RenderError{e.line, "dict keys must be strings here"};
          d.set(key.s, eval(*e.args[k + 1]));
        }
        return d;
      }
    }
    return Value::undefined();
  }

  Value eval_call(const Expr& e) {
    std::vector<Value> args;
    std::vector<std::pair<std::string, Value>> kw;
    auto eval_args = [&] {
      for (size_t k = 1; k < e.args.size(); ++k) args.push_back(eval(*e.args[k]));
      for (const auto& a : e.kwargs) kw.emplace_back(a.first, eval(*a.second));
    };
    const Expr& callee = *e.args[0];
    if (callee.op == Expr::Op::Attr) {  // a method: "text".strip(), d.items(), loop.cycle(...)
      Value obj = eval(*callee.args[0]);
      if (obj.is_undefined()) throw RenderError{e.line, "'" + (obj.s.empty() ? std::string("value") : obj.s) + "' is undefined"};
      if (obj.kind == Value::Kind::Namespace || (obj.is_dict() && obj.find(callee.name) && obj.find(callee.name)->kind == Value::Kind::Macro)) {
        Value fn = get_attr(obj, callee.name, e.line);
        eval_args();
        if (fn.kind != Value::Kind::Macro || !fn.macro) throw RenderError{e.line, "'" + callee.name + "' is not callable"};
        return call_macro(fn, args, kw, e.line);
      }
      eval_args();
      return call_method(*this, obj, callee.name, args, kw, e.line);
    }
    if (callee.op == Expr::Op::Name) {
      Value fn = lookup(callee.name);
      eval_args();
      if (fn.kind == Value::Kind::Macro && !fn.macro) return call_global(*this, fn.s, args, kw, e.line);
      if (fn.kind == Value::Kind::Macro) return call_macro(fn, args, kw, e.line);
      if (fn.is_undefined()) throw RenderError{e.line, "'" + callee.name + "' is undefined"};
      throw RenderError{e.line, "'" + callee.name + "' is not callable (" + type_name(fn) + ")"};
    }
    Value fn = eval(callee);
    eval_args();
    if (fn.kind == Value::Kind::Macro && !fn.macro) return call_global(*this, fn.s, args, kw, e.line);
    if (fn.kind == Value::Kind::Macro) return call_macro(fn, args, kw, e.line);
    throw RenderError{e.line, std::string("a ") + type_name(fn) + " is not callable"};
  }

  const RenderOptions& opt_;
  std::string* out_;
  std::vector<Frame> frames_;
  uint64_t steps_ = 0;
  int macro_depth_ = 0;
};

}  // namespace

struct Template::Impl {
  Body body;
};

Template::Template() : impl_(new Impl) {}
Template::~Template() = default;

Status Template::parse(const std::string& source, std::unique_ptr<Template>* out) {
  std::unique_ptr<Template> t(new Template());
  try {
    t->impl_->body = parse_template(source);
  } catch (const ParseError& e) {
    return Status::error("line " + std::to_string(e.line) + ": " + e.message);
  } catch (const std::bad_alloc&) {
    return Status::error("out of memory parsing the template");
  }
  *out = std::move(t);
  return Status::ok();
}

Status Template::render(const Value& context, std::string* out, const RenderOptions& options) const {
  std::string buf;
  Renderer r(options, &buf);
  try {
    r.run(impl_->body, context);
  } catch (const RaiseError& e) {
    return Status::error("raise_exception: " + e.message);
  } catch (const RenderError& e) {
    return Status::error("line " + std::to_string(e.line) + ": " + e.message);
  } catch (const std::bad_alloc&) {
    return Status::error("out of memory rendering the template");
  }
  *out = std::move(buf);
  return Status::ok();
}

}  // namespace pte::jinja
