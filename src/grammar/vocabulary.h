// Vocabulary: the byte strings a model's token ids spell, and a trie over them that the token
// mask walks (token_mask.h). Built once per model (about 1 s per million vocabulary bytes... in
// practice tens of milliseconds for 32k-256k tokens) and shared read-only by every constrained
// request: thread-safe after construction.
//
// Trie layout: the nodes (root excluded) in preorder, children in byte order; node i holds the
// byte on its edge, its depth (1 = a token's first byte) and `skip`, the index just past its
// subtree, so a walk that rejects a node jumps over everything below it. Tokens ending at node i
// are token_ids[token_begin[i] .. token_begin[i + 1]). plain_height[i] is the height of node i's
// subtree (1 = a leaf) when every byte in it, its own included, is plain (printable ASCII but '"'
// and '\', is_plain_byte), else 0: a state in which every plain text of that length is viable
// accepts the whole subtree without walking it (grammar_constraint.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ogai::tokenizer {
class Tokenizer;
}

namespace ogai::grammar {

struct TokenTrie {
  std::vector<std::uint8_t> byte;
  std::vector<std::uint16_t> depth;
  std::vector<std::uint32_t> skip;
  std::vector<std::uint32_t> token_begin;  // size = nodes + 1
  std::vector<std::int32_t> token_ids;
  std::vector<std::uint8_t> plain_height;
  std::size_t max_depth = 0;
  std::size_t size() const { return byte.size(); }
};

inline bool is_plain_byte(std::uint8_t b) { return b >= 0x20 && b <= 0x7E && b != '"' && b != '\\'; }

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

 private:
  std::vector<std::string> bytes_;
  TokenTrie trie_;
};

}  // namespace ogai::grammar
