// RunSplit: a vocabulary split by its tokens' leading run of bytes of one class: plain bytes
// (is_plain_byte: printable ASCII but '"' and '\') or ASCII letters. A mask in a state where every
// byte of the class leads to one and the same next state, and so on for k levels (inside a JSON
// string, a counted string, a regex's [^"]*: plain; an e-mail's local part, a hostname label, a
// TLD: letters) needs no walk over the tokens made of that class: the state after any k such
// bytes is known without reading them (grammar_constraint.h). The lexer states of a
// lexer/parser split, found in the byte-level automaton instead of declared by the grammar.
//
// For a token t, run(t) is the number of its leading bytes of the class (k <= kMaxRun matters):
//   - tokens made only of the class, of length <= kMaxRun: `all_upto[L]`, the bits of those of
//     length 1..L;
//   - tokens with a byte outside the class at k <= kMaxRun: `after_run[k]`, a trie over bytes k..;
//   - the rest (more than kMaxRun leading bytes of the class): `long_runs`, a trie over all bytes.
// Each token is in exactly one of the three. Built once per vocabulary with it (vocabulary.h):
// memory (kMaxRun + 1) x V / 8 bytes for the bit sets (1.1 MB at 262,144 tokens) plus the tries
// over the other tokens' tails (for plain bytes a few percent of the vocabulary's trie; for
// letters about as large as it, since most tokens hold a space or punctuation). Immutable and thread-safe after
// construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grammar/token_trie.h"

namespace ogai::grammar {

struct RunSplit {
  enum class Kind : std::uint8_t { kPlain, kLetter };
  static constexpr std::size_t kKinds = 2;
  static constexpr std::size_t kMaxRun = 32;

  static bool in_class(Kind kind, std::uint8_t b) {
    return kind == Kind::kPlain ? is_plain_byte(b) : ((b | 0x20) >= 'a' && (b | 0x20) <= 'z');
  }

  Kind kind = Kind::kPlain;
  std::vector<std::vector<std::uint64_t>> all_upto;  // [L], L = 0..kMaxRun; bit i of word i / 64
  std::vector<TokenTrie> after_run;                  // [k], k = 0..kMaxRun
  TokenTrie long_runs;
  std::size_t max_depth = 0;  // the deepest of the tries

  // `bytes[id]`: what token id spells (empty: never produced, as in Vocabulary).
  static RunSplit build(const std::vector<std::string>& bytes, Kind kind);
};

}  // namespace ogai::grammar
