// Regular expressions (the ECMAScript syntax JSON Schema's `pattern` uses) compiled into grammar
// rules over bytes.
//
// Supported: literals (UTF-8), '.', classes [...] / [^...] with ranges, escapes \d \D \w \W \s \S
// \t \n \r \f \v \0 \xHH \uHHHH \u{H...} and escaped punctuation, groups (...) (?:...) (?<name>...),
// alternation |, quantifiers * + ? {n} {n,} {n,m} (lazy forms '?' suffixed match the same
// language), '^' at the very start and '$' at the very end.
// Refused with an ogai::Error naming the construct and its offset: backreferences, lookaround,
// word boundaries \b \B, Unicode properties \p, inline flags, anchors elsewhere.
// The language is the regex's set of full matches; RegexAnchoring says what an unanchored end
// means. Compile-time bounds: the grammar's kMaxElements (a {n,m} costs O(m) elements).
#pragma once

#include <string>
#include <string_view>

#include "grammar/char_spelling.h"
#include "grammar/codepoints.h"
#include "grammar/grammar.h"

namespace ogai::grammar {

enum class RegexAnchoring {
  kFullMatch,  // the text is one match (a top-level regex response format)
  kSearch,     // ECMAScript test(): an end without ^ / $ may have any text beside the match (JSON Schema pattern)
};

// The regex as a sequence of elements in `builder`. `where` names the pattern in errors (e.g.
// "/properties/code/pattern"). `without`: characters the text never holds, even where the regex
// allows them (a subset: a raw string's delimiter character, json_rules.h).
Sequence compile_regex(GrammarBuilder& builder, std::string_view pattern, Spelling spelling, RegexAnchoring anchoring,
                       const std::string& where, const CodepointSet* without = nullptr);

}  // namespace ogai::grammar
