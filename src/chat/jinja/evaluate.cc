// Expressions: names, attribute and item access (an undefined value cannot be read from, as in
// Jinja), slices, calls of macros / builtins / methods, literals and unary operators.
#include <fmt/format.h>

#include <cmath>

#include "chat/jinja/error.h"
#include "chat/jinja/interpreter.h"
#include "chat/jinja/parser.h"
#include "chat/jinja/text.h"
#include "chat/jinja/unicode.h"

namespace ogai::chat::jinja {
namespace {

// The code point at index i of s (negative counts from the end), as a view; empty if out of range.
std::string_view char_at(std::string_view s, std::int64_t i) {
  std::int64_t n = static_cast<std::int64_t>(code_point_count(s));
  if (i < 0) i += n;
  if (i < 0 || i >= n) return {};
  std::size_t pos = 0;
  for (std::int64_t k = 0; k < i; ++k) decode_utf8(s, pos);
  std::size_t end = pos;
  decode_utf8(s, end);
  return s.substr(pos, end - pos);
}

}  // namespace

std::string describe_undefined(const Value& v) {
  if (v.undefined_item()) return fmt::format("item {}", v.undefined_hint());
  if (v.undefined_hint().empty()) return "the value";
  return fmt::format("'{}'", v.undefined_hint());
}

namespace {

std::string describe_property(const Value& p) {
  if (p.is_string()) return std::string(p.as_string());
  if (p.is_array() || p.is_object()) return a_kind(p);
  std::string s;
  append_value_text(s, p);
  return s;
}

// Python-style slice bounds as @huggingface/jinja computes them.
std::vector<std::int64_t> slice_indices(std::int64_t n, const Value& start, const Value& stop, const Value& step) {
  std::int64_t st = step.is_undefined() ? 1 : step.as_int();
  if (st == 0) template_fail("slice step cannot be zero");
  std::int64_t a, b;
  if (st > 0) {
    a = start.is_undefined() ? 0 : start.as_int();
    b = stop.is_undefined() ? n : stop.as_int();
    a = a < 0 ? std::max<std::int64_t>(n + a, 0) : std::min(a, n);
    b = b < 0 ? std::max<std::int64_t>(n + b, 0) : std::min(b, n);
  } else {
    a = start.is_undefined() ? n - 1 : start.as_int();
    b = stop.is_undefined() ? -1 : stop.as_int();
    a = a < 0 ? std::max<std::int64_t>(n + a, -1) : std::min(a, n - 1);
    b = b < -1 ? std::max<std::int64_t>(n + b, -1) : std::min(b, n - 1);
  }
  std::vector<std::int64_t> out;
  for (std::int64_t i = a; st > 0 ? i < b : i > b; i += st) out.push_back(i);
  return out;
}

}  // namespace

Value Renderer::eval(const Expr& e, Scope* scope) {
  pos_ = e.pos;
  switch (e.kind) {
    case ExprKind::kLiteral: return static_cast<const Literal&>(e).value;
    case ExprKind::kName: return eval_name(static_cast<const Name&>(e), scope);
    case ExprKind::kAttr: {
      const auto& a = static_cast<const Attr&>(e);
      Value object = eval(*a.object, scope);
      pos_ = e.pos;
      return member(object, a.integer ? Value::integer(a.index) : Value::string(a.name));
    }
    case ExprKind::kSubscript: {
      const auto& s = static_cast<const Subscript&>(e);
      Value object = eval(*s.object, scope);
      Value index = eval(*s.index, scope);
      pos_ = e.pos;
      return member(object, index);
    }
    case ExprKind::kSlice: return eval_slice(static_cast<const Slice&>(e), scope);
    case ExprKind::kCall: return eval_call(static_cast<const Call&>(e), scope);
    case ExprKind::kFilter: {
      const auto& f = static_cast<const FilterExpr&>(e);
      Value operand = eval(*f.operand, scope);
      Args args = eval_args(f.args, scope);
      pos_ = e.pos;
      return filter(f.name, operand, f.called ? &args : nullptr, scope);
    }
    case ExprKind::kTest: {
      const auto& t = static_cast<const TestExpr&>(e);
      Value operand = eval(*t.operand, scope);
      Args args = eval_args(t.args, scope);
      pos_ = e.pos;
      return Value::boolean(test(t.name, operand, args) != t.negate);
    }
    case ExprKind::kUnary: return eval_unary(static_cast<const Unary&>(e), scope);
    case ExprKind::kBinary: return eval_binary(static_cast<const Binary&>(e), scope);
    case ExprKind::kConditional: {
      const auto& c = static_cast<const Conditional&>(e);
      if (truthy(eval(*c.cond, scope))) return eval(*c.then, scope);
      return c.otherwise ? eval(*c.otherwise, scope) : Value::undefined();
    }
    case ExprKind::kList: return eval_list(static_cast<const ListExpr&>(e), scope);
    case ExprKind::kDict: return eval_dict(static_cast<const DictExpr&>(e), scope);
  }
  return Value::undefined();
}

Value Renderer::eval_name(const Name& n, Scope* scope) {
  for (Scope* s = scope; s; s = s->parent)
    if (const Value* v = s->find_local(n.id)) return *v;
  if (n.id < kBuiltinSymbolCount) {
    Value v = builtin_value(n.id);
    if (!v.is_undefined()) return v;
  }
  return Value::undefined(n.name);
}

Value Renderer::member(const Value& object, const Value& property) {
  if (object.is_undefined())
    template_fail("{} is undefined (reading '{}' of it)", describe_undefined(object), describe_property(property));
  Value v = Value::undefined();
  bool bad_key = false;
  if (object.is_object()) {
    if (!property.is_string()) template_fail("cannot read {} key of {}: keys are strings", a_kind(property), a_kind(object));
    if (const Value* found = object.object().find(property.as_string())) v = *found;
    else if (object.object().type != ObjectType::kNamespace && has_method(object, property.as_string()))
      v = Value::function(heap_.make<Callable>(Callable::bound_method(object, property.as_string())));
  } else if (object.is_array() || object.is_string()) {
    if (property.is(Kind::kInt)) {
      std::int64_t i = property.as_int();
      if (object.is_array()) {
        auto n = static_cast<std::int64_t>(object.array().items.size());
        if (i < 0) i += n;
        if (i >= 0 && i < n) v = object.array().items[i];
      } else if (std::string_view c = char_at(object.as_string(), i); !c.empty()) {
        v = Value::string(c);
      }
    } else if (property.is_string()) {
      std::string_view p = property.as_string();
      if (p == "length") v = Value::integer(object.is_array() ? object.array().items.size() : utf16_length(object.as_string()));
      else if (object.is_string() && has_method(object, p))
        v = Value::function(heap_.make<Callable>(Callable::bound_method(object, p)));
    } else {
      bad_key = true;
    }
  } else {
    bad_key = !property.is_string();
  }
  if (bad_key) template_fail("cannot index {} with {}", a_kind(object), a_kind(property));
  if (v.is_undefined()) {
    if (property.is_string()) return Value::undefined(property.as_string());
    return Value::undefined(heap_.copy(describe_property(property)), true);
  }
  return v;
}

Value Renderer::eval_slice(const Slice& s, Scope* scope) {
  Value object = eval(*s.object, scope);
  Value parts[3];
  const ExprPtr* exprs[3] = {&s.start, &s.stop, &s.step};
  for (int i = 0; i < 3; ++i) {
    if (*exprs[i]) parts[i] = eval(**exprs[i], scope);
    if (!parts[i].is_undefined() && !parts[i].is(Kind::kInt)) template_fail("slice bounds must be integers, got {}", a_kind(parts[i]));
  }
  pos_ = s.pos;
  if (object.is_undefined()) template_fail("{} is undefined (slicing it)", describe_undefined(object));
  if (object.is_array()) {
    const auto& items = object.array().items;
    ArrayData* out = new_array();
    for (std::int64_t i : slice_indices(static_cast<std::int64_t>(items.size()), parts[0], parts[1], parts[2]))
      out->items.push_back(items[i]);
    return Value::array(out);
  }
  if (!object.is_string()) template_fail("cannot slice {}", a_kind(object));
  std::string_view s8 = object.as_string();
  std::vector<std::string_view> chars;
  for (std::size_t i = 0, start = 0; i < s8.size(); start = i) decode_utf8(s8, i), chars.push_back(s8.substr(start, i - start));
  std::string out;
  for (std::int64_t i : slice_indices(static_cast<std::int64_t>(chars.size()), parts[0], parts[1], parts[2])) out += chars[i];
  return string(out);
}

Args Renderer::eval_args(const std::vector<Arg>& args, Scope* scope) {
  Args out = new_args();
  for (const Arg& a : args) {
    Value v = eval(*a.value, scope);
    switch (a.kind) {
      case ArgKind::kPositional: out.positional.push_back(v); break;
      case ArgKind::kSpread:
        if (!v.is_array()) template_fail("cannot unpack {} with '*': it is not a list", a_kind(v));
        out.positional.insert(out.positional.end(), v.array().items.begin(), v.array().items.end());
        break;
      case ArgKind::kKeyword:
      case ArgKind::kKeywordSpread: {
        if (a.kind == ArgKind::kKeywordSpread && !v.is_object()) template_fail("the argument after '**' must be a dict, not {}", a_kind(v));
        auto add = [&](std::string_view key, const Value& value) {
          if (out.keyword_arg(key)) template_fail("got multiple values for keyword argument '{}'", key);
          out.keyword.push_back({key, value});
        };
        if (a.kind == ArgKind::kKeyword) add(a.name, v);
        else for (const Entry& e : v.object().entries) add(e.key, e.value);
        break;
      }
    }
  }
  return out;
}

Value Renderer::eval_call(const Call& c, Scope* scope) {
  Args args = eval_args(c.args, scope);
  Value fn;
  if (c.callee->kind == ExprKind::kAttr && !static_cast<const Attr&>(*c.callee).integer) {
    const auto& a = static_cast<const Attr&>(*c.callee);
    Value self = eval(*a.object, scope);
    pos_ = c.pos;
    bool own_key = self.is_object() && self.object().find(a.name);
    if (!own_key && (self.is_string() || (self.is_object() && self.object().type != ObjectType::kNamespace)) &&
        has_method(self, a.name))
      return call_method(*this, self, a.name, args);
    fn = member(self, Value::string(a.name));
  } else {
    fn = eval(*c.callee, scope);
  }
  pos_ = c.pos;
  return call(fn, args, scope);
}

Value Renderer::call(const Value& fn, const Args& args, Scope* scope) {
  if (!fn.is(Kind::kFunction)) {
    if (fn.is_undefined()) template_fail("{} is undefined and cannot be called", describe_undefined(fn));
    template_fail("{} is not callable", a_kind(fn));
  }
  const Callable& c = fn.function();
  switch (c.type) {
    case Callable::Type::kBuiltin: return call_builtin(*this, c.builtin, args);
    case Callable::Type::kMethod: return call_method(*this, c.self, c.method, args);
    case Callable::Type::kMacro: return call_macro(*c.macro, scope, args, "'" + c.macro->name + "'");
    case Callable::Type::kCaller: return call_macro(*c.macro, c.scope, args, "caller");
  }
  return Value::undefined();
}

Value Renderer::eval_unary(const Unary& u, Scope* scope) {
  Value v = eval(*u.operand, scope);
  pos_ = u.pos;
  if (u.op == UnaryOp::kNot) return Value::boolean(!truthy(v));
  double sign = u.op == UnaryOp::kNeg ? -1 : 1;
  switch (v.kind()) {
    case Kind::kInt: return Value::integer(static_cast<std::int64_t>(sign) * v.as_int());
    case Kind::kBool: return Value::integer(static_cast<std::int64_t>(sign) * (v.as_bool() ? 1 : 0));
    case Kind::kFloat: return Value::floating(sign * v.as_float());
    default: template_fail("unary '{}' needs a number, got {}", u.op == UnaryOp::kNeg ? '-' : '+', a_kind(v));
  }
}

Value Renderer::eval_binary(const Binary& b, Scope* scope) {
  Value left = eval(*b.left, scope);
  if (b.op == BinaryOp::kAnd) return truthy(left) ? eval(*b.right, scope) : left;
  if (b.op == BinaryOp::kOr) return truthy(left) ? left : eval(*b.right, scope);
  Value right = eval(*b.right, scope);
  pos_ = b.pos;
  return binary_operation(*this, b.op, left, right);
}

Value Renderer::eval_list(const ListExpr& l, Scope* scope) {
  ArrayData* a = new_array();
  a->tuple = l.tuple;
  a->items.reserve(l.items.size());
  for (const auto& item : l.items) a->items.push_back(eval(*item, scope));
  return Value::array(a);
}

Value Renderer::eval_dict(const DictExpr& d, Scope* scope) {
  ObjectData* o = new_object();
  for (const auto& [k, v] : d.items) {
    Value key = eval(*k, scope);
    if (!key.is_string()) template_fail("dict keys must be strings, got {}", a_kind(key));
    o->set(key.as_string(), eval(*v, scope));
  }
  return Value::object(o);
}

}  // namespace ogai::chat::jinja
