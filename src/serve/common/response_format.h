// The request's `response_format` (chat and completions) as a ResponseFormat:
// {"type": "text"} (or absent) is free text; {"type": "json_object"};
// {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}; and ogai's extensions
// {"type": "regex", "regex": RE} and {"type": "grammar", "grammar": GBNF}. Reading it compiles
// nothing (that is the grammar pool's work, grammar_pool.h): check_response_format_field() does,
// and a schema or grammar ogai cannot enforce is a 400 `unsupported` naming the keyword and its
// JSON pointer, a malformed one a 400 invalid_request (docs/structured_output.md). Internal to serve.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ogai/options.h"
#include "serve/common/json_fields.h"

namespace ogai::serve {

// `unenforced`, when set, receives the schema keywords the grammar treats as annotations.
std::optional<ResponseFormat> read_response_format(const FieldReader& fields,
                                                   std::vector<UnenforcedKeyword>* unenforced = nullptr);
// The x-ogai-unenforced header value naming them ("format 'uri-template' at '#/x/format'; ..."):
// printable ASCII only, at most 8 entries.
std::string unenforced_header(const std::vector<UnenforcedKeyword>& unenforced);
// Schemas up to this size are checked for unenforced keywords while the request is parsed.
inline constexpr std::size_t kAnnotationScanBytes = 16 << 10;
void check_response_format_field(const ResponseFormat& format);

}  // namespace ogai::serve
