// Speculative decoding of one sequence: after each target step, a Drafter proposes up to K tokens;
// the target runs the pending token and the proposal in one step, and the sequence keeps proposed
// tokens while the target accepts them, plus the target's own token at the first rejection (or
// after the last proposal). The KV of rejected positions is rolled back (free with shared buffers,
// a copy in append mode).
// Greedy: a proposal is accepted when it equals the target's greedy choice, so the emitted tokens
// are exactly plain greedy decoding's (same processors, same stop rules), up to floating-point
// differences between one multi-token step and single steps.
// Sampling: speculative sampling with a one-hot draft (speculative_accept.h) over the distribution
// plain sampling draws from at each position (penalties see the accepted tokens), so each emitted
// token has plain sampling's distribution; a seed fixes the output, but not to plain sampling's
// sample path for that seed.
#pragma once

#include "generate/drafter.h"
#include "generate/sequence.h"

namespace ogai::generate {

GenerationResult generate_speculative(const SequenceModel& model, const Drafter& drafter, int max_draft_tokens,
                                      const ResolvedRequest& request, std::span<const std::int32_t> prompt,
                                      SequenceState& state, const StreamCallback& on_token);

}  // namespace ogai::generate
