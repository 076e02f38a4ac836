// Statements: output, if, for (with @huggingface/jinja's loop object and its break/continue, which
// drop the output of the iteration they end), set, macro, call blocks and filter blocks.
#include "chat/jinja/interpreter.h"

#include <algorithm>

#include "base/cancel.h"
#include "chat/jinja/error.h"
#include "chat/jinja/parser.h"
#include "chat/jinja/text.h"
#include "chat/jinja/unicode.h"

namespace ogai::chat::jinja {
namespace {

// Keeps depth within the limit for nested blocks and macro calls.
class DepthGuard {
 public:
  DepthGuard(int& depth, int limit) : depth_(depth) {
    if (++depth_ > limit) template_fail("template nesting or macro recursion deeper than {} levels", limit);
  }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  int& depth_;
};

}  // namespace

const Value* Scope::find_local(SymbolId id) const {
  for (const auto& [k, v] : vars)
    if (k == id) return &v;
  return nullptr;
}

void Scope::set(SymbolId id, Value v) {
  for (auto& [k, old] : vars) {
    if (k == id) {
      old = v;
      return;
    }
  }
  vars.emplace_back(id, v);
}

const Value* Args::keyword_arg(std::string_view name) const {
  for (const Entry& e : keyword)
    if (e.key == name) return &e.value;
  return nullptr;
}

const Value* Args::get(std::size_t i, std::string_view name) const {
  if (i < positional.size()) return &positional[i];
  return name.empty() ? nullptr : keyword_arg(name);
}

Renderer::Renderer(const Program& program, const Limits& limits, std::time_t now, std::string& out)
    : program_(program), limits_(limits), now_(now), heap_(limits.max_memory_bytes), out_(out) {}

void Renderer::run(Scope* root) {
  Flow f = exec(program_.body, root);
  if (f != Flow::kNormal) template_fail("'{}' outside a loop", f == Flow::kBreak ? "break" : "continue");
}

Value Renderer::string(std::string_view s) {
  if (s.size() > limits_.max_output_bytes)
    template_fail("a string of {} bytes exceeds the output limit of {} bytes", s.size(), limits_.max_output_bytes);
  return Value::string(heap_.copy(s));
}

Value Renderer::concat(std::string_view a, std::string_view b) {
  if (a.empty()) return Value::string(b);
  if (b.empty()) return Value::string(a);
  std::size_t n = a.size() + b.size();
  if (n > limits_.max_output_bytes)
    template_fail("a string of {} bytes exceeds the output limit of {} bytes", n, limits_.max_output_bytes);
  char* p = static_cast<char*>(heap_.resource()->allocate(n, 1));
  std::char_traits<char>::copy(p, a.data(), a.size());
  std::char_traits<char>::copy(p + a.size(), b.data(), b.size());
  return Value::string({p, n});
}

void Renderer::count_iterations(std::uint64_t n) {
  check_cancelled("the chat template's render");  // a client that left stops the render (base/cancel.h)
  iterations_ += n;
  if (iterations_ > limits_.max_loop_iterations)
    template_fail("more than {} loop iterations and macro calls in one render", limits_.max_loop_iterations);
}

Flow Renderer::exec(const Body& body, Scope* scope) {
  for (const auto& s : body) {
    check_cancelled("the chat template's render");
    Flow f = exec_stmt(*s, scope);
    if (out_.size() > limits_.max_output_bytes)
      template_fail("output exceeds the limit of {} bytes", limits_.max_output_bytes);
    if (f != Flow::kNormal) return f;
  }
  return Flow::kNormal;
}

Flow Renderer::exec_stmt(const Stmt& s, Scope* scope) {
  pos_ = s.pos;
  switch (s.kind) {
    case StmtKind::kText: out_ += static_cast<const TextStmt&>(s).text; return Flow::kNormal;
    case StmtKind::kOutput:
      append_value_text(out_, eval(*static_cast<const OutputStmt&>(s).expr, scope), limits_.max_output_bytes);
      return Flow::kNormal;
    case StmtKind::kIf: {
      const auto& i = static_cast<const IfStmt&>(s);
      DepthGuard guard(depth_, limits_.max_depth);
      return exec(truthy(eval(*i.cond, scope)) ? i.then : i.otherwise, scope);
    }
    case StmtKind::kFor: {
      DepthGuard guard(depth_, limits_.max_depth);
      return exec_for(static_cast<const ForStmt&>(s), scope);
    }
    case StmtKind::kSet: exec_set(static_cast<const SetStmt&>(s), scope); return Flow::kNormal;
    case StmtKind::kMacro: {
      const auto& m = static_cast<const MacroStmt&>(s);
      scope->set(m.id, Value::function(heap_.make<Callable>(Callable::macro_function(&m))));
      return Flow::kNormal;
    }
    case StmtKind::kCallBlock: exec_call_block(static_cast<const CallBlockStmt&>(s), scope); return Flow::kNormal;
    case StmtKind::kFilterBlock: {
      const auto& f = static_cast<const FilterBlockStmt&>(s);
      Value body = capture(f.body, scope);
      pos_ = f.filter->pos;
      Args args = eval_args(f.filter->args, scope);
      append_value_text(out_, filter(f.filter->name, body, f.filter->called ? &args : nullptr, scope), limits_.max_output_bytes);
      return Flow::kNormal;
    }
    case StmtKind::kBreak: return Flow::kBreak;
    case StmtKind::kContinue: return Flow::kContinue;
  }
  return Flow::kNormal;
}

Value Renderer::capture(const Body& body, Scope* scope) {
  std::size_t start = out_.size();
  Flow f = exec(body, scope);
  if (f != Flow::kNormal) template_fail("'{}' outside a loop", f == Flow::kBreak ? "break" : "continue");
  Value v = string(std::string_view(out_).substr(start));
  out_.resize(start);
  return v;
}

void Renderer::bind(const Target& t, const Value& v, Scope* scope, const char* what) {
  if (!t.invalid.empty()) template_fail("{}", t.invalid);
  if (!t.unpack) return scope->set(t.names[0], v);
  if (!v.is_array()) template_fail("cannot unpack {} into {} names in {}", a_kind(v), t.names.size(), what);
  const auto& items = v.array().items;
  if (items.size() != t.names.size())
    template_fail("too {} values to unpack in {}: expected {}, got {}", items.size() < t.names.size() ? "few" : "many",
                  what, t.names.size(), items.size());
  for (std::size_t i = 0; i < items.size(); ++i) scope->set(t.names[i], items[i]);
}

namespace {

std::pmr::vector<Value> loop_items(Renderer& r, const Value& it) {
  std::pmr::vector<Value> items(r.heap().resource());
  switch (it.kind()) {
    case Kind::kArray: items.assign(it.array().items.begin(), it.array().items.end()); break;
    case Kind::kObject:
      if (it.object().type == ObjectType::kNamespace) template_fail("cannot loop over a namespace");
      for (const Entry& e : it.object().entries) items.push_back(Value::string(e.key));
      break;
    case Kind::kString:  // Jinja iterates characters (the JavaScript engine refuses)
      for (std::size_t i = 0, start = 0; i < it.as_string().size(); start = i) {
        decode_utf8(it.as_string(), i);
        items.push_back(Value::string(it.as_string().substr(start, i - start)));
      }
      break;
    case Kind::kUndefined: break;  // Jinja: an undefined iterable is empty
    default: template_fail("cannot loop over {}", a_kind(it));
  }
  return items;
}

Value loop_object(Renderer& r, const std::pmr::vector<Value>& items, std::size_t i) {
  ObjectData* o = r.new_object(ObjectType::kLoop);
  auto n = static_cast<std::int64_t>(items.size()), k = static_cast<std::int64_t>(i);
  o->loop_index = k;
  o->entries.reserve(9);
  o->entries.push_back({"index", Value::integer(k + 1)});
  o->entries.push_back({"index0", Value::integer(k)});
  o->entries.push_back({"revindex", Value::integer(n - k)});
  o->entries.push_back({"revindex0", Value::integer(n - k - 1)});
  o->entries.push_back({"first", Value::boolean(k == 0)});
  o->entries.push_back({"last", Value::boolean(k == n - 1)});
  o->entries.push_back({"length", Value::integer(n)});
  o->entries.push_back({"previtem", k > 0 ? items[i - 1] : Value::undefined("loop.previtem")});
  o->entries.push_back({"nextitem", k < n - 1 ? items[i + 1] : Value::undefined("loop.nextitem")});
  return Value::object(o);
}

}  // namespace

Flow Renderer::exec_for(const ForStmt& f, Scope* outer) {
  if (!f.target.invalid.empty()) template_fail("{}", f.target.invalid);
  Scope* scope = new_scope(outer);
  std::pmr::vector<Value> all = loop_items(*this, eval(*f.iterable, scope));
  std::pmr::vector<Value> items(heap_.resource());
  count_iterations(all.size());
  for (const Value& item : all) {
    Scope* probe = f.filter ? new_scope(scope) : scope;
    if (f.target.unpack || f.filter) bind(f.target, item, probe, "'for'");
    if (!f.filter || truthy(eval(*f.filter, probe))) items.push_back(item);
  }
  bool iterated = false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    scope->set(kSymLoop, loop_object(*this, items, i));
    bind(f.target, items[i], scope, "'for'");
    std::size_t mark = out_.size();
    Flow flow = exec(f.body, scope);
    if (flow != Flow::kNormal) out_.resize(mark);
    if (flow == Flow::kBreak) break;
    if (flow == Flow::kContinue) continue;
    iterated = true;
  }
  return iterated ? Flow::kNormal : exec(f.otherwise, scope);
}

void Renderer::exec_set(const SetStmt& s, Scope* scope) {
  Value v = s.value ? eval(*s.value, scope) : capture(s.body, scope);
  if (s.object) {
    Value target = eval(*s.object, scope);
    pos_ = s.pos;
    if (!target.is_object() || target.object().type != ObjectType::kNamespace)
      template_fail("cannot set attribute '{}' on {}: only namespace() objects can be assigned to", s.attr, a_kind(target));
    target.object().set(heap_.copy(s.attr), v);
    return;
  }
  bind(s.target, v, scope, "'set'");
}

void Renderer::exec_call_block(const CallBlockStmt& c, Scope* scope) {
  Args args = eval_args(c.call->args, scope);
  Value fn = eval(*c.call->callee, scope);
  pos_ = c.pos;
  if (!fn.is(Kind::kFunction)) template_fail("'{}' is not a macro", static_cast<const Name&>(*c.call->callee).name);
  Scope* with_caller = new_scope(scope);
  with_caller->set(kSymCaller, Value::function(heap_.make<Callable>(Callable::caller_function(&c.caller, scope))));
  append_value_text(out_, call(fn, args, with_caller), limits_.max_output_bytes);
}

Value Renderer::call_macro(const MacroStmt& m, Scope* parent, const Args& args, std::string_view display) {
  DepthGuard guard(depth_, limits_.max_depth);
  count_iterations(1);  // bounds call trees that branch (f calls f twice) at a bounded depth
  Scope* scope = new_scope(parent);
  std::pmr::vector<Entry> keywords(args.keyword, heap_.resource());
  std::vector<const Param*> pending;
  for (std::size_t i = 0; i < m.params.size(); ++i) {
    const Param& p = m.params[i];
    Value v = Value::undefined(p.name);
    if (i < args.positional.size()) {
      v = args.positional[i];
    } else if (auto k = std::find_if(keywords.begin(), keywords.end(), [&](const Entry& e) { return e.key == p.name; });
               k != keywords.end()) {
      v = k->value;
      keywords.erase(k);
    } else if (p.default_value) {
      pending.push_back(&p);
    }
    scope->set(p.id, v);
  }
  if (m.uses_kwargs) {
    ObjectData* kw = new_object();
    for (const Entry& e : keywords) kw->entries.push_back(e);
    scope->set(kSymKwargs, Value::object(kw));
  } else if (!keywords.empty()) {
    template_fail("macro {} takes no keyword argument '{}'", display, keywords.front().key);
  }
  if (m.uses_varargs) {
    ArrayData* rest = new_array();
    for (std::size_t i = m.params.size(); i < args.positional.size(); ++i) rest->items.push_back(args.positional[i]);
    scope->set(kSymVarargs, Value::array(rest));
  } else if (args.positional.size() > m.params.size()) {
    template_fail("macro {} takes at most {} argument(s), got {}", display, m.params.size(), args.positional.size());
  }
  for (const Param* p : pending) scope->set(p->id, eval(*p->default_value, scope));
  return capture(m.body, scope);
}

}  // namespace ogai::chat::jinja
