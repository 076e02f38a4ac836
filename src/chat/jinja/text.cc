#include "chat/jinja/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "chat/jinja/error.h"
#include "chat/jinja/unicode.h"

namespace ogai::chat::jinja {
namespace {

constexpr int kMaxDepth = 512;

void check_size(const std::string& out, std::size_t max_bytes) {
  if (out.size() > max_bytes) template_fail("text built from a value exceeds the output limit of {} bytes", max_bytes);
}

// Shortest round-trip digits of |d| (finite, non-zero) and the decimal exponent n such that
// |d| = 0.DIGITS x 10^n.
struct Decimal {
  std::string digits;
  int point;
};

Decimal shortest(double d) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(d), std::chars_format::scientific);
  std::string_view s(buf, r.ptr - buf);
  std::size_t e = s.find('e');
  Decimal out;
  for (char c : s.substr(0, e))
    if (c != '.') out.digits += c;
  out.point = std::stoi(std::string(s.substr(e + 1))) + 1;
  return out;
}

void append_exponent(std::string& out, int exp, int min_digits) {
  out += exp < 0 ? '-' : '+';
  std::string digits = std::to_string(std::abs(exp));
  if (static_cast<int>(digits.size()) < min_digits) out.append(min_digits - digits.size(), '0');
  out += digits;
}

void append_mantissa(std::string& out, const std::string& digits) {
  out += digits[0];
  if (digits.size() > 1) out.append(".").append(digits, 1);
}

void append_python_float(std::string& out, double d) {
  if (std::isnan(d)) return void(out += "nan");
  if (std::isinf(d)) return void(out += d < 0 ? "-inf" : "inf");
  if (std::signbit(d)) out += '-';
  if (d == 0) return void(out += "0.0");
  Decimal dec = shortest(d);
  int k = static_cast<int>(dec.digits.size()), n = dec.point;
  if (n <= -4 || n > 16) {
    append_mantissa(out, dec.digits);
    out += 'e';
    return append_exponent(out, n - 1, 2);
  }
  if (n <= 0) return void(out.append("0.").append(-n, '0').append(dec.digits));
  if (k <= n) return void(out.append(dec.digits).append(n - k, '0').append(".0"));
  out.append(dec.digits, 0, n).append(".").append(dec.digits, n);
}

void append_python_string(std::string& out, std::string_view s) {
  bool has_single = s.find('\'') != s.npos, has_double = s.find('"') != s.npos;
  char quote = has_single && !has_double ? '"' : '\'';
  out += quote;
  char buf[16];
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    char32_t cp = decode_utf8(s, i);
    if (cp == '\\' || cp == static_cast<char32_t>(quote)) out.append(1, '\\').append(1, static_cast<char>(cp));
    else if (cp == '\n') out += "\\n";
    else if (cp == '\r') out += "\\r";
    else if (cp == '\t') out += "\\t";
    else if (python_printable(cp)) out.append(s.substr(start, i - start));
    else {
      const char* format = cp <= 0xFF ? "\\x%02x" : cp <= 0xFFFF ? "\\u%04x" : "\\U%08x";
      std::snprintf(buf, sizeof buf, format, static_cast<unsigned>(cp));
      out += buf;
    }
  }
  out += quote;
}

std::vector<const Entry*> ordered_entries(const ObjectData& o, bool sort_keys) {
  std::vector<const Entry*> entries;
  entries.reserve(o.entries.size());
  for (const Entry& e : o.entries) entries.push_back(&e);
  if (sort_keys)
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry* a, const Entry* b) { return locale_compare(a->key, b->key) < 0; });
  return entries;
}

}  // namespace

void append_js_number(std::string& out, double d) {
  if (std::isnan(d)) return void(out += "NaN");
  if (std::isinf(d)) return void(out += d < 0 ? "-Infinity" : "Infinity");
  if (d == 0) return void(out += '0');
  if (d < 0) out += '-';
  Decimal dec = shortest(d);
  int k = static_cast<int>(dec.digits.size()), n = dec.point;
  if (k <= n && n <= 21) return void(out.append(dec.digits).append(n - k, '0'));
  if (0 < n && n <= 21) return void(out.append(dec.digits, 0, n).append(".").append(dec.digits, n));
  if (-6 < n && n <= 0) return void(out.append("0.").append(-n, '0').append(dec.digits));
  append_mantissa(out, dec.digits);
  out += 'e';
  append_exponent(out, n - 1, 1);
}

void append_float_text(std::string& out, double d) {
  if (d == 0 && std::signbit(d)) return void(out += "-0.0");
  if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 1e21) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed, 0);
    return void(out.append(buf, r.ptr).append(".0"));
  }
  append_js_number(out, d);
}

void append_json_string(std::string& out, std::string_view s, bool ensure_ascii) {
  char buf[16];
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && (c < 0x7F || !ensure_ascii)) {
      out += s[i++];
      continue;
    }
    char32_t cp = decode_utf8(s, i);
    switch (cp) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
    }
    if (cp >= 0x10000) {
      std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", static_cast<unsigned>(0xD800 + ((cp - 0x10000) >> 10)),
                    static_cast<unsigned>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
    } else {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
    }
    out += buf;
  }
  out += '"';
}

void append_json(std::string& out, const Value& v, const JsonOptions& o, int depth) {
  if (depth > kMaxDepth) template_fail("value nested more than {} levels deep (a cycle?)", kMaxDepth);
  switch (v.kind()) {
    case Kind::kUndefined: return void(out += o.undefined_as_null ? "null" : "undefined");
    case Kind::kNone: return void(out += "null");
    case Kind::kBool: return void(out += v.as_bool() ? "true" : "false");
    case Kind::kInt: return void(out += std::to_string(v.as_int()));
    case Kind::kFloat:
      if (!std::isfinite(v.as_float())) return void(out += "null");
      return append_js_number(out, v.as_float());
    case Kind::kString: return append_json_string(out, v.as_string(), o.ensure_ascii);
    case Kind::kFunction: template_fail("a function cannot be converted to JSON");
    default: break;
  }
  std::string item_sep = o.separators ? o.separators->first : o.indent ? "," : ", ";
  std::string key_sep = o.separators ? o.separators->second : ": ";
  std::string base_pad = o.indent ? "\n" + std::string(static_cast<std::size_t>(o.indent) * depth, ' ') : "";
  std::string child_pad = o.indent ? base_pad + std::string(o.indent, ' ') : "";
  bool is_array = v.is_array();
  std::size_t count = is_array ? v.array().items.size() : v.object().entries.size();
  out += is_array ? '[' : '{';
  if (is_array) {
    for (std::size_t i = 0; i < count; ++i) {
      check_size(out, o.max_bytes);
      if (i) out += item_sep;
      out += child_pad;
      append_json(out, v.array().items[i], o, depth + 1);
    }
  } else {
    bool first = true;
    for (const Entry* e : ordered_entries(v.object(), o.sort_keys)) {
      check_size(out, o.max_bytes);
      if (!first) out += item_sep;
      first = false;
      out += child_pad;
      append_json_string(out, e->key, o.ensure_ascii);
      out += key_sep;
      append_json(out, e->value, o, depth + 1);
    }
  }
  if (o.indent && count > 0) out += base_pad;
  out += is_array ? ']' : '}';
}

void append_value_text(std::string& out, const Value& v, std::size_t max_bytes) {
  switch (v.kind()) {
    case Kind::kUndefined:
    case Kind::kNone: return;
    case Kind::kBool: return void(out += v.as_bool() ? "true" : "false");
    case Kind::kInt: return void(out += std::to_string(v.as_int()));
    case Kind::kFloat: return append_float_text(out, v.as_float());
    case Kind::kString: return void(out += v.as_string());
    case Kind::kFunction: template_fail("cannot print a function; call it");
    case Kind::kArray:
      if (v.array().tuple) return append_python_repr(out, v, max_bytes);
      [[fallthrough]];
    case Kind::kObject: {
      JsonOptions o;
      o.undefined_as_null = false;
      o.max_bytes = max_bytes;
      return append_json(out, v, o);
    }
  }
}

void append_js_string(std::string& out, const Value& v, std::size_t max_bytes) {
  switch (v.kind()) {
    case Kind::kUndefined: return;
    case Kind::kNone: return void(out += "None");
    case Kind::kFloat: return append_js_number(out, v.as_float());
    case Kind::kObject: return void(out += "[object Map]");
    case Kind::kArray: {
      bool first = true;
      for (const Value& item : v.array().items) {
        check_size(out, max_bytes);
        if (!first) out += ',';
        first = false;
        if (item.is_none() || item.is_undefined()) out += "undefined";  // the engine's none holds no JS value
        else append_value_text(out, item, max_bytes);
      }
      return;
    }
    default: return append_value_text(out, v, max_bytes);
  }
}

void append_python_repr(std::string& out, const Value& v, std::size_t max_bytes, int depth) {
  if (depth > kMaxDepth) template_fail("value nested more than {} levels deep (a cycle?)", kMaxDepth);
  switch (v.kind()) {
    case Kind::kUndefined: return;
    case Kind::kNone: return void(out += "None");
    case Kind::kBool: return void(out += v.as_bool() ? "True" : "False");
    case Kind::kInt: return void(out += std::to_string(v.as_int()));
    case Kind::kFloat: return append_python_float(out, v.as_float());
    case Kind::kString: return append_python_string(out, v.as_string());
    case Kind::kFunction: return void(out += "<function>");
    case Kind::kArray: {
      const ArrayData& a = v.array();
      out += a.tuple ? '(' : '[';
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        check_size(out, max_bytes);
        if (i) out += ", ";
        append_python_repr(out, a.items[i], max_bytes, depth + 1);
      }
      if (a.tuple && a.items.size() == 1) out += ',';
      return void(out += a.tuple ? ')' : ']');
    }
    case Kind::kObject: {
      const ObjectData& o = v.object();
      if (o.type == ObjectType::kNamespace) out += "<Namespace ";
      out += '{';
      for (std::size_t i = 0; i < o.entries.size(); ++i) {
        check_size(out, max_bytes);
        if (i) out += ", ";
        append_python_string(out, o.entries[i].key);
        out += ": ";
        append_python_repr(out, o.entries[i].value, max_bytes, depth + 1);
      }
      out += '}';
      if (o.type == ObjectType::kNamespace) out += '>';
      return;
    }
  }
}

void append_python_str(std::string& out, const Value& v, std::size_t max_bytes) {
  if (v.is_string()) out += v.as_string();
  else append_python_repr(out, v, max_bytes);
}

}  // namespace ogai::chat::jinja
