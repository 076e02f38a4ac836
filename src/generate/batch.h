// Generating several prompts together: one engine (engine.h) whose rows are the prompts; each is
// prefilled on its own state, then every row decodes in one batched run per step, samples and
// stops on its own, and leaves the batch when it ends. Each row's result equals generating it
// alone (the same seed per row), for every state layout the engine runs (kv/batch_cache.h).
// With a drafter in `speculation`, every row decodes speculatively (verified in the engine's shared
// run where the graph allows it, else each its own run; speculative.h) and yields Model::generate's
// tokens with the same speculative options (greedy rows' draft counts may differ: engine.h).
#pragma once

#include <span>
#include <vector>

#include "generate/sequence.h"
#include "generate/speculative.h"

namespace ogai::generate {

std::vector<GenerationResult> generate_batch(const SequenceModel& model, const ResolvedRequest& request,
                                             std::span<const std::vector<TokenId>> prompts,
                                             const Speculation& speculation = {});

}  // namespace ogai::generate
