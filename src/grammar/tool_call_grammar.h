// The grammar of forced tool calls (ResponseFormat::Kind::kToolCalls; docs/structured_output.md,
// "Forced calls"): a reply that is one call, or with "parallel" one or more, of the listed
// functions, each call's arguments a JSON value valid against that function's parameter schema
// (compiled by json_schema.h, so unenforceable keywords fail closed the same way).
//
// `spec` is a JSON object: {"begin", "call_open", "call_close", "separator", "end": strings,
// "arguments_key": string, "parallel": bool, "functions": [{"name", "parameters": schema,
// "where": the location errors name, e.g. "tools[0].function.parameters"}]}. A call is written
// call_open + {"name": "<name>", "<arguments_key>": <arguments>} + call_close; calls are joined by
// separator, between begin and end. With "call_template" (a string holding {name} then
// {arguments}) a call is that text instead; "max_calls" (> 0) bounds how many a parallel reply
// has. "arguments_dialect" ({"unquoted_keys", "string_delims": [open, close], "sorted_keys"};
// absent: JSON) spells the arguments in a JSON-like dialect (json_rules.h JsonDialect; Gemma-4:
// {"unquoted_keys": true, "string_delims": ["<|\"|>", "<|\"|>"], "sorted_keys": true}), compact,
// with the same keywords enforced. Errors: kInvalidArgument for a malformed spec, the schema
// compiler's errors (located at each function's "where") otherwise.
#pragma once

#include <string_view>

#include "grammar/grammar.h"

namespace ogai::grammar {

Grammar compile_tool_calls(std::string_view spec);

// Copies every rule of `g` into `b`; returns a reference to g's root there.
Element embed_grammar(GrammarBuilder& b, const Grammar& g);

}  // namespace ogai::grammar
