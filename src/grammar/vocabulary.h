// Vocabulary: the byte strings a model's token ids spell, a trie over them that the token mask
// walks (token_trie.h), and the same tokens split by their leading run of plain bytes and of
// letters (run_split.h) for masks inside string-like lexemes (grammar_constraint.h). Built once per model
// (tens of milliseconds for 32k-256k tokens) and shared read-only by every constrained request:
// thread-safe after construction.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "grammar/run_split.h"
#include "grammar/token_trie.h"

namespace ogai::tokenizer {
class Tokenizer;
}

namespace ogai::grammar {

class Vocabulary {
 public:
  // `bytes[id]` is what token id adds to a text; an empty string marks an id a grammar never
  // produces (special and unused tokens).
  explicit Vocabulary(std::vector<std::string> bytes);
  // Every id of the tokenizer: token_bytes() (tokenizer/token_bytes.h), special tokens empty
  // except those listed in `markers`, which spell their content (a template's own markers, such
  // as Gemma-4's <|tool_call>, that a forced call must be able to write as the model does).
  static std::shared_ptr<const Vocabulary> from_tokenizer(const tokenizer::Tokenizer& tokenizer,
                                                          const std::vector<std::int32_t>& markers = {});

  std::size_t size() const { return bytes_.size(); }
  const std::string& bytes(std::int64_t id) const { return bytes_[static_cast<std::size_t>(id)]; }
  const TokenTrie& trie() const { return trie_; }
  const RunSplit& runs(RunSplit::Kind kind) const { return runs_[static_cast<std::size_t>(kind)]; }

 private:
  std::vector<std::string> bytes_;
  TokenTrie trie_;
  std::array<RunSplit, RunSplit::kKinds> runs_;
};

}  // namespace ogai::grammar
