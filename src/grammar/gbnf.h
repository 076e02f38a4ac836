// GBNF, the grammar format of llama.cpp (its grammars/README.md), compiled to a Grammar.
//
// The dialect, as llama.cpp parses it: rules `name ::= alternatives`, one per line (a newline ends
// a rule except inside parentheses); names of letters, digits and '-'; the start rule is `root`.
// Elements: "literal" (with \n \r \t \\ \" \[ \] \xHH \uHHHH \UHHHHHHHH), [class] and [^class] with
// ranges and the same escapes, '.' (any character), rule names, ( groups ), alternation '|', and
// the postfix operators * + ? {m} {m,} {m,n}; '#' starts a comment. Characters are Unicode
// code points matched as UTF-8.
// Refused (ogai::Error naming the line and column): llama.cpp's token references <...> and !,
// undefined or twice-defined rules, a missing root, left recursion and rules with no terminal
// (grammar.h).
#pragma once

#include <string>
#include <string_view>

#include "grammar/grammar.h"

namespace ogai::grammar {

Grammar compile_gbnf(std::string_view text, const std::string& where);

}  // namespace ogai::grammar
