// compile_response_format(): the public ResponseFormat (include/ogai/options.h) compiled to a
// CompiledGrammar, with errors located at "response_format" (its json_schema, regex or grammar).
// Cost: linear in the schema/grammar size, within the bounds of grammar.h and json_schema.h.
#pragma once

#include <memory>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "ogai/options.h"

namespace ogai::grammar {

// `unenforced`, when set, receives the schema keywords treated as annotations.
std::shared_ptr<const CompiledGrammar> compile_response_format(const ResponseFormat& format,
                                                               std::vector<UnenforcedKeyword>* unenforced = nullptr);

}  // namespace ogai::grammar
