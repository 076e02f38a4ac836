// Speculative decoding of one sequence (greedy): after each target step, a Drafter proposes up to
// K tokens; the target runs the pending token and the proposal in one step, and the sequence keeps
// every proposed token that equals the target's own greedy choice, plus the target's next token.
// The KV of rejected positions is rolled back (free with shared buffers, a copy in append mode).
// The emitted tokens are exactly those plain greedy decoding emits (same processors, same stop
// rules), up to floating-point differences between one multi-token step and single steps.
#pragma once

#include "generate/drafter.h"
#include "generate/sequence.h"

namespace ogai::generate {

// Throws ogai::Error (kInvalidArgument) when the request samples (speculation here is greedy).
GenerationResult generate_speculative(const SequenceModel& model, const Drafter& drafter, int max_draft_tokens,
                                      const ResolvedRequest& request, std::span<const std::int32_t> prompt,
                                      SequenceState& state, const StreamCallback& on_token);

}  // namespace ogai::generate
