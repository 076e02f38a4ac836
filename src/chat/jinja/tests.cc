// `is` tests. @huggingface/jinja's: defined, undefined, none, string, number, integer, float,
// boolean, true, false, mapping, iterable, sequence, callable, odd, even, lower, upper,
// eq/equalto. Jinja's (that engine has none of them, nor test arguments): divisibleby, sameas,
// ne, lt, le, gt, ge, in.
#include <cmath>

#include "chat/jinja/error.h"
#include "chat/jinja/interpreter.h"
#include "chat/jinja/unicode.h"

namespace ogai::chat::jinja {
namespace {

const Value& argument(std::string_view name, const Args& args) {
  if (args.positional.empty()) template_fail("test '{}' needs an argument", name);
  return args.positional[0];
}

bool integer_test(std::string_view name, const Value& v, bool odd) {
  if (!v.is(Kind::kInt)) template_fail("test '{}' needs an integer, got {}", name, a_kind(v));
  return (v.as_int() % 2 != 0) == odd;
}

// Python's ordering for the lt/le/gt/ge tests: numbers with numbers, strings with strings.
int order(std::string_view name, const Value& a, const Value& b) {
  if (a.is_numeric() && b.is_numeric()) return a.as_number() < b.as_number() ? -1 : a.as_number() > b.as_number() ? 1 : 0;
  if (a.is_string() && b.is_string()) return a.as_string().compare(b.as_string()) < 0 ? -1 : a.as_string() == b.as_string() ? 0 : 1;
  template_fail("test '{}' cannot order {} and {}", name, a_kind(a), a_kind(b));
}

bool contains(const Value& needle, const Value& haystack) {
  if (haystack.is_array()) {
    for (const Value& item : haystack.array().items)
      if (strict_equal(item, needle)) return true;
    return false;
  }
  if (haystack.is_string() && needle.is_string()) return haystack.as_string().find(needle.as_string()) != std::string_view::npos;
  if (haystack.is_object() && needle.is_string()) return haystack.object().find(needle.as_string()) != nullptr;
  template_fail("test 'in' cannot look for {} in {}", a_kind(needle), a_kind(haystack));
}

}  // namespace

bool Renderer::test(std::string_view n, const Value& v, const Args& args) {
  Kind k = v.kind();
  if (n == "defined") return k != Kind::kUndefined;
  if (n == "undefined") return k == Kind::kUndefined;
  if (n == "none") return k == Kind::kNone;
  if (n == "string") return k == Kind::kString;
  if (n == "number") return v.is_numeric();
  if (n == "integer") return k == Kind::kInt;
  if (n == "float") return k == Kind::kFloat;
  if (n == "boolean") return k == Kind::kBool;
  if (n == "true") return k == Kind::kBool && v.as_bool();
  if (n == "false") return k == Kind::kBool && !v.as_bool();
  if (n == "mapping") return k == Kind::kObject && v.object().type != ObjectType::kNamespace;
  if (n == "iterable") return (k == Kind::kArray && !v.array().tuple) || k == Kind::kString;  // the engine: not tuples
  if (n == "sequence") return k == Kind::kArray || k == Kind::kString || (k == Kind::kObject && v.object().type != ObjectType::kNamespace);
  if (n == "callable") return k == Kind::kFunction;
  if (n == "odd" || n == "even") return integer_test(n, v, n == "odd");
  if (n == "lower") return k == Kind::kString && to_lower(v.as_string()) == v.as_string();
  if (n == "upper") return k == Kind::kString && to_upper(v.as_string()) == v.as_string();
  if (n == "eq" || n == "equalto" || n == "sameas") return strict_equal(v, args.positional.empty() ? Value::undefined() : args.positional[0]);
  if (n == "ne") return !strict_equal(v, argument(n, args));
  if (n == "lt") return order(n, v, argument(n, args)) < 0;
  if (n == "le") return order(n, v, argument(n, args)) <= 0;
  if (n == "gt") return order(n, v, argument(n, args)) > 0;
  if (n == "ge") return order(n, v, argument(n, args)) >= 0;
  if (n == "in") return contains(v, argument(n, args));
  if (n == "divisibleby") {
    const Value& d = argument(n, args);
    if (!v.is_numeric() || !d.is_numeric()) template_fail("test 'divisibleby' needs numbers");
    if (d.as_number() == 0) template_fail("test 'divisibleby' cannot divide by zero");
    if (v.is(Kind::kInt) && d.is(Kind::kInt)) return v.as_int() % d.as_int() == 0;
    return std::fmod(v.as_number(), d.as_number()) == 0;
  }
  template_fail("unknown test '{}'", n);
}

}  // namespace ogai::chat::jinja
