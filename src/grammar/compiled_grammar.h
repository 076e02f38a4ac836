// CompiledGrammar: a checked Grammar laid out for matching. Every alternative is a run of
// elements ending with a kEnd marker in one flat array (a "position" is an index into it), and
// bytes that no byte set tells apart share a byte class, so the matcher's transition tables have
// one column per class instead of 256. Immutable; shared by every sequence of a request.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "grammar/grammar.h"

namespace ogai::grammar {

struct CompiledGrammar {
  std::vector<Element> elements;           // flattened alternatives, each closed by kEnd
  std::vector<std::uint32_t> alt_begin;    // rule r's alternatives start at alt_start[alt_begin[r] .. alt_begin[r+1])
  std::vector<std::uint32_t> alt_start;    // position of each alternative's first element
  std::vector<ByteSet> byte_sets;
  std::array<std::uint8_t, 256> byte_class{};  // byte -> class
  int class_count = 1;
  std::uint32_t root = 0;
  std::vector<std::string> names;

  // Lays out `grammar` (already checked by GrammarBuilder::finish or check_grammar).
  static std::shared_ptr<const CompiledGrammar> compile(Grammar grammar);
};

}  // namespace ogai::grammar
