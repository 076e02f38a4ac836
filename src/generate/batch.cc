#include "generate/batch.h"

#include <limits>

#include "base/error.h"
#include "generate/engine.h"
#include "generate/sequence_factory.h"

namespace ogai::generate {

std::vector<GenerationResult> generate_batch(const SequenceModel& model, const ResolvedRequest& request,
                                             std::span<const std::vector<TokenId>> prompts,
                                             const Speculation& speculation) {
  std::vector<GenerationResult> results(prompts.size());
  if (prompts.empty()) return results;
  std::vector<std::shared_ptr<LiveSequence>> sequences;
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    if (prompts[i].empty())
      fail(ErrorCode::kInvalidArgument, "prompts[" + std::to_string(i) + "]", "the prompt has no tokens");
    sequences.push_back(make_sequence({model, request, prompts[i], {}, speculation}));
  }
  EngineLimits limits;
  limits.max_rows = static_cast<int>(prompts.size());
  limits.step_tokens = std::numeric_limits<std::size_t>::max();
  Engine engine(model, limits);
  for (const auto& s : sequences) engine.add(s);
  while (!engine.idle()) engine.step();
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    if (sequences[i]->error()) std::rethrow_exception(sequences[i]->error());
    results[i] = std::move(sequences[i]->result());
  }
  return results;
}

}  // namespace ogai::generate
