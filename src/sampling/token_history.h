// TokenHistory: the token statistics the penalties read, updated in O(1) per token.
//
// Keeps, for a vocabulary of V ids: which ids occur in prompt + generated text (for HF's
// repetition penalty) and how often each id was generated (for the OpenAI frequency and presence
// penalties, which count generated tokens only, as vLLM does). Lists of the distinct ids let the
// penalties touch only those ids instead of scanning V.
//
// Memory: two arrays of V entries, allocated by reset() when V changes, reused otherwise; push()
// never allocates once the id lists have grown to the number of distinct ids. Not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ogai/token_id.h"

namespace ogai::sampling {

class TokenHistory {
 public:
  // Forgets everything and records the prompt. Throws ogai::Error when an id is outside [0, V).
  void reset(int64_t vocab_size, std::span<const TokenId> prompt_ids);

  // Records one generated token. Throws ogai::Error when the id is outside [0, V).
  void push(TokenId id);

  int64_t vocab_size() const { return static_cast<int64_t>(seen_.size()); }
  // Distinct ids of prompt + generated, in order of first occurrence.
  std::span<const TokenId> seen_ids() const { return seen_ids_; }
  // Distinct generated ids, in order of first generation.
  std::span<const TokenId> generated_ids() const { return generated_ids_; }
  // How many times `id` was generated (0 for prompt-only ids).
  uint32_t generated_count(TokenId id) const { return generated_count_[id]; }
  int64_t generated_total() const { return generated_total_; }

 private:
  TokenId checked(TokenId id, const char* what) const;
  void mark_seen(TokenId id);

  std::vector<uint8_t> seen_;              // [V] 1 when the id occurs anywhere
  std::vector<uint32_t> generated_count_;  // [V] generations of the id
  std::vector<TokenId> seen_ids_;          // distinct ids with seen_ == 1
  std::vector<TokenId> generated_ids_;     // distinct ids with generated_count_ > 0
  int64_t generated_total_ = 0;
};

}  // namespace ogai::sampling
