// Binary operators with @huggingface/jinja's semantics: == and != are JavaScript's loose
// equality, `in` uses strict equality, arithmetic keeps integers integral except `/`, `~` and `+`
// with a string concatenate JavaScript's String() forms. Where that engine raises and Jinja does
// not, ogai does what Jinja does: `~` with none/undefined, ordering strings with < > <= >=.
#include <cmath>
#include <string>

#include "chat/jinja/error.h"
#include "chat/jinja/interpreter.h"
#include "chat/jinja/text.h"
#include "chat/jinja/unicode.h"

namespace ogai::chat::jinja {
namespace {

enum class JsType { kUndefined, kNull, kBoolean, kNumber, kString, kObject };

JsType js_type(const Value& v) {
  switch (v.kind()) {
    case Kind::kUndefined: return JsType::kUndefined;
    case Kind::kNone: return JsType::kNull;
    case Kind::kBool: return JsType::kBoolean;
    case Kind::kInt:
    case Kind::kFloat: return JsType::kNumber;
    case Kind::kString: return JsType::kString;
    default: return JsType::kObject;
  }
}

// JavaScript's ToNumber for a string: whitespace-trimmed decimal, hex/octal/binary, Infinity; "" is 0.
double js_to_number(std::string_view s) {
  s = js_trim(s, true, true);
  if (s.empty()) return 0;
  std::string t(s);
  if (t == "Infinity" || t == "+Infinity") return INFINITY;
  if (t == "-Infinity") return -INFINITY;
  if (t.size() > 2 && t[0] == '0' && std::string("xXoObB").find(t[1]) != std::string::npos) {
    int base = (t[1] == 'x' || t[1] == 'X') ? 16 : (t[1] == 'o' || t[1] == 'O') ? 8 : 2;
    char* end = nullptr;
    double v = static_cast<double>(std::strtoull(t.c_str() + 2, &end, base));
    return *end ? NAN : v;
  }
  std::size_t i = (t[0] == '+' || t[0] == '-') ? 1 : 0, digits = 0;
  while (i < t.size() && is_ascii_digit(t[i])) ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && is_ascii_digit(t[i])) ++i, ++digits;
  }
  if (digits == 0) return NAN;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    std::size_t j = i + 1 + ((i + 1 < t.size() && (t[i + 1] == '+' || t[i + 1] == '-')) ? 1 : 0);
    if (j >= t.size() || !is_ascii_digit(t[j])) return NAN;
    while (j < t.size() && is_ascii_digit(t[j])) ++j;
    i = j;
  }
  return i == t.size() ? std::strtod(t.c_str(), nullptr) : NAN;
}

double js_number(const Value& v) {
  if (v.is(Kind::kBool)) return v.as_bool() ? 1 : 0;
  if (v.is_numeric()) return v.as_number();
  return js_to_number(v.as_string());
}

bool numeric_like(const Value& v) { return v.is_numeric() || v.is(Kind::kBool); }

Value number_result(bool integral, double value) {
  if (integral && std::isfinite(value) && std::fabs(value) < 9.2e18) return Value::integer(static_cast<std::int64_t>(value));
  return Value::floating(value);
}

Value arithmetic(BinaryOp op, const Value& l, const Value& r) {
  bool ints = l.is(Kind::kInt) && r.is(Kind::kInt);
  double a = l.as_number(), b = r.as_number();
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul: {
      std::int64_t out;
      if (ints) {
        bool overflow = op == BinaryOp::kAdd ? __builtin_add_overflow(l.as_int(), r.as_int(), &out)
                        : op == BinaryOp::kSub ? __builtin_sub_overflow(l.as_int(), r.as_int(), &out)
                                               : __builtin_mul_overflow(l.as_int(), r.as_int(), &out);
        if (!overflow) return Value::integer(out);
      }
      return number_result(ints, op == BinaryOp::kAdd ? a + b : op == BinaryOp::kSub ? a - b : a * b);
    }
    case BinaryOp::kDiv: return Value::floating(a / b);
    case BinaryOp::kFloorDiv: return number_result(ints, std::floor(a / b));
    case BinaryOp::kMod:
      if (ints && r.as_int() != 0) return Value::integer(l.as_int() % r.as_int());
      return Value::floating(std::fmod(a, b));
    case BinaryOp::kLt: return Value::boolean(a < b);
    case BinaryOp::kGt: return Value::boolean(a > b);
    case BinaryOp::kLe: return Value::boolean(a <= b);
    case BinaryOp::kGe: return Value::boolean(a >= b);
    default: return Value::undefined();
  }
}

Value power(const Value& l, const Value& r) {
  double a = js_number(l), b = js_number(r);
  if (a == 0 && b < 0) template_fail("0 cannot be raised to a negative power");
  double v = std::pow(a, b);
  if (!std::isfinite(v)) template_fail("'**' result is not a finite number");
  return number_result(!(l.is(Kind::kFloat) || r.is(Kind::kFloat) || b < 0), v);
}

bool array_contains(const Value& array, const Value& x) {
  for (const Value& item : array.array().items)
    if (strict_equal(item, x)) return true;
  return false;
}

std::string js_string(const Value& v, std::size_t max_bytes) {
  std::string s;
  append_js_string(s, v, max_bytes);
  return s;
}

}  // namespace

const char* op_text(BinaryOp op) {
  static const char* kText[] = {"and", "or", "==", "!=", "<", ">", "<=", ">=", "in", "not in", "+", "-", "~", "*", "/", "//", "%", "**"};
  return kText[static_cast<int>(op)];
}

bool strict_equal(const Value& a, const Value& b) {
  JsType ta = js_type(a);
  if (ta != js_type(b)) return false;
  switch (ta) {
    case JsType::kUndefined:
    case JsType::kNull: return true;
    case JsType::kBoolean: return a.as_bool() == b.as_bool();
    case JsType::kNumber: return a.as_number() == b.as_number();
    case JsType::kString: return a.as_string() == b.as_string();
    case JsType::kObject: return a.pointer() == b.pointer();
  }
  return false;
}

bool loose_equal(const Value& a, const Value& b, std::size_t max_bytes) {
  JsType ta = js_type(a), tb = js_type(b);
  if (ta == tb) return strict_equal(a, b);
  auto nullish = [](JsType t) { return t == JsType::kNull || t == JsType::kUndefined; };
  if (nullish(ta) || nullish(tb)) return nullish(ta) && nullish(tb);
  if (ta == JsType::kObject || tb == JsType::kObject) {
    const Value& object = ta == JsType::kObject ? a : b;
    const Value& other = ta == JsType::kObject ? b : a;
    if (object.is(Kind::kFunction) || js_type(other) == JsType::kObject) return false;
    std::string primitive = js_string(object, max_bytes);
    if (js_type(other) == JsType::kString) return primitive == other.as_string();
    return js_to_number(primitive) == js_number(other);
  }
  if (ta == JsType::kString && tb == JsType::kString) return a.as_string() == b.as_string();
  return js_number(a) == js_number(b);
}

int compare_values(const Value& a, const Value& b, bool case_sensitive) {
  if ((a.is_none() && b.is_none()) || (a.is_undefined() && b.is_undefined())) return 0;
  if (a.is_none() || b.is_none() || a.is_undefined() || b.is_undefined())
    template_fail("cannot compare {} with {}", a_kind(a), a_kind(b));
  if (numeric_like(a) && numeric_like(b)) {
    double x = js_number(a), y = js_number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.kind() != b.kind()) template_fail("cannot compare {} with {}", a_kind(a), a_kind(b));
  if (!a.is_string()) template_fail("cannot order values of type {}", kind_name(a));
  if (case_sensitive) return a.as_string().compare(b.as_string()) < 0 ? -1 : a.as_string() == b.as_string() ? 0 : 1;
  std::string x = to_lower(a.as_string()), y = to_lower(b.as_string());
  return x < y ? -1 : x > y ? 1 : 0;
}

Value binary_operation(Renderer& r, BinaryOp op, const Value& left, const Value& right) {
  if (op == BinaryOp::kEq) return Value::boolean(loose_equal(left, right, r.max_bytes()));
  if (op == BinaryOp::kNe) return Value::boolean(!loose_equal(left, right, r.max_bytes()));
  bool is_in = op == BinaryOp::kIn || op == BinaryOp::kNotIn;
  if ((op == BinaryOp::kConcat || op == BinaryOp::kAdd) && left.is_string() && right.is_string())
    return r.concat(left.as_string(), right.as_string());
  if (op == BinaryOp::kConcat && !left.is(Kind::kFunction) && !right.is(Kind::kFunction)) {
    std::string s;
    append_js_string(s, left, r.max_bytes());
    append_js_string(s, right, r.max_bytes());
    return r.string(s);
  }
  if (left.is_undefined() || right.is_undefined()) {
    if (right.is_undefined() && is_in) return Value::boolean(op == BinaryOp::kNotIn);
    template_fail("cannot apply '{}' to an undefined value ({} is undefined)", op_text(op),
                  describe_undefined(left.is_undefined() ? left : right));
  }
  if (left.is_none() || right.is_none()) template_fail("cannot apply '{}' to none", op_text(op));
  if (op == BinaryOp::kPow && numeric_like(left) && numeric_like(right)) return power(left, right);
  if (left.is_numeric() && right.is_numeric() && op != BinaryOp::kPow && !is_in) return arithmetic(op, left, right);
  if (left.is_array() && right.is_array()) {
    if (op == BinaryOp::kAdd) {
      ArrayData* out = r.new_array();
      out->items.assign(left.array().items.begin(), left.array().items.end());
      out->items.insert(out->items.end(), right.array().items.begin(), right.array().items.end());
      return Value::array(out);
    }
  } else if (right.is_array() && is_in) {
    return Value::boolean(array_contains(right, left) == (op == BinaryOp::kIn));
  }
  if ((left.is_string() || right.is_string()) && op == BinaryOp::kAdd) return r.string(js_string(left, r.max_bytes()) + js_string(right, r.max_bytes()));
  if (left.is_string() && right.is_string()) {
    if (is_in) return Value::boolean((right.as_string().find(left.as_string()) != std::string_view::npos) == (op == BinaryOp::kIn));
    int c = left.as_string().compare(right.as_string());  // Jinja orders strings by code point
    if (op == BinaryOp::kLt) return Value::boolean(c < 0);
    if (op == BinaryOp::kGt) return Value::boolean(c > 0);
    if (op == BinaryOp::kLe) return Value::boolean(c <= 0);
    if (op == BinaryOp::kGe) return Value::boolean(c >= 0);
  }
  if (left.is_string() && right.is_object() && right.object().type != ObjectType::kNamespace && is_in)
    return Value::boolean((right.object().find(left.as_string()) != nullptr) == (op == BinaryOp::kIn));
  template_fail("cannot apply '{}' to {} and {}", op_text(op), a_kind(left), a_kind(right));
}

}  // namespace ogai::chat::jinja
