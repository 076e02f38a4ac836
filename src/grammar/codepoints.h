// CodepointSet: a set of Unicode scalar values as sorted, disjoint, non-adjacent ranges, and its
// spelling in UTF-8 (the grammars work on bytes). Used by the regex and GBNF character classes
// and by JSON string content.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "grammar/grammar.h"

namespace ogai::grammar {

inline constexpr std::uint32_t kMaxCodepoint = 0x10FFFF;

class CodepointSet {
 public:
  void add(std::uint32_t cp) { add(cp, cp); }
  void add(std::uint32_t lo, std::uint32_t hi);  // inclusive; surrogates are dropped
  void add(const CodepointSet& other);
  // Everything in [0, kMaxCodepoint] (surrogates excluded) not in the set.
  CodepointSet complement() const;
  bool empty() const { return ranges_.empty(); }
  bool contains(std::uint32_t cp) const;
  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& ranges() const { return ranges_; }

 private:
  void normalize();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges_;
};

// The UTF-8 spellings of the set: sequences of byte sets, each sequence matching the encodings of
// a subrange (at most a few per range, as in RE2 and Rust's regex-syntax).
std::vector<std::vector<ByteSet>> utf8_sequences(const CodepointSet& set);

// One character of the set as grammar elements: a single byte set when every member is ASCII,
// else a reference to a rule with one alternative per UTF-8 sequence. `name` names the rule.
Sequence utf8_class(GrammarBuilder& builder, const CodepointSet& set, const std::string& name);

// Appends the UTF-8 encoding of `cp` to `out`.
void append_utf8(std::string& out, std::uint32_t cp);

}  // namespace ogai::grammar
