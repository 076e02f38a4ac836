// Helpers for the grammar tests: full and prefix matches of a text against a compiled grammar.
#pragma once

#include <string_view>

#include "grammar/compiled_grammar.h"
#include "grammar/matcher.h"

namespace ogai::grammar {

// The text is a complete match.
inline bool full_match(const std::shared_ptr<const CompiledGrammar>& g, std::string_view text) {
  Matcher m(g);
  const Matcher::State s = m.walk(m.initial(), text);
  return s != Matcher::kDead && m.accepting(s);
}

// The text can be continued into a match.
inline bool viable_prefix(const std::shared_ptr<const CompiledGrammar>& g, std::string_view text) {
  Matcher m(g);
  return m.walk(m.initial(), text) != Matcher::kDead;
}

}  // namespace ogai::grammar
