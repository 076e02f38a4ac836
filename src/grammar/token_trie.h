// TokenTrie: a trie over token byte strings, the structure every token mask walks
// (grammar_constraint.h). Built once per vocabulary (vocabulary.h, plain_runs.h); immutable and
// thread-safe after construction. Building costs O(total bytes x log tokens) (one sort).
//
// Layout: the nodes (root excluded) in preorder, children in byte order; node i holds the byte on
// its edge, its depth (1 = a string's first byte) and `skip`, the index just past its subtree, so
// a walk that rejects a node jumps over everything below it. Tokens ending at node i are
// token_ids[token_begin[i] .. token_begin[i + 1]). plain_height[i] is the height of node i's
// subtree (1 = a leaf) when every byte in it, its own included, is plain (printable ASCII but '"'
// and '\', is_plain_byte), else 0: a state in which every plain text of that length is viable
// accepts the whole subtree without walking it.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

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

// Strings longer than this are left out of a trie (never allowed): the depth counter is 16 bits.
inline constexpr std::size_t kMaxTrieBytes = 4096;

// The trie of `entries` (token id, the bytes the trie spells for it); empty strings and strings
// over kMaxTrieBytes are left out. The views must stay valid during the call only.
TokenTrie build_token_trie(std::vector<std::pair<std::int32_t, std::string_view>> entries);

}  // namespace ogai::grammar
