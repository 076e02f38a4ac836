#include "tokenizer/piece_trie.h"

namespace ogai::tokenizer {

void PieceTrie::insert(std::string_view piece, std::int32_t id) {
  std::int32_t node = 0;
  for (char ch : piece) {
    auto byte = static_cast<unsigned char>(ch);
    if (const PairMap::Value* edge = edges_.find(node, byte)) {
      node = edge->id;
      continue;
    }
    auto child = static_cast<std::int32_t>(ids_.size());
    ids_.push_back(-1);
    edges_.insert(node, byte, {0, child});
    node = child;
  }
  if (node != 0) ids_[static_cast<std::size_t>(node)] = id;
}

}  // namespace ogai::tokenizer
