// How one character of a class is spelled in the output: as its UTF-8 bytes (plain text,
// GBNF, a top-level regex) or inside a JSON string, where '"', '\' and control characters
// must be escaped (each gets its one canonical escape: \" \\ \b \f \n \r \t, else \u00XX).
#pragma once

#include <string>

#include "grammar/codepoints.h"
#include "grammar/grammar.h"

namespace ogai::grammar {

enum class Spelling { kUtf8, kJsonString };

// One character of `set` as grammar elements in `spelling`. `name` names helper rules.
Sequence spell_class(GrammarBuilder& builder, const CodepointSet& set, Spelling spelling, const std::string& name);

// `text` (UTF-8) as a literal in `spelling`.
Sequence spell_literal(GrammarBuilder& builder, const std::string& text, Spelling spelling);

// The JSON escape of code point `cp` (one of '"', '\' or below U+0020).
std::string json_escape_of(std::uint32_t cp);

}  // namespace ogai::grammar
