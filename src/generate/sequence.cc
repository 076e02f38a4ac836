#include "generate/sequence.h"

#include "generate/output_stream.h"
#include "generate/prompt_logprobs.h"
#include "generate/sequence_steps.h"
#include "generate/token_logprobs.h"
#include "sampling/sampler.h"

namespace ogai::generate {
namespace {

// Fits the prompt into result.prompt_ids and feeds what the state does not hold yet; returns the
// last step's output. With prompt logprobs the whole prompt is fed again (a reused prefix's logits
// are gone) and every step's logits are read.
StepOutput prefill(const SequenceModel& model, const ResolvedRequest& request, std::span<const std::int32_t> prompt,
                   SequenceState& state, GenerationResult& result, PhaseTimes& times) {
  result.prompt_ids = fit_prompt(prompt, request);
  if (!request.prompt_logprobs) {
    const std::size_t kept = reuse_prefix(state, result.prompt_ids);
    return feed(model.decoder, state, std::span(result.prompt_ids).subspan(kept), request.prefill_chunk,
                times.run_seconds);
  }
  truncate_state(state, 0);
  PromptLogprobs recorder(result.prompt_ids, *request.logprobs, result.prompt_logprobs);
  return feed(model.decoder, state, result.prompt_ids, request.prefill_chunk, times.run_seconds,
              [&](StepOutput& out, std::size_t begin, std::size_t n) { recorder.observe(out, begin, n); });
}

}  // namespace

GenerationResult generate_sequence(const SequenceModel& model, const ResolvedRequest& request,
                                   std::span<const std::int32_t> prompt, SequenceState& state,
                                   const StreamCallback& on_token) {
  PhaseTimes times;
  times.start = Clock::now();
  GenerationResult result;
  StepOutput out = prefill(model, request, prompt, state, result, times);
  times.prefilled = times.first_token = Clock::now();
  std::int64_t position = out.logits.shape()[1] - 1;  // the last prompt token's logits

  sampling::Sampler sampler(request.sampling, model.decoder.spec().vocab_size);
  std::vector<std::int64_t> history(result.prompt_ids.begin(), result.prompt_ids.end());
  sampler.reset(history);
  OutputStream output(model.tokenizer, request, on_token, result);
  LogprobRecorder logprobs(request.logprobs);
  std::vector<float> scratch;
  while (!request.prefill_only) {
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
