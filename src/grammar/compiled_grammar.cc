#include "grammar/compiled_grammar.h"


namespace ogai::grammar {
namespace {

// Partitions the 256 bytes by their membership in every byte set.
int byte_classes(const std::vector<ByteSet>& sets, std::array<std::uint8_t, 256>& cls) {
  std::array<int, 256> id{};
  int count = 1;
  for (const ByteSet& set : sets) {
    std::array<int, 512> refined;  // old class * 2 + membership -> new class
    refined.fill(-1);
    count = 0;
    for (int b = 0; b < 256; ++b) {
      int& to = refined[static_cast<std::size_t>(id[b] * 2 + (set.has(static_cast<std::uint8_t>(b)) ? 1 : 0))];
      if (to < 0) to = count++;
      id[b] = to;
    }
  }
  for (int b = 0; b < 256; ++b) cls[b] = static_cast<std::uint8_t>(id[b]);
  return count;
}

}  // namespace

std::shared_ptr<const CompiledGrammar> CompiledGrammar::compile(Grammar grammar) {
  auto g = std::make_shared<CompiledGrammar>();
  for (const auto& alts : grammar.rules) {
    g->alt_begin.push_back(static_cast<std::uint32_t>(g->alt_start.size()));
    for (const Sequence& alt : alts) {
      g->alt_start.push_back(static_cast<std::uint32_t>(g->elements.size()));
      g->elements.insert(g->elements.end(), alt.begin(), alt.end());
      g->elements.push_back({Element::Kind::kEnd, 0});
    }
  }
  g->alt_begin.push_back(static_cast<std::uint32_t>(g->alt_start.size()));
  g->class_count = byte_classes(grammar.byte_sets, g->byte_class);
  g->byte_sets = std::move(grammar.byte_sets);
  g->root = grammar.root;
  g->names = std::move(grammar.names);
  return g;
}

}  // namespace ogai::grammar
