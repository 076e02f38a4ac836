// Global functions: range, namespace, dict, raise_exception, strftime_now; and the constants
// true/false/none (also spelled True/False/None).
#include <algorithm>
#include <cmath>
#include <ctime>
#include <string>

#include "chat/jinja/error.h"
#include "chat/jinja/interpreter.h"
#include "chat/jinja/parser.h"
#include "chat/jinja/text.h"

namespace ogai::chat::jinja {
namespace {

const Callable kBuiltins[] = {
    Callable::builtin_function(kSymRange), Callable::builtin_function(kSymNamespace),
    Callable::builtin_function(kSymDict), Callable::builtin_function(kSymRaiseException),
    Callable::builtin_function(kSymStrftimeNow)};

Value range(Renderer& r, const Args& args) {
  if (args.positional.empty() || args.positional.size() > 3) template_fail("range() takes 1 to 3 arguments");
  for (const Value& v : args.positional)
    if (!v.is_numeric()) template_fail("range() arguments must be numbers, got {}", a_kind(v));
  double start = 0, stop = args.positional[0].as_number(), step = 1;
  if (args.positional.size() >= 2) start = stop, stop = args.positional[1].as_number();
  if (args.positional.size() == 3) step = args.positional[2].as_number();
  if (step == 0) template_fail("range() step must not be zero");
  double count = std::max(0.0, std::ceil((stop - start) / step));
  r.count_iterations(static_cast<std::uint64_t>(std::min(count, 1e18)));
  ArrayData* out = r.new_array();
  out->items.reserve(static_cast<std::size_t>(count));
  for (double i = start; step > 0 ? i < stop : i > stop; i += step) out->items.push_back(Value::number(i));
  return Value::array(out);
}

void add_pair(ObjectData* o, const Value& pair, const char* who) {
  if (!pair.is_array() || pair.array().items.size() != 2 || !pair.array().items[0].is_string())
    template_fail("{} expects a dict or a list of [key, value] pairs with string keys", who);
  o->set(pair.array().items[0].as_string(), pair.array().items[1]);
}

Value mapping(Renderer& r, const Args& args, ObjectType type, const char* who) {
  if (args.positional.size() > 1) template_fail("{} takes at most 1 positional argument, got {}", who, args.positional.size());
  ObjectData* o = r.new_object(type);
  if (!args.positional.empty()) {
    const Value& source = args.positional[0];
    if (source.is_object() && source.object().type == ObjectType::kDict) {
      for (const Entry& e : source.object().entries) o->set(e.key, e.value);
    } else if (source.is_array()) {
      for (const Value& pair : source.array().items) add_pair(o, pair, who);
    } else {
      template_fail("{} cannot build a mapping from {}", who, a_kind(source));
    }
  }
  for (const Entry& e : args.keyword) o->set(e.key, e.value);
  return Value::object(o);
}

// @huggingface/jinja's strftime: %Y %m %d %b %B %H %M and %%; anything else is kept as written.
Value strftime_now(Renderer& r, const Args& args) {
  const Value* format = args.get(0, "format");
  if (!format || !format->is_string()) template_fail("strftime_now() needs a format string");
  static const char* kMonths[] = {"January", "February", "March", "April", "May", "June", "July",
                                  "August", "September", "October", "November", "December"};
  std::time_t now = r.now();
  std::tm tm{};
  localtime_r(&now, &tm);
  auto two = [](int n) { return (n < 10 ? "0" : "") + std::to_string(n); };
  std::string_view f = format->as_string();
  std::string out;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%' || i + 1 >= f.size()) {
      out += f[i];
      continue;
    }
    switch (f[i + 1]) {
      case 'Y': out += std::to_string(tm.tm_year + 1900); break;
      case 'm': out += two(tm.tm_mon + 1); break;
      case 'd': out += two(tm.tm_mday); break;
      case 'b': out += std::string_view(kMonths[tm.tm_mon]).substr(0, 3); break;
      case 'B': out += kMonths[tm.tm_mon]; break;
      case 'H': out += two(tm.tm_hour); break;
      case 'M': out += two(tm.tm_min); break;
      case '%': out += '%'; break;
      default: out += f[i]; continue;
    }
    ++i;
  }
  return r.string(out);
}

}  // namespace

Value builtin_value(SymbolId id) {
  switch (id) {
    case kSymRange: return Value::function(&kBuiltins[0]);
    case kSymNamespace: return Value::function(&kBuiltins[1]);
    case kSymDict: return Value::function(&kBuiltins[2]);
    case kSymRaiseException: return Value::function(&kBuiltins[3]);
    case kSymStrftimeNow: return Value::function(&kBuiltins[4]);
    case kSymTrue:
    case kSymTrueUpper: return Value::boolean(true);
    case kSymFalse:
    case kSymFalseUpper: return Value::boolean(false);
    case kSymNone:
    case kSymNoneUpper: return Value::none();
    default: return Value::undefined();
  }
}

Value call_builtin(Renderer& r, SymbolId id, const Args& args) {
  switch (id) {
    case kSymRange: return range(r, args);
    case kSymNamespace: return mapping(r, args, ObjectType::kNamespace, "namespace()");
    case kSymDict: return mapping(r, args, ObjectType::kDict, "dict()");
    case kSymStrftimeNow: return strftime_now(r, args);
    case kSymRaiseException: {
      std::string message;
      if (const Value* m = args.get(0, "message")) append_python_str(message, *m, r.max_bytes());
      throw RaisedByTemplate{message};
    }
    default: template_fail("unknown builtin function");
  }
}

}  // namespace ogai::chat::jinja
