// ResponseTemplate: a declarative description of how a model's reply splits into message fields
// (transformers' and vLLM's `response_template`; docs/tool_calls.md has the keys), validated and
// compiled. Keys: `defaults` (values always in the message), `start_anchor` (string or list) or
// `start_anchor_pattern` (where the current assistant turn begins in prompt + reply), `fields`:
// name -> {open | open_pattern, close | close_pattern (string or list), content ("text", "json",
// "xml-inline", "int", "float", "bool"), content_args, repeats, join, optional, transform,
// transform_each}. A field without open/open_pattern is the implicit one (the text no other field
// claims). Immutable; shared between parsers of many replies.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chat/reply/json_stream.h"
#include "chat/reply/pattern.h"

namespace ogai::chat::reply {

using Json = nlohmann::ordered_json;

enum class ContentKind { kText, kJson, kXmlInline, kInt, kFloat, kBool };

// How a value is read: a field's `content` with its `content_args`, or an xml-inline value_parser.
struct ValueParser {
  ContentKind kind = ContentKind::kText;
  bool strip = true;             // text: strip whitespace at both ends
  JsonDialect dialect;           // json: unquoted_keys, string_delims
  bool allow_non_json = false;   // json: text that is not JSON becomes a string
};

// Where a tool call's name or arguments come from, found by reading the field's transform.
struct CallSource {
  enum class Kind { kNone, kCapture, kContent, kLiteral };
  Kind kind = Kind::kNone;
  std::string capture;  // kCapture: the group's name
  JsonPath path;        // kContent: the path inside the content (the element, with transform_each)
  std::string literal;  // kLiteral
};

struct Field {
  std::string name;
  std::optional<Pattern> open, close;
  std::string close_text;  // the first literal `close`, when it is given as literals
  ValueParser parser;
  std::optional<Pattern> tag_pattern;          // xml-inline
  std::optional<ValueParser> value_parser;     // xml-inline
  bool repeats = false;
  std::optional<std::string> join;
  bool optional = true;
  std::optional<Json> transform;
  bool transform_each = false;
  // The field named "tool_calls": where each call's name and arguments are.
  CallSource call_name, call_arguments;
};

struct ResponseTemplate {
  std::string origin;  // what it was read from ("builtin:gemma4", a file, ...)
  Json defaults = Json::object();
  std::optional<Pattern> start_anchor;
  std::vector<Field> fields;
  int implicit = -1;  // the implicit field's index, -1 when none

  // Throws ogai::Error kInvalidArgument naming the key's path under `where` (an unknown key, a
  // wrong type, a bad regex, a transform naming a variable that does not exist).
  static std::shared_ptr<const ResponseTemplate> load(const Json& j, const std::string& where,
                                                      std::string origin);
};

// The value of `transform` with "{name}" / "{content}" / "{content.a.b}" replaced from `vars`
// (a whole-string placeholder keeps the value's type).
Json apply_transform(const Json& transform, const Json& vars);

}  // namespace ogai::chat::reply
