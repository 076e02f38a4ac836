// JSON Schema (and OpenAI's json_object) compiled to a Grammar whose texts are exactly JSON
// values valid against the schema (a subset of them: properties in declared order, whitespace
// bounded, no exponents under numeric bounds).
//
// Supported keywords (docs/structured_output.md has the table): type (one or a list), enum,
// const, $ref ("#", "#/$defs/...", any local JSON pointer; recursion allowed) with $defs /
// definitions, anyOf, oneOf (branches must be provably disjoint), allOf with one schema,
// properties, required, additionalProperties (false/true; a schema only without properties),
// items, prefixItems (and draft-7 array items/additionalItems), minItems, maxItems, minLength,
// maxLength, pattern, format (date, time, date-time, uuid, email), minimum, maximum,
// exclusiveMinimum, exclusiveMaximum (integer-valued for numbers), and the annotations (title,
// description, default, examples, $schema, $id, $comment, ...), which do not constrain.
// FAIL CLOSED: any other keyword, or a combination the grammar cannot enforce, is an ogai::Error
// (kUnsupported) naming the keyword and its JSON pointer; a malformed schema is kInvalidArgument.
// Bounds: schema nesting depth kMaxSchemaDepth, enum/const bytes kMaxLiteralBytes (json_rules.h),
// the grammar's kMaxElements.
#pragma once

#include <string>
#include <string_view>

#include "grammar/grammar.h"

namespace ogai::grammar {

inline constexpr int kMaxSchemaDepth = 64;

// `schema` is the schema's JSON text; `where` prefixes every error's location.
Grammar compile_json_schema(std::string_view schema, const std::string& where);
// Any JSON object (OpenAI's {"type": "json_object"}).
Grammar compile_json_object(const std::string& where);

}  // namespace ogai::grammar
