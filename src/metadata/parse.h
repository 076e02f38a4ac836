// Reading an inference_metadata v1 document into the typed Document (document.h).
//
// parse_document() is strict: unknown keys in closed structs, retired v1 fields (named in the
// message), missing required keys, wrong scalar types and values outside a vocabulary become `P`
// diagnostics; reading continues so one pass reports every problem. Only sections the reference
// reads loosely and ogai does not interpret (quantization, hardware_requirements, preprocessing)
// accept any keys. It checks structure only; the V-* rules run in validate.h.
#pragma once

#include <string>
#include <string_view>

#include "metadata/diagnostics.h"
#include "metadata/document.h"
#include "metadata/tree.h"

namespace ogai::metadata {

Document parse_document(const Node& root, Diagnostics& diags);

// Text -> tree -> Document. `origin` names the file; a `.json` origin selects JSON, anything else
// YAML. Format-level failures (malformed text, duplicate keys, non-UTF-8, limits) throw
// ogai::Error(kParse); structural problems are `P` diagnostics.
Document parse_document_text(std::string_view text, const std::string& origin, Diagnostics& diags);

}  // namespace ogai::metadata
