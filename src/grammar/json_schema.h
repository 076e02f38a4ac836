// JSON Schema (and OpenAI's json_object) compiled to a Grammar whose texts are JSON values valid
// against the schema (a subset of them: properties in declared order, whitespace bounded, no
// exponents under numeric bounds; docs/structured_output.md lists every keyword as enforced,
// annotation or refused).
//
// Keywords: draft 2020-12 rules, with the draft-4/6/7 spellings (id, definitions, dependencies,
// array items + additionalItems, boolean exclusive bounds) understood. Unknown keywords and
// annotations are ignored, as JSON Schema says; `format` values ogai does not enforce are
// annotations and are reported (JsonSchemaOptions::unenforced). FAIL CLOSED: a validation keyword
// or a combination the grammar cannot enforce is an ogai::Error (kUnsupported) naming the keyword
// and its JSON pointer; a malformed schema is kInvalidArgument.
// Bounds: schema nesting depth kMaxSchemaDepth, enum/const bytes kMaxLiteralBytes (json_rules.h),
// the grammar's kMaxElements.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/json_rules.h"
#include "ogai/options.h"

namespace ogai::grammar {

inline constexpr int kMaxSchemaDepth = 64;

using ogai::UnenforcedKeyword;  // a `format` ogai does not enforce and its pointer (ogai/options.h)

struct JsonSchemaOptions {
  // Blanks (space, tab, newline, carriage return) allowed between tokens, at most this many in a
  // row; 0 = compact JSON (the default, as OpenAI's structured outputs); kIndentedWhitespace
  // (json_rules.h): one space or a newline and an indent, as in a tool call's arguments.
  int whitespace = 0;
  // How values are spelled (json_rules.h): JSON, or a dialect such as Gemma-4's bare keys and
  // <|"|> strings. The same keywords are enforced either way.
  JsonDialect dialect;
  // When set, receives the keywords the grammar treats as annotations.
  std::vector<UnenforcedKeyword>* unenforced = nullptr;
  // TEST ONLY (mutation tests): this keyword is dropped as if it were an annotation, so a
  // differential test can show that its enforcement matters. Never set it in production.
  std::string ignore_keyword_for_testing;
};

// `schema` is the schema's JSON text; `where` prefixes every error's location.
Grammar compile_json_schema(std::string_view schema, const std::string& where, const JsonSchemaOptions& options = {});
// Any JSON object (OpenAI's {"type": "json_object"}); `whitespace` as in JsonSchemaOptions.
Grammar compile_json_object(const std::string& where, int whitespace = 0);

}  // namespace ogai::grammar
