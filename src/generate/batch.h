// Generating several prompts in one batch: prompts are left-padded to a common length (padding
// masked out, positions counted over real tokens), each row samples and stops on its own, and a
// finished row's further positions are padding. Each row's result equals generating it alone.
// Used for graphs whose attention accepts left padding (standard attention with a mask); for
// graphs with explicit-length attention (GroupQueryAttention reads lengths from the mask as a
// right-padded count) the rows are generated one after another, with the same results.
#pragma once

#include <span>
#include <vector>

#include "generate/sequence.h"

namespace ogai::generate {

std::vector<GenerationResult> generate_batch(const SequenceModel& model, const ResolvedRequest& request,
                                             std::span<const std::vector<std::int32_t>> prompts);

}  // namespace ogai::generate
