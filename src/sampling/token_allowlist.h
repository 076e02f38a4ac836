// A Constraint (constraint.h) that allows a fixed set of token ids at every step and never ends by
// itself: what Whisper's language detection needs (one step after <|startoftranscript|>, the
// argmax over the language tokens only; transformers' WhisperForConditionalGeneration.
// detect_language). The set is listed (allowed_tokens.h), so greedy picks cost O(set).
// Immutable and shared; its states are stateless views of the set (thread-safe to make).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sampling/constraint.h"

namespace ogai::sampling {

class TokenAllowlist final : public Constraint {
 public:
  // Throws ogai::Error (kInvalidArgument, "allowed_token_ids") when `ids` is empty or holds a
  // negative id. Duplicates are merged; ids past the vocabulary are never chosen.
  explicit TokenAllowlist(std::vector<TokenId> ids);
  std::unique_ptr<ConstraintState> start() const override;

 private:
  std::vector<std::int32_t> ids_;     // ascending, distinct
  std::vector<std::uint64_t> words_;  // the same set as bits
};

}  // namespace ogai::sampling
