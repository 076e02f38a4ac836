// Drafter: proposes the tokens that follow a sequence, for speculative decoding. The target model
// verifies the proposal in one step, so a drafter only affects speed, never the output.
// Implementations: NgramDrafter (prompt lookup, no model) and AssistantDrafter (a draft model that
// borrows the target's KV). A drafter is immutable and shared; per-request state lives in the call.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kv/kv_cache.h"
#include "ogai/token_id.h"
#include "ort/tensor.h"

namespace ogai::generate {

struct DraftRequest {
  // Committed tokens (prompt + generated); the last one is the pending token, whose KV is not in
  // `target_cache` yet (the verify step feeds it together with the proposal).
  std::span<const TokenId> history;
  const kv::KvCache* target_cache = nullptr;  // the target's KV of history minus its last token
  // The target's hidden state at the last KV position ([1, S, H] and the row in it), when the
  // target graph has a hidden_states output; null otherwise.
  const ort::Tensor* target_hidden = nullptr;
  std::int64_t hidden_row = 0;
  int max_tokens = 0;
};

class Drafter {
 public:
  virtual ~Drafter() = default;
  // Appends at most request.max_tokens proposed tokens to `out` (possibly none).
  virtual void propose(const DraftRequest& request, std::vector<TokenId>& out) const = 0;
  // Whether propose() needs the target's hidden state.
  virtual bool needs_hidden() const { return false; }
  // Whether propose() reads request.target_cache (then its sequence verifies on its own state:
  // a row of a shared batch has no batch-1 KV to lend).
  virtual bool needs_target_cache() const { return false; }
};

}  // namespace ogai::generate
