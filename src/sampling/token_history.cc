#include "sampling/token_history.h"

#include <algorithm>

#include "base/error.h"

namespace ogai::sampling {

TokenId TokenHistory::checked(TokenId id, const char* what) const {
  if (id < 0 || id >= vocab_size()) {
    fail(ErrorCode::kInvalidArgument, what, "token id {} is outside the vocabulary [0, {})", id, vocab_size());
  }
  return id;
}

void TokenHistory::mark_seen(TokenId id) {
  if (!seen_[id]) {
    seen_[id] = 1;
    seen_ids_.push_back(id);
  }
}

void TokenHistory::reset(int64_t vocab_size, std::span<const TokenId> prompt_ids) {
  if (vocab_size <= 0 || vocab_size > INT32_MAX) {
    fail(ErrorCode::kInvalidArgument, "vocab_size", "{} is outside [1, 2^31)", vocab_size);
  }
  if (static_cast<int64_t>(seen_.size()) != vocab_size) {
    seen_.assign(vocab_size, 0);
    generated_count_.assign(vocab_size, 0);
  } else {
    // Clear only what the previous request touched: O(distinct ids), not O(V).
    for (TokenId id : seen_ids_) seen_[id] = 0;
    for (TokenId id : generated_ids_) generated_count_[id] = 0;
  }
  seen_ids_.clear();
  generated_ids_.clear();
  generated_total_ = 0;
  for (TokenId id : prompt_ids) mark_seen(checked(id, "prompt_ids"));
}

void TokenHistory::push(TokenId id) {
  TokenId token = checked(id, "generated token");
  mark_seen(token);
  if (generated_count_[token]++ == 0) generated_ids_.push_back(token);
  ++generated_total_;
}

}  // namespace ogai::sampling
