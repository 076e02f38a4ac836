// The request's `response_format` (chat and completions) as a ResponseFormat:
// {"type": "text"} (or absent) is free text; {"type": "json_object"};
// {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}; and ogai's extensions
// {"type": "regex", "regex": RE} and {"type": "grammar", "grammar": GBNF}. Reading it compiles
// nothing (that is the grammar pool's work, grammar_pool.h): check_response_format_field() does,
// and a schema or grammar ogai cannot enforce is a 400 `unsupported` naming the keyword and its
// JSON pointer, a malformed one a 400 invalid_request (docs/structured_output.md). Internal to serve.
#pragma once

#include <optional>

#include "ogai/options.h"
#include "serve/json_fields.h"

namespace ogai::serve {

std::optional<ResponseFormat> read_response_format(const FieldReader& fields);
void check_response_format_field(const ResponseFormat& format);

}  // namespace ogai::serve
