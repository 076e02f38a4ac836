// Pre-tokenizers of tokenizer.json ("pre_tokenizer"): ByteLevel, Split, Metaspace, Whitespace,
// WhitespaceSplit, Punctuation, Digits, BertPreTokenizer, UnicodeScripts, CharDelimiterSplit,
// FixedLength and Sequence, with Hugging Face's semantics. A pre-tokenizer splits (and may
// rewrite) every text piece of a list, leaving added-token pieces alone and dropping empty
// pieces. Built once at load; immutable and thread-safe afterwards.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/json.h"
#include "tokenizer/piece.h"
#include "tokenizer/regex.h"
#include "tokenizer/scanner.h"

namespace ogai::tokenizer {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void pre_tokenize(std::vector<Piece>& pieces) const = 0;
  // Whether a piece's input offset matters (Metaspace with prepend_scheme "first").
  virtual bool needs_origins() const { return false; }
};

// What a tokenizer can run without pieces: one regex split (a hand-written scanner or PCRE2),
// then the byte-level mapping, with nothing else in between.
struct ByteLevelPlan {
  Scanner scanner = nullptr;           // the split, when a scanner exists for the pattern
  std::shared_ptr<const Regex> regex;  // otherwise the regex
  bool split = false;                  // false: no split at all (ByteLevel without regex)
};

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonValue& value);

// The fast plan of a pre-tokenizer when it is ByteLevel(add_prefix_space=false), or
// Sequence[Split(regex, Isolated, invert=false), ByteLevel(add_prefix_space=false,
// use_regex=false)]; nullopt otherwise.
std::optional<ByteLevelPlan> byte_level_plan(const JsonValue& value);

}  // namespace ogai::tokenizer
