#include "generate/sequence.h"

#include "generate/output_stream.h"
#include "generate/sequence_steps.h"
#include "generate/token_logprobs.h"
#include "sampling/sampler.h"

namespace ogai::generate {

GenerationResult generate_sequence(const SequenceModel& model, const ResolvedRequest& request,
                                   std::span<const std::int32_t> prompt, SequenceState& state,
                                   const StreamCallback& on_token) {
  PhaseTimes times;
  times.start = Clock::now();
  GenerationResult result;
  result.prompt_ids = fit_prompt(prompt, request);
  const std::size_t kept = reuse_prefix(state, result.prompt_ids);
  StepOutput out = feed(model.decoder, state, std::span(result.prompt_ids).subspan(kept), request.prefill_chunk,
                        times.run_seconds);
  times.prefilled = Clock::now();
  std::int64_t position = out.logits.shape()[1] - 1;  // the last prompt token's logits

  sampling::Sampler sampler(request.sampling, model.decoder.spec().vocab_size);
  std::vector<std::int64_t> history(result.prompt_ids.begin(), result.prompt_ids.end());
  sampler.reset(history);
  OutputStream output(model.tokenizer, request, on_token, result);
  LogprobRecorder logprobs(request.logprobs);
  std::vector<float> scratch;
  for (;;) {
    const std::int64_t token = sampler.next(logprobs.observe(out.row_logits(0, position, scratch)));
    if (output.generated() == 0) times.first_token = Clock::now();
    if (output.push(token, logprobs.entry(static_cast<std::int32_t>(token)))) break;
    const std::int32_t next = static_cast<std::int32_t>(token);
    out = feed(model.decoder, state, std::span(&next, 1), 0, times.run_seconds);
    position = 0;
  }
  output.finish();
  times.end = Clock::now();
  fill_timings(result, times);
  return result;
}

}  // namespace ogai::generate
