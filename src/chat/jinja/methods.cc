// Methods templates call on strings (upper, lower, strip, lstrip, rstrip, title, capitalize,
// startswith, endswith, split, replace; plus Python's format and join) and on dicts (get, items,
// keys, values, dictsort; loop.cycle). Semantics follow @huggingface/jinja; for example strip()
// and its variants ignore a characters argument, as that engine does.
#include <algorithm>
#include <string>

#include "chat/jinja/error.h"
#include "chat/jinja/interpreter.h"
#include "chat/jinja/methods.h"
#include "chat/jinja/text.h"
#include "chat/jinja/unicode.h"

namespace ogai::chat::jinja {
namespace {

constexpr std::string_view kStringMethods[] = {"upper", "lower", "strip", "lstrip", "rstrip", "title", "capitalize",
                                               "startswith", "endswith", "split", "replace", "format", "join"};
constexpr std::string_view kDictMethods[] = {"get", "items", "keys", "values", "dictsort"};

bool affix_match(const Value& self, const Args& args, bool prefix) {
  const char* name = prefix ? "startswith" : "endswith";
  const Value* pattern = args.get(0);
  if (!pattern) template_fail("{}() needs an argument", name);
  auto one = [&](std::string_view p) {
    std::string_view s = self.as_string();
    return prefix ? s.starts_with(p) : s.ends_with(p);
  };
  if (pattern->is_string()) return one(pattern->as_string());
  if (!pattern->is_array()) template_fail("{}() needs a string or a tuple of strings, got {}", name, a_kind(*pattern));
  for (const Value& item : pattern->array().items) {
    if (!item.is_string()) template_fail("{}() tuple items must be strings", name);
    if (one(item.as_string())) return true;
  }
  return false;
}

Value split(Renderer& r, std::string_view s, const Args& args) {
  const Value* sep = args.get(0, "sep");
  const Value* max = args.get(1, "maxsplit");
  if (sep && !sep->is_string() && !sep->is_none()) template_fail("split() separator must be a string or none");
  if (max && !max->is(Kind::kInt)) template_fail("split() maxsplit must be an integer");
  std::int64_t maxsplit = max ? max->as_int() : -1;
  ArrayData* out = r.new_array();
  auto push = [&](std::string_view part) { out->items.push_back(Value::string(part)); };
  if (!sep || sep->is_none()) {
    std::string_view text = js_trim(s, true, false);
    for (std::size_t i = 0; i < text.size();) {
      i += js_space_run_after(text, i);
      if (i >= text.size()) break;
      if (maxsplit != -1 && static_cast<std::int64_t>(out->items.size()) >= maxsplit) return push(text.substr(i)), Value::array(out);
      std::size_t end = i;
      while (end < text.size() && js_space_run_after(text, end) == 0) {
        decode_utf8(text, end);
      }
      push(text.substr(i, end - i));
      i = end;
    }
    return Value::array(out);
  }
  std::string_view d = sep->as_string();
  if (d.empty()) template_fail("split() separator is empty");
  std::size_t start = 0;
  for (std::size_t p; (p = s.find(d, start)) != std::string_view::npos; start = p + d.size()) {
    if (maxsplit != -1 && static_cast<std::int64_t>(out->items.size()) >= maxsplit) break;
    push(s.substr(start, p - start));
  }
  push(s.substr(start));
  return Value::array(out);
}

std::string title(std::string_view s) {
  std::string out(s);
  for (std::size_t i = 0; i < out.size(); ++i)
    if (is_ascii_word(out[i]) && (i == 0 || !is_ascii_word(out[i - 1])) && out[i] >= 'a' && out[i] <= 'z') out[i] -= 32;
  return out;
}

std::string capitalize(std::string_view s) {
  if (s.empty()) return {};
  std::size_t end = 0;
  decode_utf8(s, end);
  return to_upper(s.substr(0, end)) + std::string(s.substr(end));
}

// Python's str.format with {} / {0} / {name} fields, !s / !r conversions and no format specs.
std::string format(std::string_view f, const Args& args, std::size_t max_bytes) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if ((f[i] == '{' || f[i] == '}') && i + 1 < f.size() && f[i + 1] == f[i]) {
      out += f[i++];
      continue;
    }
    if (f[i] == '}') template_fail("format(): single '}}' in the format string");
    if (f[i] != '{') {
      out += f[i];
      continue;
    }
    std::size_t close = f.find('}', i);
    if (close == std::string_view::npos) template_fail("format(): '{{' without a matching '}}'");
    std::string_view field = f.substr(i + 1, close - i - 1);
    char conversion = 's';
    if (field.size() >= 2 && field[field.size() - 2] == '!') conversion = field.back(), field.remove_suffix(2);
    if (field.find(':') != std::string_view::npos) template_fail("format(): format specs are not supported");
    const Value* v = nullptr;
    if (field.empty()) v = args.get(next++);
    else if (std::all_of(field.begin(), field.end(), is_ascii_digit)) v = field.size() < 9 ? args.get(std::stoul(std::string(field))) : nullptr;
    else v = args.keyword_arg(field);
    if (!v) template_fail("format(): no argument for field '{{{}}}'", field);
    if (conversion == 'r') append_python_repr(out, *v, max_bytes);
    else append_python_str(out, *v, max_bytes);
    i = close;
  }
  return out;
}

Value join(Renderer& r, std::string_view sep, const Args& args) {
  const Value* items = args.get(0);
  if (!items || !items->is_array()) template_fail("join() needs a list of strings");
  std::string out;
  bool first = true;
  for (const Value& item : items->array().items) {
    if (!item.is_string()) template_fail("join() items must be strings, got {}", a_kind(item));
    if (!first) out += sep;
    first = false;
    out += item.as_string();
    if (out.size() > r.max_bytes()) r.string(out);  // fails with the size limit
  }
  return r.string(out);
}

Value string_method(Renderer& r, std::string_view s, std::string_view name, const Args& args) {
  if (name == "upper") return r.string(to_upper(s));
  if (name == "lower") return r.string(to_lower(s));
  if (name == "strip") return Value::string(js_trim(s, true, true));
  if (name == "lstrip") return Value::string(js_trim(s, true, false));
  if (name == "rstrip") return Value::string(js_trim(s, false, true));
  if (name == "title") return r.string(title(s));
  if (name == "capitalize") return r.string(capitalize(s));
  if (name == "split") return split(r, s, args);
  if (name == "replace") return replace_text(r, s, args);
  if (name == "format") return r.string(format(s, args, r.max_bytes()));
  if (name == "join") return join(r, s, args);
  return Value::undefined();
}

Value pairs(Renderer& r, const ObjectData& o) {
  ArrayData* out = r.new_array();
  for (const Entry& e : o.entries) {
    ArrayData* pair = r.new_array();
    pair->items = {Value::string(e.key), e.value};
    out->items.push_back(Value::array(pair));
  }
  return Value::array(out);
}

}  // namespace

bool has_method(const Value& self, std::string_view name) {
  if (self.is_string()) return std::find(std::begin(kStringMethods), std::end(kStringMethods), name) != std::end(kStringMethods);
  if (!self.is_object() || self.object().type == ObjectType::kNamespace) return false;
  if (self.object().type == ObjectType::kLoop && name == "cycle") return true;
  return std::find(std::begin(kDictMethods), std::end(kDictMethods), name) != std::end(kDictMethods);
}

Value replace_text(Renderer& r, std::string_view s, const Args& args) {
  const Value* from = args.get(0);
  const Value* to = args.get(1);
  if (!from || !to) template_fail("replace() needs two arguments");
  if (!from->is_string() || !to->is_string()) template_fail("replace() arguments must be strings");
  const Value* count = args.get(2, "count");
  if (count && !count->is(Kind::kInt) && !count->is_none()) template_fail("replace() count must be an integer or none");
  std::int64_t left = count && count->is(Kind::kInt) && count->as_int() >= 0 ? count->as_int() : -1;
  std::string_view a = from->as_string(), b = to->as_string();
  std::string out;
  std::size_t i = 0;
  auto check = [&] {
    if (out.size() > r.max_bytes()) r.string(out);  // fails with the size limit
  };
  if (a.empty()) {  // insert between code points, at both ends too
    while (true) {
      if (left != 0) out += b, left -= left > 0;
      if (i >= s.size()) break;
      std::size_t start = i;
      decode_utf8(s, i);
      out += s.substr(start, i - start);
      check();
    }
    return r.string(out);
  }
  for (std::size_t p; left != 0 && (p = s.find(a, i)) != std::string_view::npos; i = p + a.size(), left -= left > 0) {
    out += s.substr(i, p - i);
    out += b;
    check();
  }
  out += s.substr(i);
  return r.string(out);
}

Value dictsort(Renderer& r, const ObjectData& o, const Args& args) {
  const Value* cs = args.get(0, "case_sensitive");
  const Value* by = args.get(1, "by");
  const Value* reverse = args.get(2, "reverse");
  if (cs && !cs->is(Kind::kBool)) template_fail("dictsort() case_sensitive must be a boolean");
  if (by && !(by->is_string() && (by->as_string() == "key" || by->as_string() == "value")))
    template_fail("dictsort() by must be 'key' or 'value'");
  if (reverse && !reverse->is(Kind::kBool)) template_fail("dictsort() reverse must be a boolean");
  std::size_t index = by && by->as_string() == "value" ? 1 : 0;
  Value items = pairs(r, o);
  auto& v = items.array().items;
  std::stable_sort(v.begin(), v.end(), [&](const Value& a, const Value& b) {
    int c = compare_values(a.array().items[index], b.array().items[index], cs && cs->as_bool());
    return reverse && reverse->as_bool() ? c > 0 : c < 0;
  });
  return items;
}

Value call_method(Renderer& r, const Value& self, std::string_view name, const Args& args) {
  if (self.is_string()) {
    if (name == "startswith" || name == "endswith") return Value::boolean(affix_match(self, args, name == "startswith"));
    return string_method(r, self.as_string(), name, args);
  }
  const ObjectData& o = self.object();
  if (name == "cycle") {
    if (args.positional.empty()) template_fail("loop.cycle() needs at least one value");
    return args.positional[static_cast<std::size_t>(o.loop_index) % args.positional.size()];
  }
  if (name == "get") {
    const Value* key = args.get(0);
    if (!key || !key->is_string()) template_fail("get() key must be a string");
    if (const Value* v = o.find(key->as_string())) return *v;
    const Value* fallback = args.get(1, "default");
    return fallback ? *fallback : Value::none();
  }
  if (name == "items") return pairs(r, o);
  if (name == "dictsort") return dictsort(r, o, args);
  ArrayData* out = r.new_array();
  for (const Entry& e : o.entries) out->items.push_back(name == "keys" ? Value::string(e.key) : e.value);
  return Value::array(out);
}

}  // namespace ogai::chat::jinja
