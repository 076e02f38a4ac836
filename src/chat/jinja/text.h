// Turning values into text. Three conventions meet in chat templates:
//  - @huggingface/jinja's (the differential oracle): what `{{ x }}` prints (true/false, floats
//    with ".0", lists and dicts as JSON with ", " and ": "), what `~` and `+` print (JavaScript's
//    String(value)), and its `tojson` (JSON.stringify plus Python's separators and indent);
//  - Python's repr, for the few places where that engine has no answer and ogai follows Jinja2
//    (`dict|string`, printing a tuple);
//  - JavaScript number formatting (shortest round-trip digits).
// Pure functions; throw TemplateFailure (see error.h) for values that have no text form.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "chat/jinja/value.h"

namespace ogai::chat::jinja {

// Values can share parts ({% set l = [l, l] %}), so printing one can be exponential: every
// printer below fails with TemplateFailure once `out` grows past `max_bytes`.
constexpr std::size_t kNoLimit = static_cast<std::size_t>(-1);

void append_js_number(std::string& out, double d);  // Number.prototype.toString
void append_float_text(std::string& out, double d);  // 2 -> "2.0", 0.5 -> "0.5"
void append_json_string(std::string& out, std::string_view s, bool ensure_ascii);

struct JsonOptions {
  int indent = 0;  // 0: single line
  bool ensure_ascii = false;
  bool sort_keys = false;
  std::optional<std::pair<std::string, std::string>> separators;  // item, key
  bool undefined_as_null = true;  // false: prints "undefined" (how {{ list }} shows holes)
  std::size_t max_bytes = kNoLimit;  // fail once `out` grows past this (values may share parts)
};
void append_json(std::string& out, const Value& v, const JsonOptions& options, int depth = 0);

// What {{ v }} prints (none and undefined print nothing).
void append_value_text(std::string& out, const Value& v, std::size_t max_bytes = kNoLimit);
// JavaScript's String(value) as `~` and `+` use it; none prints "None" and undefined prints ""
// (Jinja2's str(), where the JavaScript engine raises).
void append_js_string(std::string& out, const Value& v, std::size_t max_bytes = kNoLimit);
// Python's repr() and str().
void append_python_repr(std::string& out, const Value& v, std::size_t max_bytes = kNoLimit, int depth = 0);
void append_python_str(std::string& out, const Value& v, std::size_t max_bytes = kNoLimit);

}  // namespace ogai::chat::jinja
