// Normalizers of tokenizer.json ("normalizer"): NFC, NFD, NFKC, NFKD, Lowercase, Strip,
// StripAccents, Replace (string or regex), Prepend, Precompiled (SentencePiece charsmap),
// BertNormalizer, ByteLevel and Sequence, with Hugging Face's semantics. A normalizer rewrites
// a Piece in place, keeping origins when the piece tracks them. Built once at load; immutable
// and thread-safe afterwards.
#pragma once

#include <memory>

#include "tokenizer/json.h"
#include "tokenizer/piece.h"

namespace ogai::tokenizer {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(Piece& piece) const = 0;
};

// Builds the normalizer described at `value`; null -> nullptr. Unknown types fail with
// "unsupported normalizer '<type>' at <path>".
std::unique_ptr<Normalizer> make_normalizer(const JsonValue& value);

// The SentencePiece precompiled charsmap normalizer (precompiled.cc), from the decoded blob.
std::unique_ptr<Normalizer> make_precompiled(std::string_view blob, const JsonValue& where);

// The pattern of a Replace/Split component: {"String": s} or {"Regex": r}, as a regex.
std::string pattern_regex(const JsonValue& pattern);

}  // namespace ogai::tokenizer
