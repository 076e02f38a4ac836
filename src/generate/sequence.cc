#include "generate/sequence.h"

#include <limits>

#include "generate/engine.h"
#include "generate/sequence_factory.h"

namespace ogai::generate {

GenerationResult generate_sequence(const SequenceModel& model, const ResolvedRequest& request,
                                   std::span<const TokenId> prompt, SequenceState& state,
                                   const StreamCallback& on_token, const Speculation& speculation) {
  auto sequence = make_sequence({model, request, prompt, on_token, speculation, std::move(state)});
  EngineLimits limits;
  limits.max_rows = 1;
  limits.step_tokens = std::numeric_limits<std::size_t>::max();  // the whole prompt in one step
  limits.keep_states = true;
  Engine engine(model, limits);
  engine.add(sequence);
  while (!engine.idle()) engine.step();
  state = std::move(sequence->state());
  if (sequence->error()) std::rethrow_exception(sequence->error());
  return std::move(sequence->result());
}

}  // namespace ogai::generate
