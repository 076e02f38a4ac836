#include "chat/jinja/filters.h"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <string>

#include "chat/jinja/error.h"
#include "chat/jinja/methods.h"
#include "chat/jinja/text.h"
#include "chat/jinja/unicode.h"

namespace ogai::chat::jinja {
namespace {

// JavaScript's parseInt(s, 10) and parseFloat(s); NaN when no number starts the string.
double js_parse_int(std::string_view s) {
  s = js_trim(s, true, false);
  std::size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0, start = i;
  while (i < s.size() && is_ascii_digit(s[i])) ++i;
  if (i == start) return NAN;
  return std::strtod(std::string(s.substr(0, i)).c_str(), nullptr);
}

double js_parse_float(std::string_view s) {
  s = js_trim(s, true, false);
  std::size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0, digits = 0;
  if (s.substr(i, 8) == "Infinity") return s[0] == '-' ? -INFINITY : INFINITY;
  while (i < s.size() && is_ascii_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_ascii_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return NAN;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1 + ((i + 1 < s.size() && (s[i + 1] == '+' || s[i + 1] == '-')) ? 1 : 0);
    if (j < s.size() && is_ascii_digit(s[j])) {
      while (j < s.size() && is_ascii_digit(s[j])) ++j;
      i = j;
    }
  }
  return std::strtod(std::string(s.substr(0, i)).c_str(), nullptr);
}

Value tojson(const FilterCall& c) {
  JsonOptions o;
  if (c.args) {
    const Args& a = *c.args;
    if (const Value* v = a.keyword_arg("indent"); v && !v->is_none()) {
      if (!v->is(Kind::kInt) || v->as_int() < 0) template_fail("tojson indent must be a non-negative integer");
      o.indent = static_cast<int>(std::min<std::int64_t>(v->as_int(), 64));
    }
    if (const Value* v = a.keyword_arg("ensure_ascii")) {
      if (!v->is(Kind::kBool)) template_fail("tojson ensure_ascii must be a boolean");
      o.ensure_ascii = v->as_bool();
    }
    if (const Value* v = a.keyword_arg("sort_keys")) {
      if (!v->is(Kind::kBool)) template_fail("tojson sort_keys must be a boolean");
      o.sort_keys = v->as_bool();
    }
    if (const Value* v = a.keyword_arg("separators"); v && !v->is_none()) {
      if (!v->is_array() || v->array().items.size() != 2 || !v->array().items[0].is_string() || !v->array().items[1].is_string())
        template_fail("tojson separators must be a tuple of two strings");
      o.separators.emplace(v->array().items[0].as_string(), v->array().items[1].as_string());
    }
  }
  o.max_bytes = c.r.max_bytes();
  std::string out;
  append_json(out, c.operand, o);
  return c.r.string(out);
}

Value join(const FilterCall& c) {
  const Value* sep = c.arg(0, "separator");
  if (sep && !sep->is_string()) template_fail("join separator must be a string");
  std::string_view s = sep ? sep->as_string() : "";
  std::string out;
  if (c.operand.is_string()) {
    std::string_view text = c.operand.as_string();
    for (std::size_t i = 0, start = 0; i < text.size(); start = i) {
      decode_utf8(text, i);
      if (start) out += s;
      out += text.substr(start, i - start);
    }
  } else if (c.operand.is_array()) {
    bool first = true;
    for (const Value& item : c.operand.array().items) {
      if (!first) out += s;
      first = false;
      if (!item.is_none() && !item.is_undefined()) append_js_string(out, item, c.r.max_bytes());
      if (out.size() > c.r.max_bytes()) c.r.string(out);  // fails with the size limit
    }
  } else if (c.operand.is_undefined()) {
    return Value::string("");
  } else {
    c.unsupported();
  }
  return c.r.string(out);
}

Value to_number(const FilterCall& c, bool integer) {
  const Value* fallback = c.arg(0, "default");
  Value zero = integer ? Value::integer(0) : Value::floating(0);
  const Value& v = c.operand;
  if (v.is_string()) {
    double d = integer ? js_parse_int(v.as_string()) : js_parse_float(v.as_string());
    if (std::isnan(d)) return fallback ? *fallback : zero;
    return integer ? Value::number(d) : Value::floating(d);
  }
  if (v.is_numeric()) {
    if (!c.bare()) return v;  // @huggingface/jinja returns numbers unchanged from int(x) / float(x)
    return integer ? (v.is(Kind::kInt) ? v : Value::number(std::floor(v.as_float()))) : Value::floating(v.as_number());
  }
  if (v.is(Kind::kBool)) return integer ? Value::integer(v.as_bool()) : Value::floating(v.as_bool());
  if (v.is_undefined()) return zero;
  c.unsupported();
}

Value default_filter(const FilterCall& c) {
  const Value* fallback = c.arg(0, "default_value");
  const Value* boolean = c.arg(1, "boolean");
  if (boolean && !boolean->is(Kind::kBool)) template_fail("default() boolean flag must be a boolean");
  if (c.operand.is_undefined() || (boolean && boolean->as_bool() && !truthy(c.operand)))
    return fallback ? *fallback : Value::string("");
  return c.operand;
}

Value indent(const FilterCall& c) {
  const Value* width = c.arg(0, "width");
  if (width && !width->is(Kind::kInt) && !width->is_string()) template_fail("indent width must be an integer");
  std::string pad = !width ? std::string(4, ' ') : width->is_string() ? std::string(width->as_string())
                                                                       : std::string(std::clamp<std::int64_t>(width->as_int(), 0, 1024), ' ');
  const Value* first = c.arg(1, "first");
  const Value* blank = c.arg(2, "blank");
  std::string_view s = c.operand.as_string();
  std::string out;
  std::size_t line = 0;
  for (std::size_t start = 0;; ++line) {
    std::size_t end = s.find('\n', start);
    std::string_view text = s.substr(start, end == std::string_view::npos ? s.npos : end - start);
    bool skip = (line == 0 && !(first && truthy(*first))) || (text.empty() && !(blank && truthy(*blank)));
    if (!skip) out += pad;
    out += text;
    if (out.size() > c.r.max_bytes()) c.r.string(out);  // fails with the size limit
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return c.r.string(out);
}

Value round_filter(const FilterCall& c) {
  const Value* precision = c.arg(0, "precision");
  const Value* method = c.arg(1, "method");
  std::int64_t p = precision ? (precision->is(Kind::kInt) ? precision->as_int() : (template_fail("round precision must be an integer"), 0)) : 0;
  std::string_view m = method && method->is_string() ? method->as_string() : "common";
  if (m != "common" && m != "ceil" && m != "floor") template_fail("round method must be 'common', 'ceil' or 'floor'");
  double v = c.operand.as_number(), scale = std::pow(10.0, static_cast<double>(p));
  if (m == "common") {
    if (c.operand.is(Kind::kInt) && p >= 0) return c.operand;
    if (p >= 0 && p < 300) {
      char buf[400];
      std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(p), v);
      return Value::floating(std::strtod(buf, nullptr));
    }
    return Value::floating(std::nearbyint(v * scale) / scale);
  }
  return Value::floating((m == "ceil" ? std::ceil(v * scale) : std::floor(v * scale)) / scale);
}

Value string_filter(const FilterCall& c) {
  Renderer& r = c.r;
  std::string_view s = c.operand.as_string(), n = c.name;
  if (n == "indent") return indent(c);
  if (n == "replace" && c.args) return replace_text(r, s, *c.args);
  if (!c.bare() && n == "trim") {  // Jinja's trim(chars)
    const Value* chars = c.arg(0, "chars");
    if (!chars || !chars->is_string()) template_fail("trim chars must be a string");
    std::size_t b = s.find_first_not_of(chars->as_string()), e = s.find_last_not_of(chars->as_string());
    return Value::string(b == std::string_view::npos ? std::string_view() : s.substr(b, e - b + 1));
  }
  if (!c.bare()) c.unsupported();
  if (n == "length" || n == "count") return Value::integer(static_cast<std::int64_t>(utf16_length(s)));
  if (n == "upper" || n == "lower" || n == "title" || n == "capitalize")
    return call_method(r, c.operand, n, r.new_args());
  if (n == "trim") return Value::string(js_trim(s, true, true));
  if (n == "string" || (c.args == nullptr && n == "join")) return c.operand;
  if (n == "list" || n == "first" || n == "last" || n == "reverse") {
    ArrayData* chars = r.new_array();
    for (std::size_t i = 0, start = 0; i < s.size(); start = i) decode_utf8(s, i), chars->items.push_back(Value::string(s.substr(start, i - start)));
    auto& items = chars->items;
    if (n == "first") return items.empty() ? Value::undefined("first") : items.front();
    if (n == "last") return items.empty() ? Value::undefined("last") : items.back();
    if (n == "list") return Value::array(chars);
    std::string out;
    for (auto it = items.rbegin(); it != items.rend(); ++it) out += it->as_string();
    return r.string(out);
  }
  c.unsupported();
}

Value scalar_filter(const FilterCall& c) {
  const Value& v = c.operand;
  std::string_view n = c.name;
  if (v.is_numeric()) {
    if (n == "round") return round_filter(c);
    if (!c.bare()) c.unsupported();
    if (n == "abs") return v.is(Kind::kInt) ? Value::integer(std::llabs(v.as_int())) : Value::floating(std::fabs(v.as_float()));
    if (n == "string") return c.r.string([&] { std::string s; append_value_text(s, v); return s; }());
  }
  if (v.is(Kind::kBool) && c.bare()) {
    if (n == "bool") return v;
    if (n == "string") return Value::string(v.as_bool() ? "true" : "false");
  }
  if (v.is_none() && c.bare() && n == "string") return Value::string("None");
  if (v.is_undefined() && c.bare()) {
    if (n == "string" || n == "trim" || n == "upper" || n == "lower" || n == "title" || n == "capitalize") return Value::string("");
    if (n == "length" || n == "count") return Value::integer(0);
    if (n == "list" || n == "items") return Value::array(c.r.new_array());
    if (n == "first" || n == "last") return Value::undefined(n);
  }
  c.unsupported();
}

Value object_filter(const FilterCall& c) {
  const ObjectData& o = c.operand.object();
  std::string_view n = c.name;
  bool plain = o.type != ObjectType::kNamespace;
  if (c.bare() && n == "string") return c.r.string([&] { std::string s; append_python_repr(s, c.operand, c.r.max_bytes()); return s; }());
  if (!plain) c.unsupported();
  if (c.bare() && (n == "length" || n == "count")) return Value::integer(static_cast<std::int64_t>(o.entries.size()));
  if (c.bare() && n == "list") return call_method(c.r, c.operand, "keys", c.r.new_args());
  if (n == "items" || n == "get" || n == "keys" || n == "values" || n == "dictsort")
    return call_method(c.r, c.operand, n, c.args ? *c.args : c.r.new_args());
  c.unsupported();
}

}  // namespace

void FilterCall::unsupported() const {
  template_fail("filter '{}'{} cannot be applied to {}", name, args ? "(...)" : "", a_kind(operand));
}

Value Renderer::filter(std::string_view name, const Value& operand, const Args* args, Scope* scope) {
  FilterCall c{*this, name, operand, args, scope};
  if (name == "safe") return operand;
  if (name == "tojson") return tojson(c);
  if (name == "default" || name == "d") return default_filter(c);
  if (name == "join" && (args || !operand.is_string())) return join(c);
  if (name == "int" || name == "float") return to_number(c, name == "int");
  if (operand.is_array())
    if (auto v = list_filter(c)) return *v;
  if (operand.is_string()) return string_filter(c);
  if (operand.is_object()) return object_filter(c);
  if (operand.is(Kind::kFunction)) c.unsupported();
  return scalar_filter(c);
}

}  // namespace ogai::chat::jinja
