// A byte trie over a vocabulary's pieces. Walking a text from one position visits every piece
// that prefixes it, shortest first, one hash lookup per byte walked, and stops at the first byte
// no piece continues with: the cost follows the text's match, not the longest piece's length.
// Built once at load (memory: about 32 bytes per distinct piece prefix); immutable and safe to
// share across threads afterwards.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/vocab.h"

namespace ogai::tokenizer {

class PieceTrie {
 public:
  // Adds `piece` with `id`; a later insertion of the same piece replaces the id.
  void insert(std::string_view piece, std::int32_t id);
  // Calls f(end, id) for each piece equal to text[start, end), in increasing `end`.
  template <typename F>
  void prefixes(std::string_view text, std::size_t start, F&& f) const {
    std::int32_t node = 0;
    for (std::size_t i = start; i < text.size(); ++i) {
      const PairMap::Value* edge = edges_.find(node, static_cast<unsigned char>(text[i]));
      if (!edge) return;
      node = edge->id;
      if (ids_[static_cast<std::size_t>(node)] >= 0) f(i + 1, ids_[static_cast<std::size_t>(node)]);
    }
  }

 private:
  PairMap edges_;                   // (node, byte) -> child node, in Value::id
  std::vector<std::int32_t> ids_{-1};  // node -> piece id, or -1; node 0 is the root
};

}  // namespace ogai::tokenizer
